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
from .ktap_nesting import TIMESTAMP, Ended, Nesting, Opened, Step
from .results import FRAME_PREFIX, Frame, MalformedFrame, parse_frame

KTAP_START = re.compile(r'^(\s*)K?TAP version \d+')
DIAGNOSTIC = re.compile(r'^\s*# ')
FAILED_AT = re.compile(r'(?:EXPECTATION|ASSERTION) FAILED at ')
FACTS = re.compile(r'rx_align_facts: (.*)$')
FRAME_LINE = re.compile(re.escape(FRAME_PREFIX.strip()) + r'\s*(.*)$')
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


@dataclasses.dataclass
class _Message:
    """A failed expectation's message, while it may still be the test's own
    words: crash and report words in it are the test's, unless the kernel's
    own output follows before the case's result, or the log stops there (a
    message is always followed by its case's result)."""
    open: bool = False
    tentative: Optional[Crash] = None   # a crash line inside it
    held: List[str] = dataclasses.field(default_factory=list)      # report lines inside it
    held_unknown: List[str] = dataclasses.field(default_factory=list)  # banners no table knows

    def drop(self) -> None:
        """It ended with no word of the kernel."""
        self.open = False
        self.held.clear()
        self.held_unknown.clear()


@dataclasses.dataclass
class _Where:
    """Which case the kernel's words belong to."""
    nesting: Nesting = dataclasses.field(default_factory=Nesting)
    last: str = ''              # the last case that finished
    suite_done: str = ''        # the last suite that finished, while none is open
    pending: List[str] = dataclasses.field(default_factory=list)  # reports waiting for their case

    def __str__(self) -> str:
        path = self.nesting.path
        where = '.'.join(path) if path else 'no suite (before or after KUnit)'
        return where + (f' after "{self.last}"' if self.last else '')

    def window(self) -> str:
        """The window outside every case (nesting.path is empty)."""
        return (f'{OUTSIDE_CASES}.after_{self.suite_done}' if self.suite_done
                else f'{OUTSIDE_CASES}.before_suites')


class _Reader:
    """console.read's walk: one handler per kind of line, in the order read()
    applies them."""

    def __init__(self, raw: List[str]) -> None:
        self.raw, self.lines = raw, strip_timestamps(raw)
        self.con = Console()
        self.at = _Where()
        self.msg = _Message()
        self.started = False        # KTAP began: before it, a report is boot's, no case's
        self.top = ''               # the indentation of the first stream's version line
        self.frames: List[str] = []  # rx_align_frame: lines waiting for the case they came in
        self.rule: Optional[str] = None  # a rule of `=` waiting for the title of its report
        self.closing = False        # a report that ends with a rule of its own is open
        self.start = 0              # the line (0-based) before the next case's first line
        self.failed_at: Optional[int] = None  # the first failed expectation since `start`

    def read(self) -> Console:
        for i, line in enumerate(self.lines):
            self._line(i, line)
        return self._finish()

    def _line(self, i: int, line: str) -> None:
        number = i + 1
        step = self.at.nesting.see(line)
        crash = CRASH.match(line)
        self._index(i, line, step, bool(crash))
        self._facts(line)
        if self._kmemleak(line, number):
            return
        self._stream(line, number)
        died = KUNIT_DIED.match(line)
        if self.msg.open and (died or STACK_DUMP.match(line)):
            self._told()
        known = REPORT.match(line)
        if self._rule(line, number, bool(crash or known)):
            return
        changed = self._kunit_says(line, bool(died))
        self._message(i, line, step)
        if step:
            self._step(step)
            return
        self._crash(line, bool(crash))
        if self.started and not crash and not changed:
            self._report_line(line, number, bool(known))

    def _index(self, i: int, line: str, step: Optional[Step], crash: bool) -> None:
        """Where each case is: its lines are those since the last header or result."""
        con = self.con
        if HEADER.match(line) or step:
            if isinstance(step, Ended) and self.failed_at is not None and not step.failed:
                con.overruled[step.case] = self.lines[self.failed_at:i + 1]
            self.failed_at = None
            if isinstance(step, Ended) and not step.parent:
                then, now = _stamp(self.raw[self.start]), _stamp(self.raw[i])
                took = round(now - then, 6) if then is not None and now is not None else None
                con.index.cases[step.case] = Span(self.start + 2, i + 1, took)
            self.start = i
        elif crash and con.index.crash is None:
            con.index.crash = _trace(self.lines, i)
            con.index.crash_lines = self.lines[i:con.index.crash.last]

    def _facts(self, line: str) -> None:
        m = FACTS.search(line)
        if m and not self.msg.open:
            self.con.facts = dict(kv.split('=', 1) for kv in m.group(1).split() if '=' in kv)

    def _kmemleak(self, line: str, number: int) -> bool:
        """The /init scan: its own lines are read here alone (True)."""
        scan = self.con.kmemleak
        k = KMEMLEAK.search(line)
        if k:
            state = k.group(1)
            if state == 'end' and scan.state != 'begin':
                state = 'end-without-begin'
            if state == 'begin':
                scan = self.con.kmemleak = KmemleakScan()
            scan.state, scan.reason = state, k.group(2).strip()
            return True
        if self.started and not self.con.dropped and DROPPED.match(line):
            self.con.dropped = f'line {number}: "{line.strip()}"'
        if scan.state in ('begin', 'end') and not self.con.late_kmemleak and \
                KMEMLEAK_SPLAT.match(line):
            self.con.late_kmemleak = f'line {number}: "{line.strip()}"'
        if scan.state == 'begin':
            if LEAK.search(line):
                scan.objects.append([])
            if scan.objects:
                scan.objects[-1].append(line.rstrip())
        return False

    def _stream(self, line: str, number: int) -> None:
        """The first KTAP version line starts the stream; one more at its
        indentation starts a second."""
        v = KTAP_START.match(line)
        if v and not self.started:
            self.started, self.top = True, v.group(1)
        elif v and v.group(1) == self.top and not self.con.second_stream:
            self.con.second_stream = number

    def _rule(self, line: str, number: int, explained: bool) -> bool:
        """A rule of `=` opens a report whose title is the next line: a rule
        is read here alone (True)."""
        is_rule = self.started and bool(RULE.match(line))
        if self.rule is not None and line.strip() and not is_rule:
            if not explained:
                self._unknown(f'line {number - 1}: "{self.rule}" then "{line.strip()}"')
            self.rule = None
        if is_rule:
            if self.closing:
                self.closing = False    # the rule that ends the report it opened
            elif self.rule is None:
                self.rule = line.strip()
        return is_rule

    def _kunit_says(self, line: str, died: bool) -> bool:
        """KUnit's and the module's words on the case: its thread died, it
        did not end in time, it changed the kernel's state (True)."""
        if died:
            self._crashed(self.msg.tentative or Crash(
                first=f'KUnit: the case\'s thread died ("{line.strip()}")',
                panic='', where=str(self.at)))
        if KUNIT_TIMED_OUT.match(line):
            self._report(f'KUnit: the case did not end in time ("{line.strip()}")')
        changed = STATE_CHANGED.match(line)
        if changed:
            self._report(changed.group(1))
        return bool(changed)

    def _message(self, i: int, line: str, step: Optional[Step]) -> None:
        """A failed expectation opens a message; the next diagnostic or KTAP
        line closes it.  Frames are read outside messages only."""
        failed = FAILED_AT.search(line)
        if step or (DIAGNOSTIC.match(line) and not failed):
            self.msg.drop()
        if failed:
            self.msg.open = True
            self.failed_at = i if self.failed_at is None else self.failed_at
        f = FRAME_LINE.search(line)
        if f and not self.msg.open:
            self.frames.append(f.group(1))

    def _step(self, step: Step) -> None:
        """A suite or parameterised case opens, or a result line."""
        at = self.at
        if isinstance(step, Opened):
            at.suite_done = ''
        else:
            self.msg.tentative, self.closing = None, False
            self._file_frames(step.case)
            if step.directive == 'SKIP':
                self.con.skips[step.case] = step.reason
            if at.pending and step.parent:
                # the end of a suite or of a parameterised case: a report still
                # pending came after its last case, in no case's window
                self.con.stray.setdefault(f'{OUTSIDE_CASES}.after_{"_".join(step.names)}',
                                          at.pending[0])
            elif at.pending:
                self.con.reports.setdefault(step.case, []).extend(at.pending)
            at.pending = []
            if step.parent and step.depth == 0:
                at.suite_done = step.name
            if not step.parent:
                at.last = step.name
        at.nesting.take(step)

    def _crash(self, line: str, crash: bool) -> None:
        """A crash line (the test's own words inside a message, until the
        kernel speaks), and the panic line that follows it."""
        msg, con = self.msg, self.con
        if crash:
            found = Crash(first=line.strip(), panic='', where=str(self.at))
            if not msg.open:
                self._crashed(found)
            elif not msg.tentative and not con.crash:
                msg.tentative = found
        p = PANIC.match(line)
        for c in (con.crash, msg.tentative):
            if p and c and not c.panic:
                c.panic = p.group(1).strip()

    def _report_line(self, line: str, number: int, known: bool) -> None:
        if known:
            self.closing = self.closing or bool(CLOSED_REPORT.match(line))
            if self.msg.open:
                self.msg.held.append(line.strip())
            else:
                self._report(line.strip())
        elif BANNER.match(line):
            self._unknown(f'line {number}: "{line.strip()}"')

    def _file_frames(self, case: str) -> None:
        for text in self.frames:
            f = parse_frame(case, text)
            if isinstance(f, Frame):
                self.con.frames.append(f)
            else:
                self.con.malformed_frames.append(f)
        self.frames.clear()

    def _report(self, text: str) -> None:
        """A report of the kernel: the running case's, or its window's."""
        at = self.at
        if at.nesting.path:
            at.pending.append(text)
        elif self.started and not (at.suite_done and KMEMLEAK_SPLAT.match(text)):
            self.con.stray.setdefault(at.window(), text)

    def _unknown(self, text: str) -> None:
        """A banner no table knows: the gate cannot read it (held while it
        may still be the test's own words)."""
        (self.msg.held_unknown if self.msg.open else self.con.unknown).append(
            f'{text} (in {self.at})')

    def _crashed(self, found: Crash) -> None:
        """The first crash: the run's, and a report of the case it hit if KUnit
        survived it (where output stops, the crash is the cause already)."""
        if not self.con.crash:
            self.con.crash = found
            if self.at.nesting.path:
                self.at.pending.append(found.first)

    def _told(self) -> None:
        """The kernel is printing: what the message window held was its own."""
        msg = self.msg
        if msg.tentative:
            self._crashed(msg.tentative)
        msg.tentative = None
        for text in msg.held:
            self._report(text)
        self.con.unknown.extend(msg.held_unknown)
        msg.drop()

    def _finish(self) -> Console:
        con, at = self.con, self.at
        path = at.nesting.path
        if self.rule is not None:
            self._unknown(f'the last line: "{self.rule}"')
        if self.msg.open:
            self._told()        # the log stopped inside the message: no test said that
        pending = [p for p in at.pending if not con.crash or p != con.crash.first]
        if pending and path:
            # output stopped inside a case: the report is that case's, which never finished
            con.stray.setdefault(f'{OUTSIDE_CASES}.in_{"_".join(path)}', pending[0])
        self._file_frames('.'.join(path))   # output stopped in that case: its frames are kept
        con.crash = con.crash or self.msg.tentative
        con.where = str(at)
        return con


def read(raw: Iterable[str]) -> Console:
    return _Reader(list(raw)).read()
