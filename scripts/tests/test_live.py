"""Live progress: a line per finished suite, read from saved console logs."""

from __future__ import annotations

from types import ModuleType
from typing import List

from rxalign.declared import expected_suites
from rxalign.live import SuiteProgress
from rxalign.results import ArchRun
from rxalign.verdict import judge

import faults

TESTS_DIR = faults.FIXTURES / 'kunit-tests'


def said(fault: str) -> List[str]:
    lines: List[str] = []
    progress = SuiteProgress(lines.append)
    for line in faults.path(fault).read_text().splitlines(keepends=True):
        progress.feed(line)
    return lines


def test_each_suite_says_its_tests_when_it_ends(parser: ModuleType) -> None:
    # counted as the verdict counts them: each parameter, each other case
    assert said('pass') == ['suite net_rx_align_policy: ok, 3 passed',
                            'suite net_rx_align_alloc: ok, 291 passed',
                            'suite net_rx_align_iphdr: ok, 42 passed']
    v = judge(ArchRun(arch='x86_64', ktap_log=faults.path('pass')), expected_suites(TESTS_DIR),
              parser, 300)
    assert len(v.cases) == 3 + 291 + 42


def test_a_failed_parameter_is_named() -> None:
    assert said('fail')[1] == ('suite net_rx_align_alloc: not ok, 290 passed, 1 failed '
                               '(failed: rx_napi_alloc napi_alloc_skb len=60)')


def test_skipped_parameters_are_counted() -> None:
    assert said('skip')[1] == 'suite net_rx_align_alloc: ok, 269 passed, 22 skipped'


def test_a_suite_that_never_ends_says_nothing() -> None:
    """A panic mid-suite: only the suites before it; the verdict says the rest."""
    assert said('panic_mid_suite') == ['suite net_rx_align_policy: ok, 3 passed']


def test_timestamps_and_chunks_as_the_console_prints_them() -> None:
    lines: List[str] = []
    progress = SuiteProgress(lines.append)
    for line in ('[    1.000000]     # Subtest: s', '[    1.100000]     1..2',
                 '[    1.200000]     ok 1 a', '[    1.300000]     ok 2 b # SKIP no NIC',
                 '[    1.400000] ok 1 s'):
        progress.feed(line + '\n')
    assert lines == ['suite s: ok, 1 passed, 1 skipped']


def test_a_parameterised_cases_own_not_ok_is_named_once() -> None:
    """Its parameters passed but its own result says `not ok` (its exit
    failed): the case is the failure; a failed parameter is named instead."""
    lines: List[str] = []
    progress = SuiteProgress(lines.append)
    for line in ('    # Subtest: s', '    1..2', '        # Subtest: p', '        ok 1 a',
                 '    not ok 1 p', '        # Subtest: q', '        not ok 1 b', '    not ok 2 q',
                 'not ok 1 s'):
        progress.feed(line + '\n')
    assert lines == ['suite s: not ok, 1 passed, 2 failed (failed: p, q b)']
