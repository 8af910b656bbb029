"""Judge one arch: kunit.py's phases and the KTAP log -> one verdict.

The rules, in order; the first that matches decides:
  config or build failed           -> infra  (exit 3)
  QEMU did not finish in --timeout -> infra
  no KTAP at all                   -> infra  (no boot, wrong console)
  kernel panic / crash mid-suite   -> infra
  a declared suite or case missing -> infra  (a vanished suite is no pass)
  --debug: no kmemleak scan report -> infra
  a case skipped without a reason  -> failed (exit 1)
  a case failed, or kmemleak found
  an object our module allocated   -> failed
  otherwise                        -> passed (exit 0)
"""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, FrozenSet, Iterable, Iterator, List, Optional, Tuple

from .exitcodes import Exit
from .kunit_driver import ArchRun, kunit_tool

PASSED, FAILED, INFRA, ENVIRONMENT = 'passed', 'failed', 'infra', 'environment'
KNOWN = 'known'   # results missing, but an expected-failures rule says so
STATUS_EXIT = {PASSED: Exit.OK, FAILED: Exit.TEST_FAILED, INFRA: Exit.INFRA,
               ENVIRONMENT: Exit.ENVIRONMENT, KNOWN: Exit.OK}


def gate(statuses: List[str]) -> Exit:
    """The run's exit status: an arch with missing results outranks a failed test."""
    order = [Exit.OK, Exit.TEST_FAILED, Exit.INFRA, Exit.ENVIRONMENT]
    return max((STATUS_EXIT[s] for s in statuses), key=order.index, default=Exit.OK)

FACTS = re.compile(r'rx_align_facts: (.*)$')
SKIP = re.compile(r'^\s*ok \d+ (?:- )?(.*?) # SKIP ?(.*)$')
# A crash ends the run (results missing); a splat is pinned on the case that ran.
PANIC = re.compile(r'Kernel panic - not syncing|Oops: |Unable to handle kernel |'
                   r'BUG: unable to handle|BUG: kernel NULL pointer')
SPLAT = re.compile(r'WARNING: CPU: \d+ PID: .*|BUG: KASAN: .*|BUG: sleeping function .*|'
                   r'BUG: scheduling while atomic.*|WARNING: possible .*|WARNING: suspicious RCU .*|'
                   r'UBSAN: .*|'
                   r'BUG: [\w ]+ \(.*|kmemleak: \d+ new suspected memory leaks.*')
KMEMLEAK = re.compile(r'rx_align_kmemleak: (\w+):? ?(.*)$')
LEAK = re.compile(r'unreferenced object (0x[0-9a-f]+) \(size (\d+)\)')
# A backtrace frame: `[<addr>] sym+0x1/0x2` (older kernels) or `sym+0x1/0x2` (6.12).
FRAME = re.compile(r'^\s+(?:\[<[0-9a-f]+>\]\s*)?([\w.]+)\+0x[0-9a-f]+/0x[0-9a-f]+', re.M)
KMEMLEAK_CASE = 'kmemleak.after_suites'
RESULT = re.compile(r'^( *)(?:not )?ok \d+ (?:- )?([^#]*)')
BUILD_ERROR = re.compile(r'(error:.*|\*\*\* .*|Error \d+.*)')


@dataclasses.dataclass
class Case:
    name: str            # suite.case or suite.case.param
    status: str          # PASS, FAIL, SKIP, CRASH
    message: str = ''    # the failed expectation, or the skip reason
    log: List[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Verdict:
    arch: str
    status: str
    cause: str
    cases: List[Case] = dataclasses.field(default_factory=list)
    missing: List[str] = dataclasses.field(default_factory=list)
    facts: Dict[str, str] = dataclasses.field(default_factory=dict)
    seconds: Dict[str, float] = dataclasses.field(default_factory=dict)
    logs: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def exit(self) -> Exit:
        return STATUS_EXIT[self.status]

    def count(self, status: str) -> int:
        return sum(1 for c in self.cases if c.status == status)

    def to_json(self) -> Dict[str, Any]:
        d = dataclasses.asdict(self)
        return d


def load_kunit_parser(kunit_tools: Path) -> ModuleType:
    """The tree's own KTAP parser, with its terminal output silenced."""
    parser = kunit_tool(kunit_tools, 'kunit_parser')
    printer = kunit_tool(kunit_tools, 'kunit_printer')
    parser.stdout = printer.Printer(io.StringIO())  # type: ignore[attr-defined]
    return parser


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
    if not test.name:
        return   # the parser's stand-in for a subtest that never came: see `missing`
    name = f'{prefix}.{test.name}' if prefix else test.name
    if test.subtests:
        for i, sub in enumerate(test.subtests):
            # The first subtest's lines come before its result, where the
            # parser files them under the parent: look there too.
            _walk(sub, name, parser, skips, out, test.log if i == 0 else None)
        return
    s = parser.TestStatus
    status = {s.SUCCESS: 'PASS', s.FAILURE: 'FAIL', s.SKIPPED: 'SKIP'}.get(test.status, 'CRASH')
    log = list(test.log)
    msg = ''
    if status == 'SKIP':
        msg = skips.get(test.name, '')
    elif status == 'FAIL':
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


def _ktap_walk(lines: List[str]) -> Iterator[Tuple[str, List[str], Optional[str]]]:
    """(line, path of open subtests, name of the case a result line closes, if any)."""
    path: List[str] = []
    for line in lines:
        m = re.match(r'^( *)# Subtest: (.+)$', line)
        if m:
            path = path[:len(m.group(1)) // 4] + [m.group(2).strip()]
            yield line, path, None
            continue
        m = RESULT.match(line)
        if not m:
            yield line, path, None
            continue
        depth, name = len(m.group(1)) // 4, m.group(2).strip()
        if depth < len(path) and path[depth] == name:
            path = path[:depth]   # the end of a suite or a parameterised case
            yield line, path, None
        else:
            yield line, path, '.'.join(path[:depth] + [name])


def _splats(lines: List[str]) -> Dict[str, str]:
    """Kernel warnings by the case that was running: full case name -> first line.

    Only inside a suite: a warning from boot (UML warns that virt-pci has no
    virtio device) or after the last suite is no case's doing.
    """
    found: Dict[str, str] = {}
    pending = ''
    for line, path, closed in _ktap_walk(lines):
        splat = SPLAT.search(line)
        if splat and not pending and path:
            pending = splat.group(0).strip()
        elif closed and pending:
            found.setdefault(closed, pending)
            pending = ''
    return found


def _where(lines: List[str]) -> str:
    """The test that was running when output stopped, and the last one that finished."""
    path: List[str] = []
    last = ''
    for _, path, closed in _ktap_walk(lines):
        if closed:
            last = closed.rsplit('.', 1)[-1]
    where = '.'.join(path) if path else 'no suite (before or after KUnit)'
    return where + (f' after "{last}"' if last else '')


def _kmemleak(lines: List[str], ours: FrozenSet[str]) -> Tuple[Optional[Case], str]:
    """The /init scan's report -> one case (our leaks fail it), or why there is none.

    Only an object whose allocation backtrace runs through a function of our
    module is ours; anything else kmemleak finds (boot-time objects) is listed
    in the case's log but does not fail it.
    """
    state, reason = '', ''
    objects: List[List[str]] = []
    for line in lines:
        m = KMEMLEAK.search(line)
        if m:
            state, reason = m.group(1), m.group(2).strip()
            continue
        if state == 'begin':
            if LEAK.search(line):
                objects.append([])
            if objects:
                objects[-1].append(line.rstrip())
    if state == 'unavailable':
        return None, f'kmemleak could not scan: {reason}'
    if state != 'end':
        return None, ('the kmemleak scan did not finish after the suites (no '
                      '"rx_align_kmemleak: end" line from /init)')
    mine = [o for o in objects if any(f in ours for f in FRAME.findall('\n'.join(o)))]
    if not mine:
        note = f'{len(objects)} unreferenced object(s), none allocated by this module'
        return Case(KMEMLEAK_CASE, 'PASS', '', [note] + [ln for o in objects for ln in o]), ''
    first = LEAK.search(mine[0][0])
    via = next(f for f in FRAME.findall('\n'.join(mine[0])) if f in ours)
    msg = (f'kmemleak: {len(mine)} object(s) leaked by this module, the first '
           f'{first.group(1) if first else "?"} (size {first.group(2) if first else "?"}) '
           f'allocated through {via}()')
    return Case(KMEMLEAK_CASE, 'FAIL', msg, [ln for o in mine for ln in o][:60]), ''


def judge(run: ArchRun, expected: Dict[str, List[str]], parser: ModuleType,
          timeout: int, ours: FrozenSet[str] = frozenset()) -> Verdict:
    v = Verdict(arch=run.arch, status=INFRA, cause='', seconds=dict(run.seconds))
    for key, path in (('build', run.build_log), ('ktap', run.ktap_log)):
        if path:
            v.logs[key] = str(path)
    if run.phase_failed:
        text = run.build_log.read_text(errors='replace').splitlines() if run.build_log else []
        first = _first(BUILD_ERROR, text) or (text[-1] if text else 'no output')
        what = {'config': 'kunit.py config', 'build': 'build'}.get(run.phase_failed,
                                                                   run.phase_failed)
        v.cause = f'{run.arch}: {what} failed: {first} (see {run.build_log})'
        return v
    lines = run.ktap_log.read_text(errors='replace').splitlines() if run.ktap_log else []
    ktap_file = run.ktap_log or f'the {run.arch} results directory'
    if run.timed_out:
        done = judge_lines(Verdict(arch=run.arch, status=INFRA, cause=''), lines, expected,
                           parser, str(ktap_file), run.kmemleak, ours)
        if done.status in (PASSED, FAILED):
            v.cases, v.facts = done.cases, done.facts
            v.cause = (f'{run.arch}: every suite ran, but QEMU did not exit within --timeout '
                       f'{timeout}s: the kernel cannot reset this machine (see {ktap_file})')
        else:
            v.cause = (f'{run.arch}: no result within --timeout {timeout}s: QEMU hung or the '
                       f'kernel stalled in {_where(lines)} (see {ktap_file})')
        return v
    return judge_lines(v, lines, expected, parser, str(ktap_file), run.kmemleak, ours)


def judge_lines(v: Verdict, lines: List[str], expected: Dict[str, List[str]],
                parser: ModuleType, ktap_file: str, kmemleak: bool = False,
                ours: FrozenSet[str] = frozenset()) -> Verdict:
    for line in lines:
        m = FACTS.search(line)
        if m:
            v.facts = dict(kv.split('=', 1) for kv in m.group(1).split() if '=' in kv)
    skips = {m.group(1).strip(): m.group(2).strip() for m in map(SKIP.match, lines) if m}
    root = parser.parse_run_tests(lines)
    if root.status == parser.TestStatus.FAILURE_TO_PARSE_TESTS:
        v.cause = (f'{v.arch}: no KTAP output: the kernel did not boot or its console is '
                   f'not the serial port QEMU reads (see {ktap_file})')
        return v
    for suite in root.subtests:
        _walk(suite, '', parser, skips, v.cases)
    splats = _splats(lines)
    for case in v.cases:
        if case.name in splats and case.status in ('PASS', 'SKIP', 'FAIL'):
            warning = f'kernel warning while it ran: {splats[case.name]}'
            case.message = f'{case.message} || {warning}' if case.status == 'FAIL' else warning
            case.status = 'FAIL'
    seen = {c.name.split('.')[0] for c in v.cases} | {s.name for s in root.subtests}
    seen_cases = {'.'.join(c.name.split('.')[:2]) for c in v.cases}
    for suite, cases in expected.items():
        if suite not in seen:
            v.missing.append(suite)
        else:
            v.missing += [f'{suite}.{c}' for c in cases if f'{suite}.{c}' not in seen_cases]

    crash = [ln.strip() for ln in lines if PANIC.search(ln)]
    if crash:
        panic = next((c for c in crash if 'Kernel panic' in c), '')
        lines_seen = '; '.join(dict.fromkeys(c for c in (crash[0], panic) if c))
        v.cause = f'{v.arch}: kernel crash in {_where(lines)}: {lines_seen} (see {ktap_file})'
        return v
    crashed = [c.name for c in v.cases if c.status == 'CRASH']
    if v.missing or crashed or root.counts.errors:
        what: List[str] = []
        if v.missing:
            what.append('missing ' + ', '.join(v.missing[:5]))
        if crashed:
            what.append('crashed ' + ', '.join(crashed[:5]))
        if root.counts.errors and not what:
            what.append(f'{root.counts.errors} KTAP error(s), truncated output')
        v.cause = f'{v.arch}: incomplete KTAP: {"; ".join(what)} (see {ktap_file})'
        return v
    if kmemleak:
        scan, why = _kmemleak(lines, ours)
        if not scan:
            v.cause = f'{v.arch}: {why} (see {ktap_file})'
            return v
        v.cases.append(scan)
    silent = [c.name for c in v.cases if c.status == 'SKIP' and not c.message]
    failed = [c.name for c in v.cases if c.status == 'FAIL']
    if failed or silent:
        v.status = FAILED
        parts = []
        if failed:
            parts.append(f'{len(failed)} failed: ' + ', '.join(failed[:3]) +
                         (' ...' if len(failed) > 3 else ''))
        if silent:
            parts.append(f'{len(silent)} skipped without a reason: ' + ', '.join(silent[:3]))
        v.cause = f'{v.arch}: ' + '; '.join(parts) + f' (see {ktap_file})'
        return v
    v.status = PASSED
    v.cause = (f'{v.arch}: {v.count("PASS")} passed, {v.count("SKIP")} skipped '
               f'with a reason')
    return v
