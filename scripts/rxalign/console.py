"""One walk over a console log: what kunit_parser does not keep.

kunit.py's own parser (kunit_parser.parse_run_tests) gives the cases and
their statuses and logs; this walk reads the same lines once for the rest:
the skip reason of each case (by its full name: the iphdr cases share
parameter names), the policy facts, the frames the suites measured
(`rx_align_frame:` lines, each filed under the case that printed it),
kernel reports pinned on the case or the window they happened in, a crash
and the case that was running then, report banners no table knows, where
output stopped, the kmemleak scan /init prints after the suites, and where
each case is in the log (ktap_index.Index: the reports' line links and
case times).

A failed expectation's message is the test's own words, printed in one
go: crash or report words in it are no crash.  It ends where the kernel's
own output begins (crashes.STACK_DUMP, KUnit's "try faulted"): what looked
like the test's words before that was the kernel's.

Lines are read as kunit_parser reads them: without printk timestamps.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Dict, Iterable, List, Optional

from .crashes import BANNER, CLOSED_REPORT, CRASH, REPORT, RULE, STACK_DUMP
from .ktap_index import Index, Span
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
# KUnit's word that the case's thread died (lib/kunit/try-catch.c
# kunit_try_catch_run(): "try faulted", an oops killed it; "Unknown error")
# or never ended ("try timed out"), on a diagnostic line of the case.
KUNIT_DIED = re.compile(r'^\s*# [^:]+: (try faulted|Unknown error)\b')
KUNIT_TIMED_OUT = re.compile(r'^\s*# [^:]+: try timed out\b')
# The in-kernel check of the test module: after each case it compares the
# kernel's taint flags and debug_locks with their values before, and fails
# the case with this message naming what changed.
STATE_CHANGED = re.compile(r'^\s*(?:# [^:]+: )?(kernel state changed during the case: .*?)\s*$')
# What kmemleak prints when a scan finds objects: after the suites, the
# kmemleak case (the /init scan) judges those, not the splat rule.
KMEMLEAK_SPLAT = re.compile(r'^\s*kmemleak: \d+ new suspected memory leaks')
KMEMLEAK = re.compile(r'rx_align_kmemleak: (\w+):? ?(.*)$')
# printk's word that the console lost messages (kernel/printk/printk.c
# console_prepend_dropped(), 6.1 to 7.3: "** %lu printk messages dropped **"):
# what the lost lines said (a report's first line, a result) is unknown.
DROPPED = re.compile(r'^\s*\*\* \d+ printk messages dropped \*\*')
LEAK = re.compile(r'unreferenced object (0x[0-9a-f]+) \(size (\d+)\)')

OUTSIDE_CASES = 'kernel_splat'   # the pseudo-suite of splats outside every case
# The index: a printk timestamp, the lines before a suite's cases, the end of
# a crash's trace, and how much of a crash is quoted at most.
STAMP = re.compile(r'^\[\s*(\d+\.\d+)\]')
HEADER = re.compile(r'^\s*(?:K?TAP version \d+|1\.\.\d+|# module: )')
END_OF_TRACE = re.compile(r'---\[ end trace|---\[ end Kernel panic')
TRACE_LINES = 40


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
    # case -> the kernel's reports while it ran (the first line of each, the
    # module's own "kernel state changed" message): the parser does not know a
    # report from any other log line
    reports: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    # window -> the first report outside every case (before the first suite,
    # between suites, after a suite's last case): lines the parser files under no case
    stray: Dict[str, str] = dataclasses.field(default_factory=dict)
    # lines that open a report (BUG, WARNING, a rule of `=`) no table knows,
    # each with its number and the case it came in: the gate cannot read them
    unknown: List[str] = dataclasses.field(default_factory=list)
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
    # where each case and the first crash are: the parser keeps no line numbers
    index: Index = dataclasses.field(default_factory=Index)
    # the first `** N printk messages dropped **` after KTAP began, with its
    # line number: the parser skips it as a line of no test
    dropped: str = ''
    # the first kmemleak report after the /init scan began ("line N: ..."): its
    # objects may be missing from the listing the scan judged
    late_kmemleak: str = ''
    # case (or parameterised case) -> its lines from a failed expectation to
    # its result, where that result says `ok` (`# SKIP` or not): KUnit writes
    # SKIPPED over FAILURE, so a kunit_skip() after a failed expectation
    # prints `ok N name # SKIP reason`; the parser believes the result line
    overruled: Dict[str, List[str]] = dataclasses.field(default_factory=dict)


def _stamp(line: str) -> Optional[float]:
    m = STAMP.match(line)
    return float(m.group(1)) if m else None


def _trace(lines: List[str], at: int) -> Span:
    """The crash at line @at (0-based) to the end of its trace or the panic, at
    most TRACE_LINES lines."""
    end = at
    while end + 1 < len(lines) and end + 1 - at < TRACE_LINES:
        end += 1
        if END_OF_TRACE.search(lines[end]) or PANIC.match(lines[end]):
            break
    return Span(at + 1, end + 1)


def _where(path: List[str], last: str) -> str:
    where = '.'.join(path) if path else 'no suite (before or after KUnit)'
    return where + (f' after "{last}"' if last else '')


def read(raw: Iterable[str]) -> Console:
    raw = list(raw)
    lines = strip_timestamps(raw)
    con = Console()
    path: List[str] = []        # the suite and parameterised case now open
    last = ''                   # the last case that finished
    started = False             # KTAP began: before it, a report is boot's, no case's
    top = ''                    # the indentation of the first stream's version line
    suite_done = ''             # the last suite that finished, while none is open
    pending: List[str] = []     # reports waiting for the case they happened in
    in_message = False          # inside a failed expectation's message
    # Crash and report words inside a test's message are the test's words,
    # unless the kernel's own output follows before the case's result, or the
    # log stops there: a message is always followed by its case's result.
    tentative: Optional[Crash] = None
    held: List[str] = []        # report lines inside the message, until it is told
    held_unknown: List[str] = []  # banners no table knows, inside the message
    frames: List[str] = []      # rx_align_frame: lines waiting for the case they came in
    rule: Optional[str] = None  # a rule of `=` waiting for the title of its report
    closing = False             # a report that ends with a rule of its own is open
    start = 0                   # the line (0-based) before the next case's first line
    failed_at: Optional[int] = None  # the first failed expectation since `start`

    def file_frames(case: str) -> None:
        for text in frames:
            f = parse_frame(case, text)
            if isinstance(f, Frame):
                con.frames.append(f)
            else:
                con.malformed_frames.append(f)
        frames.clear()

    def window() -> str:
        if path:
            return ''
        return (f'{OUTSIDE_CASES}.after_{suite_done}' if suite_done
                else f'{OUTSIDE_CASES}.before_suites')

    def report(text: str) -> None:
        """A report of the kernel: the running case's, or its window's."""
        if path:
            pending.append(text)
        elif started and not (suite_done and KMEMLEAK_SPLAT.match(text)):
            con.stray.setdefault(window(), text)

    def unknown(text: str) -> None:
        """A banner no table knows: the gate cannot read it (held while it
        may still be the test's own words)."""
        (held_unknown if in_message else con.unknown).append(f'{text} (in {_where(path, last)})')

    def crashed(found: Crash) -> None:
        """The first crash: the run's, and a report of the case it hit if KUnit
        survived it (where output stops, the crash is the cause already)."""
        if not con.crash:
            con.crash = found
            if path:
                pending.append(found.first)

    def told() -> None:
        """The kernel is printing: what the message window held was its own."""
        nonlocal tentative, in_message
        if tentative:
            crashed(tentative)
        tentative = None
        for text in held:
            report(text)
        con.unknown.extend(held_unknown)
        held.clear()
        held_unknown.clear()
        in_message = False

    for i, line in enumerate(lines):
        number = i + 1
        s = SUBTEST.match(line)
        r = RESULT.match(line) if not s else None
        crash = CRASH.match(line)
        # a result line ends a suite or a parameterised case (its name is the
        # one open at its depth), or a case: suite.case[.param]
        depth, name = (len(r.group(1)) // 4, r.group(2).strip()) if r else (0, '')
        ends_parent = bool(r) and depth < len(path) and path[depth] == name
        ends_case = bool(r) and not ends_parent
        case = '.'.join(path[:depth] + [name])
        if HEADER.match(line) or s or r:
            if r and failed_at is not None and not line.lstrip().startswith('not ok'):
                con.overruled[case] = lines[failed_at:i + 1]
            failed_at = None
            if ends_case:
                # its lines are those since the last header or result
                then, now = _stamp(raw[start]), _stamp(raw[i])
                took = round(now - then, 6) if then is not None and now is not None else None
                con.index.cases[case] = Span(start + 2, i + 1, took)
            start = i
        elif crash and con.index.crash is None:
            con.index.crash = _trace(lines, i)
            con.index.crash_lines = lines[i:con.index.crash.last]
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
        if started and not con.dropped and DROPPED.match(line):
            con.dropped = f'line {number}: "{line.strip()}"'
        if con.kmemleak.state in ('begin', 'end') and not con.late_kmemleak and \
                KMEMLEAK_SPLAT.match(line):
            con.late_kmemleak = f'line {number}: "{line.strip()}"'
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
        died = KUNIT_DIED.match(line)
        if in_message and (died or STACK_DUMP.match(line)):
            told()
        known = REPORT.match(line)
        is_rule = started and bool(RULE.match(line))
        if rule is not None and line.strip() and not is_rule:
            # a rule of `=` opens a report whose title is the next line
            if not (crash or known):
                unknown(f'line {number - 1}: "{rule}" then "{line.strip()}"')
            rule = None
        if is_rule:
            if closing:
                closing = False     # the rule that ends the report it opened
            elif rule is None:
                rule = line.strip()
            continue
        if died:
            crashed(tentative or Crash(first=f'KUnit: the case\'s thread died ("{line.strip()}")',
                                       panic='', where=_where(path, last)))
        if KUNIT_TIMED_OUT.match(line):
            report(f'KUnit: the case did not end in time ("{line.strip()}")')
        changed = STATE_CHANGED.match(line)
        if changed:
            report(changed.group(1))
        if s or r or (DIAGNOSTIC.match(line) and not FAILED_AT.search(line)):
            in_message = False          # the message ended with no word of the kernel
            held.clear()
            held_unknown.clear()
        if FAILED_AT.search(line):
            in_message = True
            failed_at = i if failed_at is None else failed_at
        f = FRAME.search(line)
        if f and not in_message:
            frames.append(f.group(1))
        if s:
            depth = len(s.group(1)) // 4
            if depth == 0 and pending and suite_done:
                con.stray.setdefault(f'{OUTSIDE_CASES}.after_{suite_done}', pending[0])
                pending = []
            path = path[:depth] + [s.group(2).strip()]
            suite_done = ''
            continue
        if r:
            tentative, closing = None, False
            if ends_parent:
                # the end of a suite or of a parameterised case: a report still
                # pending came after its last case, in no case's window
                if r.group(3) == 'SKIP':
                    con.skips['.'.join(path[:depth + 1])] = r.group(4).strip()
                file_frames('.'.join(path[:depth + 1]))
                if pending:
                    con.stray.setdefault(f'{OUTSIDE_CASES}.after_{"_".join(path[:depth + 1])}',
                                         pending[0])
                    pending = []
                if depth == 0:
                    suite_done = path[0]
                path = path[:depth]
            else:
                file_frames(case)
                if r.group(3) == 'SKIP':
                    con.skips[case] = r.group(4).strip()
                if pending:
                    con.reports.setdefault(case, []).extend(pending)
                    pending = []
                last = name
            continue
        if crash:
            found = Crash(first=line.strip(), panic='', where=_where(path, last))
            if not in_message:
                crashed(found)
            elif not tentative and not con.crash:
                tentative = found
        p = PANIC.match(line)
        for c in (con.crash, tentative):
            if p and c and not c.panic:
                c.panic = p.group(1).strip()
        if not started or crash or changed:
            continue
        if known:
            closing = closing or bool(CLOSED_REPORT.match(line))
            if in_message:
                held.append(line.strip())
            else:
                report(line.strip())
        elif BANNER.match(line):
            unknown(f'line {number}: "{line.strip()}"')
    if rule is not None:
        unknown(f'the last line: "{rule}"')
    if in_message:
        told()                  # the log stopped inside the message: no test said that
    pending = [p for p in pending if not con.crash or p != con.crash.first]
    if pending and path:
        # output stopped inside a case: the report is that case's, which never finished
        con.stray.setdefault(f'{OUTSIDE_CASES}.in_{"_".join(path)}', pending[0])
    file_frames('.'.join(path))     # output stopped in that case: its frames are kept
    con.crash = con.crash or tentative
    con.where = _where(path, last)
    return con
