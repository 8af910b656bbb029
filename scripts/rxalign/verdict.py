"""Read one arch's run: kunit.py's phases and the console log -> one Verdict.

kunit_parser gives the cases (one parse, ktap_log.py, which kunit.json is
written from too); console.read() gives, in one walk over the same lines,
what the parser drops (skip reasons, facts, measured frames, kernel
reports, crashes, the kmemleak scan, where each case is in the log);
judge() puts them together and lists what kept the results from being
complete (the run's Problems, each found on its own evidence, none ranked
here).  results.decide() is the one place that ranks them and turns a
Verdict into a status.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

from . import console
from .declared import absent
from .ktap_log import KtapLog, read as read_ktap
from .results import ArchRun, Case, CaseStatus, Problem, ProblemKind, Verdict

# A backtrace frame: `[<addr>] sym+0x1/0x2` (older kernels) or `sym+0x1/0x2` (6.12).
STACK_FRAME = re.compile(r'^\s+(?:\[<[0-9a-f]+>\]\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+', re.M)
KMEMLEAK_CASE = 'kmemleak.after_suites'
BUILD_ERROR = re.compile(r'(error:.*|\*\*\* .*|Error \d+.*)')


def _failure_message(log: List[str]) -> str:
    """Every failed expectation, each with its values and its own message."""
    found: List[str] = []
    keep: List[str] = []
    for line in log:
        if 'FAILED at' in line:
            if keep:
                found.append(' | '.join(keep))
            keep = [line.split('# ', 1)[-1].strip()]
        elif keep and re.match(r'^\s*# \w+: ', line):
            found.append(' | '.join(keep))
            keep = []
        elif keep and line.strip():
            keep.append(line.strip())
    if keep:
        found.append(' | '.join(keep))
    return ' || '.join(found)


def _walk(test: Any, prefix: str, parser: ModuleType, skips: Dict[str, str],
          out: List[Case], parent_log: Optional[List[str]] = None) -> None:
    """kunit_parser's tree of tests -> our cases, one per leaf."""
    if not test.name:
        return   # the parser's stand-in for a subtest that never came: see `missing`
    name = f'{prefix}.{test.name}' if prefix else test.name
    if test.subtests:
        first = len(out)
        for i, sub in enumerate(test.subtests):
            # The first subtest's lines come before its result, where the
            # parser files them under the parent: look there too.
            _walk(sub, name, parser, skips, out, test.log if i == 0 else None)
        if test.status == parser.TestStatus.SKIPPED and skips.get(name):
            # KUnit gives a parameterised case SKIP only when no parameter
            # passed or failed (lib/kunit/test.c), and 6.1 prints a skipped
            # parameter as a bare `ok`: those are skips, for the case's reason.
            out[first:] = [dataclasses.replace(c, status=CaseStatus.SKIP, message=skips[name])
                           if c.status == CaseStatus.PASS else c for c in out[first:]]
        children = out[first:]
        if test.status == parser.TestStatus.FAILURE and children and \
                all(c.status in (CaseStatus.PASS, CaseStatus.SKIP) for c in children):
            # KTAP: the parent's own `not ok` stands (suite_exit, a check
            # after the last parameter), even when every child was ok.
            msg = _failure_message(list(test.log)) or \
                f'"not ok {name}" with every one of its {len(children)} tests ok'
            out.append(Case(name=name, status=CaseStatus.FAIL, message=msg,
                            log=list(test.log)))
        elif test.status == parser.TestStatus.SKIPPED and not skips.get(name) and \
                not (children and all(c.status == CaseStatus.SKIP and c.message
                                      for c in children)):
            # A parent's `# SKIP` without a reason is KUnit's summary only when
            # every child skipped with its own; over tests that ran, it is a
            # skip that says nothing, and it stands as a case of its own name.
            out.append(Case(name=name, status=CaseStatus.SKIP, message='',
                            log=list(test.log)))
        return
    s = parser.TestStatus
    status = {s.SUCCESS: CaseStatus.PASS, s.FAILURE: CaseStatus.FAIL,
              s.SKIPPED: CaseStatus.SKIP}.get(test.status, CaseStatus.CRASH)
    log = list(test.log)
    msg = ''
    if status == CaseStatus.SKIP:
        msg = skips.get(name, '')
    elif status == CaseStatus.FAIL:
        msg = _failure_message(log)
        if not msg and parent_log:
            msg = _failure_message(parent_log)
            log = list(parent_log) + log
    out.append(Case(name=name, status=status, message=msg, log=log))


def _first(pattern: re.Pattern[str], lines: Iterable[str]) -> Optional[str]:
    for line in lines:
        m = pattern.search(line)
        if m:
            return m.group(0).strip()
    return None


def _kmemleak(scan: console.KmemleakScan, ours: FrozenSet[str]) -> Tuple[Optional[Case], str]:
    """The /init scan's report -> one case (our leaks fail it), or why there is none.

    Only an object whose allocation backtrace runs through a function of our
    module is ours; anything else kmemleak finds (boot-time objects) is listed
    in the case's log but does not fail it.
    """
    if scan.state == 'unavailable':
        return None, f'kmemleak could not scan: {scan.reason}'
    if scan.state == 'end-without-begin':
        return None, ('the kmemleak scan printed "rx_align_kmemleak: end" without a "begin": '
                      'no report to read')
    if scan.state != 'end':
        return None, ('the kmemleak scan did not finish after the suites (no '
                      '"rx_align_kmemleak: end" line from /init)')
    objects = scan.objects
    mine = [o for o in objects if any(f in ours for f in STACK_FRAME.findall('\n'.join(o)))]
    if not mine:
        note = f'{len(objects)} unreferenced object(s), none allocated by this module'
        return Case(KMEMLEAK_CASE, CaseStatus.PASS, '',
                    [note] + [ln for o in objects for ln in o]), ''
    first = console.LEAK.search(mine[0][0])
    via = next(f for f in STACK_FRAME.findall('\n'.join(mine[0])) if f in ours)
    msg = (f'kmemleak: {len(mine)} object(s) leaked by this module, the first '
           f'{first.group(1) if first else "?"} (size {first.group(2) if first else "?"}) '
           f'allocated through {via}()')
    return Case(KMEMLEAK_CASE, CaseStatus.FAIL, msg, [ln for o in mine for ln in o][:60]), ''


def judge(run: ArchRun, expected: Dict[str, List[str]], parser: ModuleType,
          timeout: int, ours: FrozenSet[str] = frozenset(),
          logs_in: Optional[Path] = None, ktap: Optional[KtapLog] = None) -> Verdict:
    """One arch's run -> its verdict: the cases, and what kept them from being complete.

    The console log is @ktap where the caller read it already (to write
    kunit.json from the same parse), else run.ktap_log, read here.

    The logs are read where the run wrote them, and named in the verdict as
    files of `logs_in` when given: the directory they will be in when
    anyone reads it (run-kunit writes beside --out, then renames).

    Every problem found is recorded (results.ProblemKind lists them), each
    with what shows it: the first build error line, the crash and the case
    it hit, the case a hang stopped in.  results.decide() ranks them.
    """
    def named(path: Path) -> str:
        return str(logs_in / path.name if logs_in else path)

    v = Verdict(arch=run.arch, seconds=dict(run.seconds), declared=dict(expected),
                reused=run.reused)
    for key, path in (('build', run.build_log), ('ktap', run.ktap_log),
                      ('config', run.config_copy)):
        if path:
            v.logs[key] = named(path)
    if run.phase_failed:
        text = run.build_log.read_text(errors='replace').splitlines() if run.build_log else []
        first = _first(BUILD_ERROR, text) or (text[-1] if text else 'no output')
        what = {'config': 'kunit.py config', 'build': 'build'}.get(run.phase_failed,
                                                                   run.phase_failed)
        v.problems.append(Problem(ProblemKind.BUILD, f'{run.arch}: {what} failed: {first} '
                                  f'(see {v.logs.get("build", "no build log")})'))
        return v
    ktap = ktap or read_ktap(run.ktap_log, parser)
    raw = ktap.lines
    ktap_file = v.logs.get('ktap', f'the {run.arch} results directory')
    con = console.read(raw)
    v.index = con.index
    v.facts = con.facts
    v.frames, v.malformed_frames = con.frames, con.malformed_frames
    root = ktap.root
    if root is None:
        # the parser of the tree never finished on this log: no cases to read
        v.problems.append(Problem(ProblemKind.UNPARSEABLE, (
            f'{run.arch}: the console log cannot be read: kunit.py\'s KTAP parser stopped '
            f'(it was bounded): {ktap.unfinished} (see {ktap_file})')))
        v.problems.extend(_problems(run, con, timeout, ktap_file, True, v))
        return v
    parsed = root.status != parser.TestStatus.FAILURE_TO_PARSE_TESTS
    if parsed:
        for suite in root.subtests:
            _walk(suite, '', parser, con.skips, v.cases)
        _own_lines(v, con, raw)
        _pin_reports(v, con)
        _overrule(v, con)
        v.mark_contradictions()
        v.missing = absent(expected, [c.name for c in v.cases] + [s.name for s in root.subtests])
    v.problems.extend(_problems(run, con, timeout, ktap_file, parsed, v))
    if parsed and root.counts.errors:
        v.problems.append(Problem(ProblemKind.KTAP_ERRORS, (
            f'{run.arch}: incomplete KTAP: {root.counts.errors} KTAP error(s), truncated '
            f'output (see {ktap_file})')))
    if run.kmemleak:
        scan, why = _kmemleak(con.kmemleak, ours)
        if scan:
            v.cases.append(scan)
        else:
            v.problems.append(Problem(ProblemKind.NO_KMEMLEAK,
                                      f'{run.arch}: {why} (see {ktap_file})'))
    return v


def _pin_reports(v: Verdict, con: console.Console) -> None:
    """A kernel report fails the case that was running, for good (no known-
    failure rule excuses it); one outside every case fails a pseudo-case named
    for its window (before the suites, after suite X, in case Y)."""
    for case in v.cases:
        reports = con.reports.get(case.name)
        if not reports:
            continue
        case.report = ' || '.join(reports)
        said = f'kernel report while it ran: {case.report}'
        if case.status in (CaseStatus.PASS, CaseStatus.SKIP):
            case.status, case.message = CaseStatus.FAIL, said
        elif case.status == CaseStatus.FAIL and case.report not in case.message:
            case.message = f'{case.message} || {said}' if case.message else said
    for window, report in con.stray.items():
        where = window.split('.', 1)[1].replace('_', ' ', 1)
        v.cases.append(Case(window, CaseStatus.FAIL,
                            f'kernel report outside every case ({where}): {report}', [report],
                            report=report))


def _own_lines(v: Verdict, con: console.Console, raw: List[str]) -> None:
    """The first parameter of a parameterised case: kunit_parser files its
    lines (before its result) under the parent, and gives it none; they are
    its console window (what it logged: the drivers suite's resends of the
    first NIC, counted from the case's log, were 0)."""
    for case in v.cases:
        span = con.index.cases.get(case.name)
        if case.log or span is None:
            continue
        case.log = console.strip_timestamps(raw[span.first - 1:span.last - 1])


def _overrule(v: Verdict, con: console.Console) -> None:
    """A case whose result line says `ok` (with `# SKIP` or not) after an
    expectation failed in its own window failed: KUnit writes SKIPPED over
    FAILURE (a kunit_skip() after a failed KUNIT_EXPECT), and the parser
    believes the result line.  The failure is its report: what the case's own
    log shows against what KTAP said, which no known-failure rule excuses.
    A parameterised case or suite so overruled is a case of its own name."""
    by_name = {c.name: c for c in v.cases}
    for name, window in con.overruled.items():
        said = window[-1].strip()
        report = (f'"{said}" after an expectation failed in its own window (KUnit '
                  f'writes SKIP over FAIL): {_failure_message(window[:-1])}')
        case = by_name.get(name)
        if case is None:
            status = CaseStatus.SKIP if '# SKIP' in said else CaseStatus.PASS
            v.cases.append(Case(name, status, report, window, report=report))
        elif case.status in (CaseStatus.PASS, CaseStatus.SKIP) and not case.report:
            case.report = report
            case.message = f'{report} (its skip reason: {case.message})' if case.message \
                else report


def _problems(run: ArchRun, con: console.Console, timeout: int, ktap_file: str,
              parsed: bool, v: Verdict) -> List[Problem]:
    """What in the run and its console kept the cases from completing."""
    see = f'(see {ktap_file})'
    found = []
    if con.crash:
        c = con.crash
        said = '; '.join(dict.fromkeys(x for x in (c.first, c.panic) if x))
        found.append(Problem(ProblemKind.CRASH,
                             f'{run.arch}: kernel crash in {c.where}: {said} {see}'))
    if con.unknown:
        found.append(Problem(ProblemKind.UNKNOWN_REPORT, (
            f'{run.arch}: a kernel report the harness does not know, at {con.unknown[0]}'
            + (f' and {len(con.unknown) - 1} more' if len(con.unknown) > 1 else '')
            + ': it opens like one (BUG, WARNING, a rule of "="), and no table of '
            f'scripts/rxalign/crashes.py reads it; add its format there {see}')))
    if con.second_stream:
        found.append(Problem(ProblemKind.SECOND_STREAM, (
            f'{run.arch}: a second KTAP stream began at line {con.second_stream} of the '
            'console, after the first: the kernel rebooted or ran the suites again, and '
            f'one run must give one stream {see}')))
    if con.dropped:
        found.append(Problem(ProblemKind.DROPPED, (
            f'{run.arch}: the console is incomplete: printk dropped messages after KTAP '
            f'began, at {con.dropped}; what they said (a kernel report, a result) is '
            f'unknown {see}')))
    if con.late_kmemleak:
        found.append(Problem(ProblemKind.LATE_KMEMLEAK, (
            f'{run.arch}: a kmemleak report after the scan of /init began, at '
            f'{con.late_kmemleak}: its leaks may be missing from the listing the scan '
            f'judged {see}')))
    if run.hung:
        found.append(Problem(ProblemKind.HUNG, (
            f'{run.arch}: hung: no console output for {run.hung}s, stopped in '
            f'{con.where} (--idle-timeout) {see}')))
    if run.timed_out and parsed and v.cases and not v.missing:
        found.append(Problem(ProblemKind.NO_EXIT, (
            f'{run.arch}: every suite ran, but QEMU did not exit within --timeout '
            f'{timeout}s: the kernel cannot reset this machine {see}')))
    elif run.timed_out:
        found.append(Problem(ProblemKind.TIMEOUT, (
            f'{run.arch}: no result within --timeout {timeout}s: QEMU hung or the '
            f'kernel stalled in {con.where} {see}')))
    if not parsed:
        found.append(Problem(ProblemKind.NO_KTAP, (
            f'{run.arch}: no KTAP output: the kernel did not boot or its console is '
            f'not the serial port QEMU reads {see}')))
    return found
