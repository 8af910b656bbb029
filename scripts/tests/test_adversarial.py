"""The adversarial batteries of issue 41, on saved logs: no green for a run
with a failed, crashed, hung, missing or unparseable result, wherever in the
log the fault comes and whatever the known-failure rules say.

Each fault (every crash and report format of crashes.py, a banner no table
knows, the test module's in-kernel check, KUnit's own word that a case's
thread died or hung) goes into pass.ktap at each place a log has: inside a
passing case, right after a failed expectation's message, before the first
suite, between two suites, after the last; each judged with no rule and with
rules that name every suite of the module (the most a rules file can
excuse short of `ARCH: *`, whose meaning is an arch that gave no case).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, List, Tuple

import pytest

from rxalign import known_failures
from rxalign.crashes import CRASH_FORMATS, REPORT_FORMATS
from rxalign.declared import expected_suites
from rxalign.exitcodes import Exit
from rxalign.results import ArchRun, Verdict
from rxalign.verdict import judge

import faults
from test_verdict import TESTS_DIR, endless_parse, report_lines, second_stream, state_changed

Lines = List[str]

# Every suite of the saved logs' module, known to fail: only what no rule
# may excuse is left to fail the run.
EVERY_SUITE = 'kernel: any\n' + ''.join(f'x86_64: {s}  # excused\n'
                                        for s in expected_suites(TESTS_DIR))


def _after(lines: Lines, line: str) -> int:
    return faults.at(lines, line) + 1


# where -> (the log, the index the fault goes in at)
PLACES: Dict[str, Callable[[], Tuple[Lines, int]]] = {
    'in a passing case': lambda: (faults.pass_log(),
                                  faults.at(faults.pass_log(), 'ok 3 napi_alloc_skb len=60')),
    'after a failed expectation': lambda: (faults.fail(), faults.at(
        faults.fail(), 'not ok 3 napi_alloc_skb len=60')),
    'before the first suite': lambda: (faults.pass_log(), _after(faults.pass_log(), '1..3')),
    'between suites': lambda: (faults.pass_log(),
                               _after(faults.pass_log(), 'ok 2 net_rx_align_alloc')),
    'after the suites': lambda: (faults.pass_log(), faults.at(faults.pass_log(),
                                                              'reboot: Restarting system')),
}

TRY_FAULTED = ['    # rx_napi_alloc: try faulted: last line seen net/core/tests/rx_align_kunit.c:1']
TRY_TIMED_OUT = ['    # rx_napi_alloc: try timed out']

# What follows the first line of every report the kernel makes: the stack it
# dumps (a crash, a WARN, a sanitizer, lockdep, a BUG: line all dump one).
STACK = ['Call Trace:', ' rx_napi+0x2b/0x50']

FAULTS: Dict[str, Lines] = {
    **{f'crash {f.example[:40]}': [f.example] + STACK for f in CRASH_FORMATS},
    **{f'report {f.example[:40]}': report_lines(f) for f in REPORT_FORMATS},
    'an unknown BUG': ['BUG: a report of a later kernel'] + STACK,
    'an unknown WARNING': ['WARNING: a report of a later kernel'] + STACK,
    'an unknown rule': ['=' * 50, 'LATERSAN: a report of a later kernel'] + STACK,
    'a rule alone': ['=' * 50] + STACK,
    # issue 50: the console lost lines (a report's first line, say)
    'printk dropped messages': ['** 3 printk messages dropped **', 'caller is rx_napi+0x2b/0x50']
    + STACK,
}
# faults a case prints: they belong inside a case
CASE_FAULTS: Dict[str, Lines] = {
    'the in-kernel check': state_changed('taint W (TAINT_WARN)')[:2],
    'KUnit: try faulted': TRY_FAULTED,
    'KUnit: try timed out': TRY_TIMED_OUT,
}


def judged(parser: ModuleType, lines: Lines, tmp: Path, rules: str) -> Verdict:
    log = faults.write(lines, tmp / 'ktap.log')
    v = judge(ArchRun(arch='x86_64', ktap_log=log), expected_suites(TESTS_DIR), parser, 300)
    return known_failures.apply(v, known_failures.parse(rules, 'rules'))


def battery() -> List[Tuple[str, str, Lines]]:
    found = [(place, name, lines) for place in PLACES for name, lines in FAULTS.items()]
    found += [(place, name, lines) for place in ('in a passing case', 'after a failed expectation')
              for name, lines in CASE_FAULTS.items()]
    # kmemleak's own line outside a case is the /init scan's to judge (--debug only:
    # it counts the leaks through our module's functions)
    return [(p, n, ln) for p, n, ln in found
            if not (p in ('after the suites', 'between suites')
                    and n.startswith('report kmemleak'))]


@pytest.mark.parametrize('rules', ['kernel: any\n', EVERY_SUITE], ids=['no rule', 'every suite'])
def test_no_fault_anywhere_is_a_green_run(parser: ModuleType, tmp_path: Path,
                                          rules: str) -> None:
    green = []
    for place, name, fault in battery():
        lines, at = PLACES[place]()
        v = judged(parser, lines[:at] + fault + lines[at:], tmp_path, rules)
        if v.exit == Exit.OK:
            green.append(f'{name}, {place}: {v.cause}')
    assert not green, '\n'.join(green)


WHOLE: Dict[str, Callable[[], Lines]] = {
    'truncated': faults.truncated, 'a suite missing': faults.missing_suite,
    'no KTAP': faults.no_ktap, 'a panic mid-suite': faults.panic_mid_suite,
    'the parser never finishes': endless_parse,
    'a second stream': lambda: second_stream(faults.pass_log()) + second_stream(
        faults.fail())[faults.at(second_stream(faults.fail()), 'Linux version 6.12.118 (again)')
                       - 1:],
    'a case cut': lambda: [ln for ln in faults.pass_log() if 'ok 2 rx_net_skb_pad_sane' not in ln],
    'a skip without a reason': faults.skip_noreason,
}


@pytest.mark.parametrize('rules', ['kernel: any\n', EVERY_SUITE], ids=['no rule', 'every suite'])
@pytest.mark.parametrize('name', list(WHOLE))
def test_no_incomplete_log_is_a_green_run(parser: ModuleType, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch, rules: str,
                                          name: str) -> None:
    from rxalign import kunit_driver
    monkeypatch.setattr(kunit_driver, 'PARSE_SECONDS', 3.0)
    v = judged(parser, WHOLE[name](), tmp_path, rules)
    assert v.exit != Exit.OK, v.cause
