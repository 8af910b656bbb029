"""scripts/bench compares every run of ours with plain kunit.py's results."""

from __future__ import annotations

from pathlib import Path
from typing import List
from types import ModuleType

from rxalign import arches, bench
from rxalign.bench import results
from rxalign.declared import expected_suites
from rxalign.results import ArchRun, Case, CaseStatus, Verdict
from rxalign.verdict import judge

import faults

# The saved logs come from the suite as it was then: judge them against it.
TESTS_DIR = Path(__file__).resolve().parent / 'fixtures' / 'kunit-tests'


def verdict(parser: ModuleType, log: Path) -> Verdict:
    return judge(ArchRun(arch='x86_64', ktap_log=log), expected_suites(TESTS_DIR), parser, 300)


def test_timings_and_logs_do_not_count(parser: ModuleType, tmp_path: Path) -> None:
    copy = tmp_path / 'ktap.log'
    copy.write_text(faults.path('pass').read_text())
    a, b = verdict(parser, faults.path('pass')), verdict(parser, copy)
    b.seconds['run'] = 99.0
    assert results(a) == results(b)


def test_a_changed_fact_a_lost_case_or_a_failure_counts(parser: ModuleType,
                                                        tmp_path: Path) -> None:
    """What a slim layer that changed the kernel under test would look like."""
    ref = results(verdict(parser, faults.path('pass')))
    text = faults.path('pass').read_text()
    fact = tmp_path / 'fact.log'
    fact.write_text(text.replace('net_skb_pad=64', 'net_skb_pad=32', 1))
    assert 'net_skb_pad=64' in text and results(verdict(parser, fact)) != ref
    assert results(verdict(parser, faults.path('skip'))) != ref
    assert results(verdict(parser, faults.path('fail'))) != ref


def test_the_notes_say_the_status_as_the_reports_do() -> None:
    v = Verdict(arch='powerpc32', cases=[Case(name='a.b', status=CaseStatus.PASS),
                                         Case(name='a.c', status=CaseStatus.SKIP,
                                              message='no counter here')])
    assert bench.summary(v) == 'powerpc32=passed/1 pass/1 skip'


def test_a_difference_is_named_not_only_counted(parser: ModuleType, tmp_path: Path) -> None:
    """DIFFERENT alone sends the reader to logs the bench has deleted: each
    case and fact that differs is named, plain kunit.py's side first."""
    text = faults.path('pass').read_text()
    fact = tmp_path / 'fact.log'
    fact.write_text(text.replace('net_skb_pad=64', 'net_skb_pad=32', 1))
    ref = results(verdict(parser, faults.path('pass')))
    assert bench.differences(ref, ref) == []
    assert bench.differences(ref, results(verdict(parser, fact))) == [
        'fact net_skb_pad: plain 64, ours 32']
    failed = bench.differences(ref, results(verdict(parser, faults.path('fail'))))
    assert failed[0].startswith('verdict: plain passed, ours ')
    assert any(d.startswith('case ') and d.endswith(', ours FAIL') for d in failed)
    assert bench.differences(ref, results(verdict(parser, faults.path('fail'))), most=1)[-1] \
        == f'and {len(failed) - 1} more'


def test_plain_kunit_py_boots_the_arch_it_is_compared_with(tmp_path: Path) -> None:
    """7.3's kunit.py has powerpc32.py: plain kunit.py must be given that
    config by name, not --arch=powerpc (ppc64), which the bench once booted
    and then found "DIFFERENT" (bits 64, NET_IP_ALIGN 0) in every scenario."""
    ppc32 = arches.BY_NAME['powerpc32']
    configs = tmp_path / 'tools/testing/kunit/qemu_configs'
    configs.mkdir(parents=True)

    def arch_args(a: arches.Arch) -> List[str]:
        return [c for c in bench.plain_command(a, tmp_path, tmp_path / 'b', 2)
                if c.startswith(('--arch=', '--qemu_config='))]

    assert arch_args(ppc32) == [f'--qemu_config={ppc32.qemu_config_path()}']
    (configs / 'powerpc32.py').write_text('')
    assert arch_args(ppc32) == ['--arch=powerpc32']
    assert arch_args(arches.BY_NAME['x86_64']) == ['--arch=x86_64']
