"""One walk over a console log: what kunit_parser does not keep.

kunit.py's own parser (kunit_parser.parse_run_tests) gives the cases and
their statuses and logs; this walk reads the same lines once for the rest:
the skip reason of each case (by its full name: the iphdr cases share
parameter names), the policy facts, the frames the suites measured
(`rx_align_frame:` lines, each filed under the case that printed it),
kernel splats pinned on the case or the window they happened in, a crash
and the case that was running then, where output stopped, and the kmemleak
scan /init prints after the suites.

Lines are read as kunit_parser reads them: without printk timestamps.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, Iterable, List, Optional

from .crashes import CRASH
from .results import FRAME_PREFIX, Frame, MalformedFrame, parse_frame

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SUBTEST = re.compile(r'^( *)# Subtest: (.+)$')
RESULT = re.compile(r'^( *)(?:not )?ok \d+ (?:- )?([^#]*?)\s*(?:#\s*(\w+)\b\s*(.*))?$')
KTAP_START = re.compile(r'^(\s*)K?TAP version \d+')
DIAGNOSTIC = re.compile(r'^\s*# ')
FAILED_AT = re.compile(r'(?:EXPECTATION|ASSERTION) FAILED at ')
FACTS = re.compile(r'rx_align_facts: (.*)$')
FRAME = re.compile(re.escape(FRAME_PREFIX.strip()) + r'\s*(.*)$')
# A crash ends the run (results missing): crashes.CRASH, one table of every
# arch's formats, matched only where the kernel prints them, at the start of
# a line, never inside a test's own message.
PANIC = re.compile(r'^\s*(Kernel panic - not syncing.*)$')
# A splat is pinned on the case that ran, or on the window it came in.
SPLAT = re.compile(r'^\s*(?:WARNING: CPU: \d+ PID: .*|BUG: KASAN: .*|BUG: sleeping function .*|'
                   r'BUG: scheduling while atomic.*|WARNING: possible .*|'
                   r'WARNING: suspicious RCU .*|UBSAN: .*|BUG: [\w ]+ \(.*|'
                   r'kmemleak: \d+ new suspected memory leaks.*)')
# What kmemleak prints when a scan finds objects: after the suites, the
# kmemleak case (the /init scan) judges those, not the splat rule.
KMEMLEAK_SPLAT = re.compile(r'^\s*kmemleak: \d+ new suspected memory leaks')
KMEMLEAK = re.compile(r'rx_align_kmemleak: (\w+):? ?(.*)$')
LEAK = re.compile(r'unreferenced object (0x[0-9a-f]+) \(size (\d+)\)')

OUTSIDE_CASES = 'kernel_splat'   # the pseudo-suite of splats outside every case


def strip_timestamps(lines: Iterable[str]) -> List[str]:
    return [TIMESTAMP.sub('', ln.rstrip('\n')) for ln in lines]


@dataclasses.dataclass
class Crash:
    first: str                  # the first crash line
    panic: str                  # the `Kernel panic - not syncing: ...` line, if any
    where: str                  # the test that was running when it came


@dataclasses.dataclass
class KmemleakScan:
    state: str = ''             # '', 'begin', 'end', 'unavailable', 'end-without-begin'
    reason: str = ''
    objects: List[List[str]] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Console:
    """What kunit_parser.parse_run_tests() does not give, field by field (its
    Test keeps a name, a status, counts, subtests and raw log lines)."""
    # the `rx_align_facts:` line's key=value pairs: the parser keeps the raw line only
    facts: Dict[str, str] = dataclasses.field(default_factory=dict)
    # `rx_align_frame:` lines, parsed and filed under suite.case[.param], the case
    # a crash cut short included: the parser keeps them as raw log lines only
    frames: List[Frame] = dataclasses.field(default_factory=list)
    malformed_frames: List[MalformedFrame] = dataclasses.field(default_factory=list)
    # case -> the reason after `# SKIP`: the parser reads the directive for the
    # status and drops the reason
    skips: Dict[str, str] = dataclasses.field(default_factory=dict)
    # case -> the first kernel warning while it ran: the parser does not know a
    # splat from any other log line
    splats: Dict[str, str] = dataclasses.field(default_factory=dict)
    # window -> the first warning outside every case (between suites, after a
    # suite's last case): lines the parser files under no case
    stray: Dict[str, str] = dataclasses.field(default_factory=dict)
    # the crash and the case it hit: the parser sees only a stream that stops
    crash: Optional[Crash] = None
    # the case running when output stopped: the parser gives nameless
    # stand-ins for the tests that never came
    where: str = ''
    # the line (1-based) where a second top-level KTAP stream began: the
    # kernel rebooted, or ran the suites again; the parser reads the first only
    second_stream: int = 0
    # the scan /init prints after the KTAP stream ended: lines the parser never reads
    kmemleak: KmemleakScan = dataclasses.field(default_factory=KmemleakScan)


def _where(path: List[str], last: str) -> str:
    where = '.'.join(path) if path else 'no suite (before or after KUnit)'
    return where + (f' after "{last}"' if last else '')


def read(raw: Iterable[str]) -> Console:
    con = Console()
    path: List[str] = []        # the suite and parameterised case now open
    last = ''                   # the last case that finished
    started = False             # KTAP began: before it, a splat is boot's, no case's
    top = ''                    # the indentation of the first stream's version line
    suite_done = ''             # the last suite that finished, while none is open
    pending = ''                # a splat waiting for the case it happened in
    in_message = False          # inside a failed expectation's message
    # Crash words inside a test's message are the test's words, unless the
    # log stops there: a message is always followed by its case's result.
    tentative: Optional[Crash] = None
    frames: List[str] = []      # rx_align_frame: lines waiting for the case they came in

    def file_frames(case: str) -> None:
        for text in frames:
            f = parse_frame(case, text)
            if isinstance(f, Frame):
                con.frames.append(f)
            else:
                con.malformed_frames.append(f)
        frames.clear()

    for number, line in enumerate(strip_timestamps(raw), 1):
        m = FACTS.search(line)
        if m and not in_message:
            con.facts = dict(kv.split('=', 1) for kv in m.group(1).split() if '=' in kv)
        k = KMEMLEAK.search(line)
        if k:
            state = k.group(1)
            if state == 'end' and con.kmemleak.state != 'begin':
                state = 'end-without-begin'
            if state == 'begin':
                con.kmemleak = KmemleakScan()
            con.kmemleak.state, con.kmemleak.reason = state, k.group(2).strip()
            continue
        if con.kmemleak.state == 'begin':
            if LEAK.search(line):
                con.kmemleak.objects.append([])
            if con.kmemleak.objects:
                con.kmemleak.objects[-1].append(line.rstrip())
        v = KTAP_START.match(line)
        if v and not started:
            started, top = True, v.group(1)
        elif v and v.group(1) == top and not con.second_stream:
            con.second_stream = number
        s = SUBTEST.match(line)
        r = RESULT.match(line) if not s else None
        if s or r or (DIAGNOSTIC.match(line) and not FAILED_AT.search(line)):
            in_message = False
        if FAILED_AT.search(line):
            in_message = True
        f = FRAME.search(line)
        if f and not in_message:
            frames.append(f.group(1))
        if s:
            depth = len(s.group(1)) // 4
            if depth == 0 and pending and suite_done:
                con.stray.setdefault(f'{OUTSIDE_CASES}.after_{suite_done}', pending)
                pending = ''
            path = path[:depth] + [s.group(2).strip()]
            suite_done = ''
            continue
        if r:
            tentative = None
            depth, name = len(r.group(1)) // 4, r.group(2).strip()
            if depth < len(path) and path[depth] == name:
                # the end of a suite or of a parameterised case: a splat still
                # pending came after its last case, in no case's window
                if r.group(3) == 'SKIP':
                    con.skips['.'.join(path[:depth + 1])] = r.group(4).strip()
                file_frames('.'.join(path[:depth + 1]))
                if pending:
                    con.stray.setdefault(f'{OUTSIDE_CASES}.after_{"_".join(path[:depth + 1])}',
                                         pending)
                    pending = ''
                if depth == 0:
                    suite_done = path[0]
                path = path[:depth]
            else:
                closed = '.'.join(path[:depth] + [name])
                file_frames(closed)
                if r.group(3) == 'SKIP':
                    con.skips[closed] = r.group(4).strip()
                if pending:
                    con.splats.setdefault(closed, pending)
                    pending = ''
                last = name
            continue
        if CRASH.match(line) and not con.crash:
            crash = Crash(first=line.strip(), panic='', where=_where(path, last))
            if not in_message:
                con.crash = crash
            elif not tentative:
                tentative = crash
        p = PANIC.match(line)
        for c in (con.crash, tentative):
            if p and c and not c.panic:
                c.panic = p.group(1).strip()
        if in_message:
            continue
        splat = SPLAT.match(line)
        if splat and started and not pending:
            if path:
                pending = splat.group(0).strip()
            elif suite_done and not KMEMLEAK_SPLAT.match(line):
                con.stray.setdefault(f'{OUTSIDE_CASES}.after_{suite_done}', splat.group(0).strip())
    if pending and path:
        # output stopped inside a case: the splat is that case's, which never finished
        con.stray.setdefault(f'{OUTSIDE_CASES}.in_{"_".join(path)}', pending)
    file_frames('.'.join(path))     # output stopped in that case: its frames are kept
    con.crash = con.crash or tentative
    con.where = _where(path, last)
    return con
