"""The verdict rules on saved logs: no green for tests that did not run."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import List

import pytest

from rxalign import kernels, paths
from rxalign.exitcodes import Exit
from rxalign.crashes import REPORT_FORMATS, ReportFormat
from rxalign.declared import expected_suites, module_functions
from rxalign.results import ArchRun, CaseStatus, Problem, ProblemKind, Verdict
from rxalign.verdict import judge

import faults
import format_sources

# The saved logs come from the suite as it was then: judge them against it.
TESTS_DIR = Path(__file__).resolve().parent / 'fixtures' / 'kunit-tests'


def run_of(fixture: str, **kw: object) -> ArchRun:
    return ArchRun(arch='x86_64', ktap_log=faults.path(fixture), **kw)  # type: ignore[arg-type]


def verdict_of(parser: ModuleType, fixture: str, **kw: object):  # type: ignore[no-untyped-def]
    return judge(run_of(fixture, **kw), expected_suites(TESTS_DIR), parser, timeout=300)


def test_pass(parser: ModuleType) -> None:
    v = verdict_of(parser, 'pass')
    assert v.exit == Exit.OK, v.cause
    assert v.count('PASS') > 300 and not v.missing
    assert v.facts['net_ip_align'] == '0' and v.facts['arch'] == 'x86_64'
    assert v.facts['page_size'] == '4096'


def test_failed_case_names_the_case_and_assertion(parser: ModuleType) -> None:
    v = verdict_of(parser, 'fail')
    assert v.exit == Exit.TEST_FAILED
    failed = [c for c in v.cases if c.status == 'FAIL']
    assert [c.name for c in failed] == ['net_rx_align_alloc.rx_napi_alloc.napi_alloc_skb len=60']
    assert 'headroom' in failed[0].message or 'skb_headroom' in failed[0].message
    assert 'napi_alloc_skb len=60' in v.cause and 'ktap' in v.cause


def test_skip_with_reason_passes(parser: ModuleType) -> None:
    v = verdict_of(parser, 'skip')
    assert v.exit == Exit.OK, v.cause
    skipped = [c for c in v.cases if c.status == 'SKIP']
    assert skipped and all('CONFIG_ZONE_DMA' in c.message for c in skipped)


def test_skip_without_reason_fails(parser: ModuleType) -> None:
    v = verdict_of(parser, 'skip_noreason')
    assert v.exit == Exit.TEST_FAILED
    assert 'without a reason' in v.cause


@pytest.mark.parametrize('fixture, words', [
    ('panic_mid_suite', ['kernel crash', 'Kernel panic', 'BUG: kernel NULL', 'net_rx_align_alloc.rx_napi_alloc after "napi_alloc_skb len=1"']),
    ('truncated', ['incomplete KTAP', 'missing', 'net_rx_align_iphdr']),
    ('missing_suite', ['incomplete KTAP', 'missing net_rx_align_iphdr']),
    ('no_ktap', ['no KTAP output', 'did not boot']),
])
def test_missing_results_are_infrastructure_failures(parser: ModuleType, fixture: str,
                                                     words: List[str]) -> None:
    v = verdict_of(parser, fixture)
    assert v.exit == Exit.INFRA
    for w in words:
        assert w in v.cause, (w, v.cause)
    assert 'x86_64' in v.cause and fixture in v.cause


def test_timeout_is_infra_and_names_the_last_test(parser: ModuleType) -> None:
    v = verdict_of(parser, 'truncated', timed_out=True)
    assert v.exit == Exit.INFRA
    assert '--timeout 300s' in v.cause and 'rx_napi_alloc after "napi_alloc_skb len=1"' in v.cause


def test_build_failure_quotes_the_compiler(parser: ModuleType, tmp_path: Path) -> None:
    log = tmp_path / 'build.log'
    log.write_text('make ...\nnet/core/tests/rx_align_kunit.c:12:1: error: expected ;\n'
                   'make: *** [Makefile:236: __sub-make] Error 2\n')
    v = judge(ArchRun(arch='powerpc', phase_failed='build', build_log=log),
              expected_suites(TESTS_DIR), parser, timeout=300)
    assert v.exit == Exit.INFRA
    assert 'error: expected ;' in v.cause and str(log) in v.cause and 'powerpc' in v.cause


def test_logs_are_named_where_they_will_be(parser: ModuleType, tmp_path: Path) -> None:
    """run-kunit writes beside --out and renames at the end: the verdict reads
    the logs where they are and names them where they will be."""
    log = tmp_path / 'build.log'
    log.write_text('make ...\nnet/core/tests/rx_align_kunit.c:12:1: error: expected ;\n')
    final = tmp_path / 'out' / 'powerpc'
    v = judge(ArchRun(arch='powerpc', phase_failed='build', build_log=log),
              expected_suites(TESTS_DIR), parser, timeout=300, logs_in=final)
    assert 'error: expected ;' in v.cause and f'(see {final / "build.log"})' in v.cause
    assert v.logs == {'build': str(final / 'build.log')}
    ktap = judge(ArchRun(arch='x86_64', ktap_log=faults.path('no_ktap')),
                 expected_suites(TESTS_DIR), parser, timeout=300, logs_in=final)
    assert f'(see {final / faults.path("no_ktap").name})' in ktap.cause


def test_expected_suites_come_from_the_source() -> None:
    assert set(expected_suites(TESTS_DIR)) == {'net_rx_align_policy', 'net_rx_align_alloc',
                                               'net_rx_align_iphdr'}
    suites = expected_suites(paths.TESTS_DIR)
    assert set(suites) == {'net_rx_align_policy', 'net_rx_align_alloc', 'net_rx_align_iphdr',
                           'net_rx_align_frag', 'net_rx_align_gro', 'net_rx_align_xdp',
                           'net_rx_align_fixups', 'net_rx_align_xdp_copy',
                           'net_rx_align_drivers', 'net_rx_align_drivers_bystanders',
                           'net_rx_align_drivers_vhost'}
    # each suite is declared only for a kernel that builds it: the drivers
    # suite with --drivers, the XDP copy cases where the harness asks for them
    default = expected_suites(paths.TESTS_DIR, {'CONFIG_NET_RX_ALIGN_KUNIT_TEST': 'y'})
    assert 'net_rx_align_drivers' not in default and 'net_rx_align_xdp' in default
    assert 'net_rx_align_xdp_copy' not in default
    assert 'rx_veth_xdp' in suites['net_rx_align_xdp_copy']
    assert 'rx_policy_facts' in suites['net_rx_align_policy']
    assert 'rx_alloc_path' in suites['net_rx_align_alloc']


def test_complete_results_but_qemu_never_exits(parser: ModuleType) -> None:
    v = verdict_of(parser, 'pass', timed_out=True)
    assert v.exit == Exit.INFRA
    assert 'every suite ran' in v.cause and 'cannot reset' in v.cause
    assert v.count('PASS') > 300


def test_a_kernel_warning_fails_the_case_that_ran(parser: ModuleType) -> None:
    v = verdict_of(parser, 'warn_in_case')
    assert v.exit == Exit.TEST_FAILED
    failed = [c for c in v.cases if c.status == 'FAIL']
    assert [c.name for c in failed] == ['net_rx_align_alloc.rx_napi_alloc.napi_alloc_skb len=60']
    assert 'WARNING: CPU: 0 PID: 97 at net/core/skbuff.c:817' in failed[0].message
    assert v.count('PASS') > 300   # the run went on


def test_first_parameter_failure_keeps_its_message(parser: ModuleType) -> None:
    v = verdict_of(parser, 'fail_first_param')
    failed = [c for c in v.cases if c.status == 'FAIL']
    assert [c.name for c in failed] == ['net_rx_align_alloc.rx_napi_alloc.napi_alloc_skb len=0']
    assert 'headroom 66' in failed[0].message


OURS = module_functions(TESTS_DIR)


def kmemleak_verdict(parser: ModuleType, fixture: str):  # type: ignore[no-untyped-def]
    return judge(run_of(fixture, kmemleak=True), expected_suites(TESTS_DIR), parser,
                 timeout=300, ours=OURS)


def test_kmemleak_ignores_leaks_that_are_not_ours(parser: ModuleType) -> None:
    v = kmemleak_verdict(parser, 'kmemleak_clean')
    assert v.exit == Exit.OK, v.cause
    case = next(c for c in v.cases if c.name == 'kmemleak.after_suites')
    assert case.status == 'PASS' and 'none allocated by this module' in case.log[0]


def test_kmemleak_fails_on_our_leak(parser: ModuleType) -> None:
    v = kmemleak_verdict(parser, 'kmemleak_leak')
    assert v.exit == Exit.TEST_FAILED
    case = next(c for c in v.cases if c.name == 'kmemleak.after_suites')
    assert case.status == 'FAIL'
    # 6.12 prints frames without addresses: `rx_alloc+0xf2/0x3e0`
    assert '27 object(s) leaked' in case.message and 'rx_alloc()' in case.message
    assert 'size 8192' in case.message and 'kmemleak.after_suites' in v.cause
    assert any('__netdev_alloc_skb+' in line for line in case.log)


def test_kmemleak_reads_frames_with_addresses_too(parser: ModuleType) -> None:
    case = next(c for c in kmemleak_verdict(parser, 'kmemleak_clean').cases
                if c.name == 'kmemleak.after_suites')
    assert case.status == 'PASS' and '1 unreferenced object(s)' in case.log[0]


@pytest.mark.parametrize('fixture, words', [
    ('kmemleak_unavailable', ['kmemleak could not scan', 'detector disabled']),
    ('pass', ['kmemleak scan did not finish']),
])
def test_kmemleak_scan_missing_is_no_pass(parser: ModuleType, fixture: str,
                                          words: List[str]) -> None:
    v = kmemleak_verdict(parser, fixture)
    assert v.exit == Exit.INFRA
    assert all(w in v.cause for w in words), v.cause


def test_kmemleak_lines_do_not_matter_without_debug(parser: ModuleType) -> None:
    assert verdict_of(parser, 'kmemleak_leak').exit == Exit.OK


def test_module_functions_come_from_the_source() -> None:
    assert {'rx_netdev_alloc', 'rx_netdev_kernel', 'rx_kfree_skb'} <= OURS
    assert '__netdev_alloc_skb' not in OURS and 'kunit_try_run_case' not in OURS


def test_a_warning_before_any_suite_fails_no_case(parser: ModuleType) -> None:
    v = verdict_of(parser, 'warn_at_boot')
    assert v.exit == Exit.OK, v.cause


# ---- issue 16: each test below failed before its fix (see the docstring) ----

def judge_log(parser: ModuleType, lines: List[str], tmp: Path, **kw: object):  # type: ignore[no-untyped-def]
    log = faults.write(lines, tmp / 'ktap.log')
    kmemleak = bool(kw.pop('kmemleak', False))
    return judge(ArchRun(arch='x86_64', ktap_log=log, kmemleak=kmemleak, **kw),  # type: ignore[arg-type]
                 expected_suites(TESTS_DIR), parser, timeout=300, ours=OURS)


def test_a_skip_reason_belongs_to_its_own_case(parser: ModuleType, tmp_path: Path) -> None:
    """Item 4: the three iphdr cases share parameter names; a reasonless skip in
    rx_ipv4_header inherited rx_ipv6_header's reason and passed (exit 0)."""
    lines = faults.replace(faults.pass_log(), 'ok 5 __netdev_alloc_skb_gfp_dma',
                           ['        ok 5 __netdev_alloc_skb_gfp_dma # SKIP'], nth=1)
    lines = faults.replace(lines, 'ok 5 __netdev_alloc_skb_gfp_dma',
                           ['        ok 5 __netdev_alloc_skb_gfp_dma # SKIP no GFP_DMA zone'],
                           nth=1)
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    assert 'net_rx_align_iphdr.rx_ipv4_header.__netdev_alloc_skb_gfp_dma' in v.cause
    reasons = {c.name: c.message for c in v.cases if c.status == 'SKIP'}
    assert reasons == {
        'net_rx_align_iphdr.rx_ipv4_header.__netdev_alloc_skb_gfp_dma': '',
        'net_rx_align_iphdr.rx_ipv6_header.__netdev_alloc_skb_gfp_dma': 'no GFP_DMA zone'}


KASAN = ['==================================================================',
         'BUG: KASAN: slab-use-after-free in skb_release_data+0x4a/0x3c0',
         'Read of size 8 at addr ffff888004b1c2c8 by task ksoftirqd/0/15',
         '==================================================================']


@pytest.mark.parametrize('before, nth, where', [
    ('# net_rx_align_policy: pass:3 fail:0 skip:0 total:3', 1, 'net_rx_align_policy'),
    ('KTAP version 1', 3, 'net_rx_align_policy'),
    ('input: ImExPS/2 Generic Explorer Mouse as /devices/platform/i8042/serio1/input/input2',
     1, 'net_rx_align_iphdr'),
])
def test_a_splat_outside_every_case_fails_the_run(parser: ModuleType, tmp_path: Path,
                                                  before: str, nth: int, where: str) -> None:
    """Item 6: a KASAN report after the last case of a suite, between suites or
    after all suites was dropped (exit 0); one at the end of suite 1 was
    blamed on suite 2's first case."""
    v = judge_log(parser, faults.insert_before(faults.pass_log(), before, KASAN, nth), tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    failed = [c for c in v.cases if c.status == 'FAIL']
    assert len(failed) == 1 and where in failed[0].name, [c.name for c in failed]
    assert 'BUG: KASAN: slab-use-after-free' in failed[0].message
    assert not any(c.name.startswith('net_rx_align_alloc.rx_netdev_alloc') for c in failed)


def test_kmemleaks_own_report_after_the_suites_is_the_scans_business(
        parser: ModuleType, tmp_path: Path) -> None:
    """The kernel prints 'kmemleak: N new suspected memory leaks' after the
    suites when /init scans: the kmemleak case judges those, not the splat rule."""
    lines = faults.insert_before(faults.kmemleak_clean(), 'rx_align_kmemleak: begin',
                                 ['kmemleak: 1 new suspected memory leaks (see '
                                  '/sys/kernel/debug/kmemleak)'])
    v = judge_log(parser, lines, tmp_path, kmemleak=True)
    assert v.exit == Exit.OK, v.cause


ARM64_BUG = ['kernel BUG at net/core/skbuff.c:210!',
             'Internal error: Oops - BUG: 00000000f2000800 [#1] PREEMPT SMP',
             'pc : skb_panic+0x4c/0x50']
RISCV_BUG = ['kernel BUG at net/core/skbuff.c:210!', 'Kernel BUG [#1]',
             'epc : skb_panic+0x4c/0x50']


@pytest.mark.parametrize('crash', [ARM64_BUG, RISCV_BUG])
def test_a_bug_that_kunit_survives_is_a_crash(parser: ModuleType, tmp_path: Path,
                                              crash: List[str]) -> None:
    """Item 11: arm64's and riscv's `kernel BUG at` were no crash (exit 0 when
    the run went on); and the cause named where output stopped, not the case
    that was running when the kernel oopsed."""
    v = judge_log(parser, faults.insert_before(faults.pass_log(),
                                               'ok 3 napi_alloc_skb len=60', crash), tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    assert 'kernel BUG at net/core/skbuff.c:210!' in v.cause
    assert 'net_rx_align_alloc.rx_napi_alloc after "napi_alloc_skb len=1"' in v.cause


def test_crash_words_in_a_tests_own_message_are_no_crash(parser: ModuleType,
                                                        tmp_path: Path) -> None:
    """Item 11: a failure message quoting crash text read as a kernel crash (exit 3)."""
    lines = faults.replace(faults.fail(), 'arch x86_64, napi_alloc_skb, len 60: headroom 66, '
                           'expected pad 64 + NET_IP_ALIGN 0',
                           ['Kernel panic - not syncing: would follow from headroom 66'])
    lines = faults.insert_before(lines, 'ok 2 napi_alloc_skb len=1',
                                 ['    # rx_napi_alloc: BUG: kernel NULL pointer dereference '
                                  'if the headroom were 0'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause


def test_an_end_marker_without_begin_is_no_scan(parser: ModuleType, tmp_path: Path) -> None:
    """Item 12: 'rx_align_kmemleak: end' alone passed the kmemleak check."""
    lines = faults.insert_before(faults.pass_log(), 'reboot: Restarting system',
                                 ['Run /init as init process', 'rx_align_kmemleak: end'])
    v = judge_log(parser, lines, tmp_path, kmemleak=True)
    assert v.exit == Exit.INFRA and 'kmemleak' in v.cause, v.cause


def stamped(lines: List[str]) -> List[str]:
    return [f'[{i / 1000:12.6f}] {ln}' for i, ln in enumerate(lines)]


@pytest.mark.parametrize('fault, status', [
    ('pass', Exit.OK), ('skip', Exit.OK), ('skip_noreason', Exit.TEST_FAILED),
    ('warn_in_case', Exit.TEST_FAILED), ('fail', Exit.TEST_FAILED)])
def test_printk_timestamps_change_nothing(parser: ModuleType, tmp_path: Path, fault: str,
                                         status: Exit) -> None:
    """Item 12: kunit_parser strips printk timestamps, our own regexes did not:
    a timestamped skip lost its reason and failed (exit 1), a warning inside a
    case was pinned on no case."""
    plain = judge_log(parser, faults.FAULTS[fault](), tmp_path)
    v = judge_log(parser, stamped(faults.FAULTS[fault]()), tmp_path)
    assert v.exit == status == plain.exit, v.cause
    assert [(c.name, c.status, c.message) for c in v.cases] == \
        [(c.name, c.status, c.message) for c in plain.cases]
    assert v.facts == plain.facts and v.facts['arch'] == 'x86_64'


# ---- issue 24: each test below failed before its fix (see the docstring) ----

@pytest.mark.parametrize('line, name', [
    ('ok 2 net_rx_align_alloc', 'net_rx_align_alloc'),
    ('ok 2 rx_napi_alloc', 'net_rx_align_alloc.rx_napi_alloc'),
])
def test_a_not_ok_parent_with_every_child_ok_fails(parser: ModuleType, tmp_path: Path,
                                                   line: str, name: str) -> None:
    """Item 3: `not ok` on a suite or a parameterised case line (suite_exit
    failed, a check after the last parameter) was dropped when every child
    was ok: exit 0. KTAP says the parent's line stands."""
    indent = line.startswith('ok 2 rx') and '    ' or ''
    lines = faults.replace(faults.pass_log(), line, [f'{indent}not {line}'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    failed = [c.name for c in v.cases if c.status == 'FAIL']
    assert failed == [name], failed
    assert name in v.cause


def test_a_failed_child_is_not_counted_twice(parser: ModuleType) -> None:
    v = verdict_of(parser, 'fail')
    assert [c.name for c in v.cases if c.status == 'FAIL'] == \
        ['net_rx_align_alloc.rx_napi_alloc.napi_alloc_skb len=60']



def second_stream(lines: List[str]) -> List[str]:
    """The kernel prints a whole KTAP stream again after the first (a reboot, a
    second run): the suites from `KTAP version 1` to the end of the last one."""
    start = faults.at(lines, 'KTAP version 1')
    end = next(i for i, ln in enumerate(lines) if ln == 'ok 3 net_rx_align_iphdr') + 1
    tail = faults.at(lines, 'reboot: Restarting system')
    return lines[:tail] + ['reboot: Restarting system', 'Linux version 6.12.118 (again)'] + \
        lines[start:end] + lines[tail:]


@pytest.mark.parametrize('first, second', [('pass', 'fail'), ('pass', 'pass')])
def test_a_second_ktap_stream_is_not_ignored(parser: ModuleType, tmp_path: Path, first: str,
                                             second: str) -> None:
    """Item 5: a failing second KTAP stream after a complete one was ignored
    (exit 0): kunit_parser stops after the first plan is done. Two streams
    are no result of one run: infra, saying where the second began."""
    lines = faults.FAULTS[first]()
    again = second_stream(faults.FAULTS[second]())
    tail = faults.at(lines, 'reboot: Restarting system')
    start = faults.at(again, 'Linux version 6.12.118 (again)')
    lines = lines[:tail] + again[start - 1:]
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    assert 'second KTAP stream' in v.cause and 'line ' in v.cause


CRASH_LOGS = sorted((faults.FIXTURES / 'crashes').glob('*.log'))


@pytest.mark.parametrize('log', CRASH_LOGS, ids=[p.stem for p in CRASH_LOGS])
def test_every_arch_crash_format_is_a_crash(parser: ModuleType, tmp_path: Path,
                                            log: Path) -> None:
    """Item 4: the die/oops lines of MIPS, PA-RISC, powerpc, sparc, alpha, sh,
    m68k and s390 were no crash when the run went on after them (exit 0), or
    the cause quoted a later line than the first. Each saved crash sits in a
    case after which every case passes: infra, quoting its first line."""
    crash = log.read_text().splitlines()
    lines = faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60', crash)
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    # the first line, or for PA-RISC's banner the one under its bar of underscores
    assert crash[0].strip() in v.cause or crash[0].strip('_ ') == '' and \
        crash[1].strip() in v.cause, v.cause
    assert 'net_rx_align_alloc.rx_napi_alloc after "napi_alloc_skb len=1"' in v.cause


def test_the_crash_table_matches_its_examples_and_no_clean_log() -> None:
    from rxalign.crashes import CRASH, CRASH_FORMATS
    for f in CRASH_FORMATS:
        assert CRASH.match(f.example) and f.source, f
    clean = faults.pass_log() + faults.FAULTS['kmemleak_leak']() + faults.frames_pass()
    assert [ln for ln in clean if CRASH.match(ln)] == []
    named = {a.strip() for f in CRASH_FORMATS for a in f.arches.split(',')}
    stems = {p.stem.split('-')[0] for p in CRASH_LOGS}
    assert stems <= named, stems - named


def test_judge_records_every_problem_and_decide_ranks_them(parser: ModuleType) -> None:
    """A panic that also timed out: judge() lists both, with what shows each;
    decide() (not judge()) puts the crash first."""
    v = verdict_of(parser, 'panic_mid_suite', timed_out=True, hung=30)
    kinds = [p.kind for p in v.problems]
    assert ProblemKind.CRASH in kinds and ProblemKind.HUNG in kinds, kinds
    assert ProblemKind.TIMEOUT in kinds, kinds
    assert v.problem and v.problem.kind == ProblemKind.CRASH
    assert v.cause.startswith('x86_64: kernel crash'), v.cause
    # the ranking is decide()'s: shuffled, the same cause
    v.problems.reverse()
    assert v.cause.startswith('x86_64: kernel crash'), v.cause


def test_ktap_errors_rank_below_the_missing_cases_that_explain_them(parser: ModuleType) -> None:
    """A truncated log has KTAP errors and absent cases: the absent cases are
    the cause; the errors alone (every case there) would still be infra."""
    v = verdict_of(parser, 'truncated')
    assert [p.kind for p in v.problems] == [ProblemKind.KTAP_ERRORS]
    assert 'missing net_rx_align_alloc' in v.cause and 'KTAP error' not in v.cause, v.cause
    done = verdict_of(parser, 'pass')
    assert done.exit == Exit.OK
    done.problems.append(Problem(ProblemKind.KTAP_ERRORS,
                                 'x86_64: incomplete KTAP: 1 KTAP error(s)'))
    assert done.exit == Exit.INFRA and '1 KTAP error' in done.cause


def test_problems_survive_the_json_round_trip(parser: ModuleType) -> None:
    v = verdict_of(parser, 'panic_mid_suite', hung=30)
    back = Verdict.from_json(json.loads(json.dumps(v.to_json())), 'test')
    assert back.problems == v.problems and back.cause == v.cause
    stored = v.to_json()
    del stored['problems']      # results written before kinds: the one problem they stored
    old = Verdict.from_json(stored, 'test', 2)
    assert [p.kind for p in old.problems] == [ProblemKind.RECORDED]
    assert old.exit == Exit.INFRA and old.cause == v.cause


def test_a_forged_problem_kind_is_named_as_a_kind(parser: ModuleType) -> None:
    stored = verdict_of(parser, 'panic_mid_suite', hung=30).to_json()
    stored['problems'][0]['kind'] = 'gremlins'
    with pytest.raises(ValueError, match="unknown problem kind 'gremlins' \\(known: 'unrunnable'"):
        Verdict.from_json(stored, 'test')


# ---- issue 41: each test below failed before its fix (see the docstring) ----

@pytest.mark.parametrize('line, name', [
    ('ok 2 net_rx_align_alloc', 'net_rx_align_alloc'),
    ('ok 2 rx_napi_alloc', 'net_rx_align_alloc.rx_napi_alloc'),
])
def test_a_reasonless_skip_over_tests_that_ran_fails(parser: ModuleType, tmp_path: Path,
                                                     line: str, name: str) -> None:
    """Item 13: a suite (or parameterised case) whose own result line is
    `# SKIP` without a reason, every case under it passing, exited 0."""
    indent = '    ' if line.startswith('ok 2 rx') else ''
    lines = faults.replace(faults.pass_log(), line, [f'{indent}{line} # SKIP'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    assert 'skipped without a reason' in v.cause and name in v.cause, v.cause


def test_a_reasonless_skip_that_sums_up_skips_with_reasons_passes(parser: ModuleType,
                                                                  tmp_path: Path) -> None:
    """KUnit ends a suite whose every case skipped with `ok N suite # SKIP`
    and no reason of its own: the cases' reasons are the reason."""
    lines = faults.pass_log()
    for n, case in enumerate(('rx_policy_table', 'rx_net_skb_pad_sane',
                              'rx_net_ip_align_sane'), 1):
        lines = faults.replace(lines, f'ok {n} {case}',
                               [f'    ok {n} {case} # SKIP not on this arch'])
    lines = faults.replace(lines, 'ok 1 net_rx_align_policy', ['ok 1 net_rx_align_policy # SKIP'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.OK, v.cause
    assert v.count('SKIP') == 3


def test_a_skipped_parameterised_case_on_6_1_skips_its_bare_ok_parameters(
        parser: ModuleType, tmp_path: Path) -> None:
    """CI on 2026-12-07, 6.1 powerpc32: 6.1 prints a skipped parameter as a bare
    `ok N desc`, the case `ok 2 rx_fixup_frames # SKIP <reason>`, and the suite
    `# SKIP` with no reason of its own; the gate counted 15 passes and failed
    the suite as a skip without a reason."""
    lines = faults.pass_log()
    lines = faults.replace(lines, 'ok 1 rx_netdev_alloc',
                           ['    ok 1 rx_netdev_alloc # SKIP not on this arch'])
    lines = faults.replace(lines, '# rx_napi_alloc: pass:22 fail:0 skip:0 total:22',
                           ['    # rx_napi_alloc: pass:0 fail:0 skip:22 total:22'])
    lines = faults.replace(lines, 'ok 2 rx_napi_alloc',
                           ['    ok 2 rx_napi_alloc # SKIP not on this arch'])
    suite = next(ln.strip() for ln in lines if ln.startswith('ok ') and 'net_rx_align_alloc' in ln)
    before = judge_log(parser, lines, tmp_path)
    assert before.exit == Exit.OK, before.cause
    napi = [c for c in before.cases if c.name.startswith('net_rx_align_alloc.rx_napi_alloc.')]
    assert len(napi) == 22 and all(c.status == CaseStatus.SKIP and c.message for c in napi)
    # every case of the suite skipped: KUnit's reasonless suite SKIP is their sum
    top, end = faults.at(lines, '# Subtest: net_rx_align_alloc'), faults.at(lines, suite)
    lines = [ln + ' # SKIP not on this arch'
             if top < i < end and ln.startswith('    ok ') and '#' not in ln else ln
             for i, ln in enumerate(lines)]
    lines = faults.replace(lines, suite, [f'{suite} # SKIP'])
    (tmp_path / 'all').mkdir()
    (tmp_path / 'bare').mkdir()
    v = judge_log(parser, lines, tmp_path / 'all')
    assert v.exit == Exit.OK, v.cause
    # a parameter that failed under the skipped case still fails: only bare oks change
    failed = faults.replace(lines, 'ok 3 napi_alloc_skb len=60', ['        not ok 3 napi_alloc_skb len=60'])
    (tmp_path / 'failed').mkdir()
    assert judge_log(parser, failed, tmp_path / 'failed').exit == Exit.TEST_FAILED
    # the rule stands where the case gave no reason: bare `ok`s are passes
    bare = faults.replace(faults.pass_log(), 'ok 2 rx_napi_alloc', ['    ok 2 rx_napi_alloc # SKIP'])
    assert judge_log(parser, bare, tmp_path / 'bare').exit == Exit.TEST_FAILED


def with_rule(v: Verdict, rule: str) -> Verdict:
    """The verdict as --expected with one rule (`ARCH: NAME  # why`) leaves it."""
    from rxalign import known_failures
    return known_failures.apply(v, known_failures.parse(f'kernel: any\n{rule}\n', 'expected'))


NAPI_60 = 'net_rx_align_alloc.rx_napi_alloc.napi_alloc_skb len=60'
KNOWN_NAPI = 'x86_64: net_rx_align_alloc.rx_napi_alloc  # a known failure of the assertion'


def report_lines(f: ReportFormat) -> List[str]:
    """A report as the kernel prints it: its title, under a rule of `=` where
    the kernel draws one (lockdep, KASAN, KFENCE, SLUB), and one to close it
    where the report closes with its own."""
    rule = ['=' * 66] if f.closes or f.example.startswith(('WARNING: ', '[ BUG', 'BUG kmalloc')) \
        else []
    return rule + [f.example, 'CPU: 0 UID: 0 PID: 97 Comm: kunit_try_catch Tainted: G N 6.12.118 #1',
                   'Call Trace:', ' <TASK>', ' rx_napi+0x2b/0x50', ' </TASK>'] + \
        (rule if f.closes else [])


@pytest.mark.parametrize('f', REPORT_FORMATS, ids=[f.example[:40] for f in REPORT_FORMATS])
def test_every_kernel_report_fails_its_case_and_no_rule_excuses_it(
        parser: ModuleType, tmp_path: Path, f: ReportFormat) -> None:
    """Item 1: lockdep's own reports, spinlock recursion, a bad page, SLUB,
    KFENCE, smp_processor_id() and workqueue reports, and 7.3's WARN format,
    inside a passing case, exited 0. Item 2: a report pinned on a case a
    rule names as a known failure was XFAIL (exit 0): a rule excuses the
    assertion, never what the kernel reported."""
    lines = faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60',
                                 report_lines(f))
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    failed = [c for c in v.cases if c.status == 'FAIL']
    assert [c.name for c in failed] == [NAPI_60], [c.name for c in failed]
    assert f.example in failed[0].message and f.example in failed[0].report
    known = with_rule(judge_log(parser, faults.replace(lines, 'ok 3 napi_alloc_skb len=60', [
        '        not ok 3 napi_alloc_skb len=60']), tmp_path), KNOWN_NAPI)
    assert known.exit == Exit.TEST_FAILED and known.count('XFAIL') == 0, known.cause


@pytest.mark.parametrize('report', [
    ['BUG: something no table knows yet'],
    ['WARNING: a check of a later kernel'],
    ['[ BUG: a lockdep title of a later kernel ]'],
    ['=' * 40, 'KSTACKSAN: a sanitizer of a later kernel'],
    ['=' * 40],
])
def test_a_report_banner_no_table_knows_fails_the_arch(parser: ModuleType, tmp_path: Path,
                                                       report: List[str]) -> None:
    """Item 1: a line that opens like a kernel report (BUG, WARNING, a rule of
    `=`) that no table reads was ignored (exit 0); it is no pass: the gate
    cannot tell a crash from a warning it does not know."""
    lines = faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60', report)
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    assert 'report the harness does not know' in v.cause and report[-1] in v.cause, v.cause
    assert 'rx_napi_alloc after "napi_alloc_skb len=1"' in v.cause, v.cause


def state_changed(what: str) -> List[str]:
    """The test module's in-kernel check failing a case (KUNIT_FAIL in its exit)."""
    return ['    # rx_napi_alloc: EXPECTATION FAILED at net/core/tests/rx_align_kunit_helpers.c:88',
            f'kernel state changed during the case: {what}',
            '        not ok 3 napi_alloc_skb len=60']


@pytest.mark.parametrize('what', ['taint W (TAINT_WARN)', 'debug_locks turned off'])
def test_a_case_the_in_kernel_check_failed_is_a_kernel_report(parser: ModuleType,
                                                              tmp_path: Path, what: str) -> None:
    """Item 1 (the harness's half): the module fails a case whose run changed
    the kernel's taint or debug_locks; a known-failure rule naming that case
    made it XFAIL (exit 0). It is a kernel report, never excused."""
    lines = faults.suite_failed(faults.replace(faults.pass_log(), 'ok 3 napi_alloc_skb len=60',
                                               state_changed(what)))
    v = with_rule(judge_log(parser, lines, tmp_path), KNOWN_NAPI)
    assert v.exit == Exit.TEST_FAILED and v.count('XFAIL') == 0, v.cause
    case = next(c for c in v.cases if c.name == NAPI_60)
    assert case.report == f'kernel state changed during the case: {what}', case.report
    assert what in case.message


X86_OOPS = ['BUG: kernel NULL pointer dereference, address: 0000000000000008',
            '#PF: supervisor read access in kernel mode',
            '#PF: error_code(0x0000) - not-present page',
            'Oops: Oops: 0000 [#1] PREEMPT NOPTI',
            'CPU: 0 UID: 0 PID: 97 Comm: kunit_try_catch Tainted: G                 N 6.12.118 #1',
            'RIP: 0010:rx_napi+0x2b/0x50',
            'Call Trace:', ' <TASK>', ' rx_napi+0x2b/0x50', ' </TASK>',
            '---[ end trace 0000000000000000 ]---']
TRY_FAULTED = ['    # rx_napi_alloc: try faulted: last line seen '
               'net/core/tests/rx_align_kunit.c:662']


def after_message(extra: List[str]) -> List[str]:
    """faults.fail() with @extra right after the failed expectation's message."""
    return faults.insert_before(faults.fail(), 'not ok 3 napi_alloc_skb len=60', extra)


@pytest.mark.parametrize('extra, status, words', [
    (X86_OOPS + TRY_FAULTED, Exit.INFRA, 'BUG: kernel NULL pointer dereference'),
    (X86_OOPS, Exit.INFRA, 'BUG: kernel NULL pointer dereference'),
    (['BAD KERNEL TRAP: 00000000'] + TRY_FAULTED, Exit.INFRA, 'BAD KERNEL TRAP'),
    (['Unable to handle an unknown fault'] + TRY_FAULTED, Exit.INFRA, 'try faulted'),
    # alpha's die_if_kernel() in a kworker: no task dump header, its own "Trace:"
    (['CPU 0 kworker/0:1(15): Oops 0',
      'pc = [<fffffc0000a1b2c0>]  ra = [<fffffc0000a1b2a8>]  ps = 0000    Not tainted',
      'Trace:', '[<fffffc0000a1b2c0>] rx_napi+0x2b/0x50'], Exit.INFRA, 'kworker/0:1(15): Oops 0'),
    # sparc32's: its banner, then the callers of its stack
    ([r'              \|/ ____ \|/', 'Caller[f0051234]: rx_napi+0x2b/0x50'], Exit.INFRA,
     r'\|/ ____ \|/'),
    (KASAN[:3] + ['CPU: 0 UID: 0 PID: 97 Comm: kunit_try_catch Not tainted 6.12.118 #1',
                  KASAN[3]], Exit.TEST_FAILED, 'BUG: KASAN: slab-use-after-free'),
    (faults.WARNING, Exit.TEST_FAILED, 'WARNING: CPU: 0 PID: 97 at net/core/skbuff.c:817'),
])
def test_the_kernel_right_after_a_failed_expectation_is_not_its_message(
        parser: ModuleType, tmp_path: Path, extra: List[str], status: Exit, words: str) -> None:
    """Item 2: an oops right after a failed expectation's message was taken
    as part of the message: exit 1 instead of 3, and with a rule naming the
    case, XFAIL and exit 0; a KASAN report or a WARNING there was dropped.
    The message ends where the kernel's own output begins."""
    lines = after_message(extra)
    for v in (judge_log(parser, lines, tmp_path),
              with_rule(judge_log(parser, lines, tmp_path), KNOWN_NAPI)):
        assert v.exit == status, v.cause
        assert v.count('XFAIL') == 0
        shown = v.cause if status == Exit.INFRA else \
            next(c.message for c in v.cases if c.name == NAPI_60)
        assert words in shown, shown


def test_a_warning_pinned_on_a_known_failing_case_is_not_excused(parser: ModuleType) -> None:
    """Item 2: a WARNING inside a case that a rule names as a known failure
    made it XFAIL: exit 0."""
    v = with_rule(verdict_of(parser, 'warn_in_case'), KNOWN_NAPI)
    assert v.exit == Exit.TEST_FAILED and v.count('XFAIL') == 0, v.cause


def test_the_report_table_is_the_kernels_own_text(tmp_path: Path) -> None:
    """Each report format is read from the kernel, not remembered: its format
    string is in the file of 6.12 its entry names (7.3's WARN aside, which
    6.12 does not have), and each example is a report, no crash."""
    from rxalign.crashes import CRASH, REPORT
    from default_tree import default_tree
    ours = [f for f in REPORT_FORMATS if '6.12' in f.kernels]
    files = sorted({f.source.split()[0] for f in ours})
    tree = default_tree(tmp_path, *(f'*/{name}' for name in files))
    for f in REPORT_FORMATS:
        assert REPORT.match(f.example) and not CRASH.match(f.example), f
    for f in ours:
        text = (tree / f.source.split()[0]).read_text(errors='replace')
        assert f.literal in text, f
        assert f.source.split()[1].rstrip('()') + '(' in text, f


def endless_parse() -> List[str]:
    """A bare `1..0` plan among a parameterised case's results: kunit.py's
    parser (6.12) loops on it forever, growing by about 20 MB a second."""
    return faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60', ['        1..0'])


@pytest.mark.parametrize('seconds, memory', [(3.0, 1 << 30), (60.0, 64 << 20)])
def test_a_log_the_parser_never_finishes_is_unparseable(parser: ModuleType, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        seconds: float, memory: int) -> None:
    """Item 7: the parse never ended (the harness hung, its memory growing):
    every parse is bounded in time and memory, and a log the parser cannot
    finish is infra, saying so."""
    import time
    from rxalign import kunit_driver
    monkeypatch.setattr(kunit_driver, 'PARSE_SECONDS', seconds)
    monkeypatch.setattr(kunit_driver, 'PARSE_MEMORY', memory)
    start = time.monotonic()
    v = judge_log(parser, endless_parse(), tmp_path)
    assert time.monotonic() - start < 30
    assert v.exit == Exit.INFRA and 'cannot be read' in v.cause, v.cause
    assert ('within 3s' if seconds < 10 else 'memory') in v.cause, v.cause
    assert verdict_of(parser, 'pass').exit == Exit.OK      # the bound costs a parse nothing


# ---- issue 50: each test below failed before its fix (see the docstring) ----

def skip_after(failure: List[str], result: str, reason: str, lines: List[str]) -> List[str]:
    """@result's line replaced by @failure and the same result with `# SKIP @reason`:
    what KUnit prints for a kunit_skip() after a failed expectation."""
    indent = next(ln for ln in lines if ln.strip() == result)[:-len(result)]
    return faults.replace(lines, result, failure + [f'{indent}{result} # SKIP {reason}'])


BYSTANDER_GONE = ['    # rx_bystanders_untouched: EXPECTATION FAILED at '
                  'net/core/tests/rx_align_drivers_kunit.c:935',
                  '    Expected rx_bystander_up(rx_up_before) to be true, but is false',
                  'arch x86_64: eth9, named up_before=, was not a bystander found up']


@pytest.mark.parametrize('result', ['ok 2 rx_net_skb_pad_sane', 'ok 3 napi_alloc_skb len=60',
                                    'ok 1 napi_alloc_skb len=0'])
def test_a_skip_after_a_failed_expectation_fails(parser: ModuleType, tmp_path: Path,
                                                 result: str) -> None:
    """Item 1: KUnit writes SKIPPED over FAILURE, so a failed expectation
    then kunit_skip() is `ok N name # SKIP reason` with `EXPECTATION FAILED
    at ...` in the case's own log: exit 0 (rx_bystanders_untouched, whose
    bystander named up_before= was gone, read as a skip). The case fails, with
    the expectation in its message, and no known-failure rule excuses it; a
    plain case, a parameter, and the first parameter (whose lines come before
    the parameter list) alike."""
    lines = skip_after(BYSTANDER_GONE, result, 'no Ethernet device but the 1 named',
                       faults.pass_log())
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    name = next(c.name for c in v.cases if c.name.endswith(result.split(' ', 2)[2]))
    assert 'skipped after a failure of their own' in v.cause and name in v.cause, v.cause
    case = next(c for c in v.cases if c.name == name)
    assert case.shown == 'FAIL' and 'named up_before=, was not a bystander found up' in \
        case.message and 'no Ethernet device but the 1 named' in case.message, case.message
    assert 'EXPECTATION FAILED at net/core/tests/rx_align_drivers_kunit.c:935' in case.report
    known = with_rule(v, f'x86_64: {name.rsplit(".", 1)[0] if "len=" in name else name}  # ?')
    assert known.exit == Exit.TEST_FAILED and known.count('XFAIL') == 0, known.cause
    back = Verdict.from_json(json.loads(json.dumps(v.to_json())), 'test')
    assert back.exit == Exit.TEST_FAILED and back.cause == v.cause
    # a skip with nothing failed before it is a skip (the window ends at the last result)
    (tmp_path / 'clean').mkdir()
    clean = skip_after([], result, 'not on this arch', faults.pass_log())
    assert judge_log(parser, clean, tmp_path / 'clean').exit == Exit.OK


def test_a_skipped_parameter_whose_frame_failed_fails(parser: ModuleType, tmp_path: Path) -> None:
    """Item 1: a parameter that printed `verdict=fail` and then skipped was green
    (the contradiction looked at PASS only)."""
    frame = ('driver=e1000 path=e1000 frame=ipv4 len=60 class=ip_align headroom=64 '
             'mac_line_off=0 nh_mod4=0 want_mod4=2 rule=net_ip_align head_frag=1 pp_recycle=0 '
             'verdict=fail')
    lines = faults.with_drivers(faults.pass_log(), [('e1000 ipv4', frame)])
    lines = faults.replace(lines, 'ok 1 e1000 ipv4',
                           ['        ok 1 e1000 ipv4 # SKIP the NIC lost its carrier'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    case = next(c for c in v.cases if c.name.endswith('e1000 ipv4'))
    assert case.shown == 'FAIL' and 'skipped, but printed a frame it judged failed' in \
        case.report, case.report
    assert 'skipped after a failure of their own' in v.cause, v.cause


DROPPED = '** 3 printk messages dropped **'


@pytest.mark.parametrize('before', ['ok 3 napi_alloc_skb len=60', 'ok 2 net_rx_align_alloc',
                                    'reboot: Restarting system'])
def test_a_console_that_dropped_messages_is_incomplete(parser: ModuleType, tmp_path: Path,
                                                       before: str) -> None:
    """Item 2: `** N printk messages dropped **` was ignored: when the drop took
    the first line of a report that neither taints nor fails the case (an RCU
    stall, a hung task, smp_processor_id() in preemptible code), the rest of the
    report matched nothing and the run was green. After KTAP began, it is
    infra, naming the line; before it (boot), no case ran and nothing changes."""
    lines = faults.insert_before(faults.pass_log(), before,
                                 [DROPPED, 'caller is rx_napi+0x2b/0x50',
                                  'CPU: 0 UID: 0 PID: 97 Comm: kunit_try_catch'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    number = faults.at(lines, DROPPED) + 1
    assert 'console is incomplete' in v.cause and f'line {number}: "{DROPPED}"' in v.cause, \
        v.cause
    assert [p.kind for p in v.problems] == [ProblemKind.DROPPED]
    (tmp_path / 'boot').mkdir()
    boot = faults.insert_before(faults.pass_log(), 'KTAP version 1', [DROPPED])
    assert judge_log(parser, boot, tmp_path / 'boot').exit == Exit.OK


@pytest.mark.parametrize('where', ['after the end marker', 'inside the listing'])
def test_a_kmemleak_report_after_its_scan_began_is_no_pass(parser: ModuleType, tmp_path: Path,
                                                           where: str) -> None:
    """Item 4: a kmemleak report printed after the scan's `end` marker (an
    automatic scan: objects the /init scan never listed) was exit 0 under
    --debug. It is infra, naming the line, as a console that dropped lines."""
    late = 'kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)'
    clean = faults.kmemleak_clean()
    at = faults.at(clean, 'rx_align_kmemleak: end') + (1 if where.startswith('after') else 0)
    v = judge_log(parser, clean[:at] + [late] + clean[at:], tmp_path, kmemleak=True)
    assert v.exit == Exit.INFRA, v.cause
    assert f'line {at + 1}: "{late}"' in v.cause and 'scan' in v.cause, v.cause
    # the scan's own line, before its listing, is what the scan judges
    (tmp_path / 'own').mkdir()
    own = faults.insert_before(clean, 'rx_align_kmemleak: begin', [late])
    assert judge_log(parser, own, tmp_path / 'own', kmemleak=True).exit == Exit.OK


# A trap's oops of each kernel on x86, as a kworker prints it after the last case.
TRAP_OOPS = {
    '6.1': 'divide error: 0000 [#1] PREEMPT SMP NOPTI',
    '6.12': 'Oops: divide error: 0000 [#1] PREEMPT NOPTI',
    '6.1 split lock': ': 0000 [#1] PREEMPT SMP NOPTI',
    '6.1 stack segment': 'stack segment: 0000 [#1] SMP',
    '6.1 invalid opcode': 'invalid opcode: 0000 [#1] PREEMPT SMP PTI',
}


@pytest.mark.parametrize('kernel', list(TRAP_OOPS))
@pytest.mark.parametrize('before', ['reboot: Restarting system', 'ok 3 napi_alloc_skb len=60'])
def test_a_trap_oops_of_every_kernel_is_a_crash(parser: ModuleType, tmp_path: Path,
                                               kernel: str, before: str) -> None:
    """Item 3: 6.1's x86 die() prints the trap's title with no "Oops: " (6.9
    added it): `divide error: 0000 [#1] ...` in a kworker after the last
    case was exit 0, where 6.12's `Oops: divide error: ...` is exit 3."""
    oops = [TRAP_OOPS[kernel],
            'CPU: 0 PID: 15 Comm: kworker/0:1 Not tainted 6.1.158 #1',
            'Workqueue: events rx_work', 'RIP: 0010:rx_work+0x2b/0x50',
            'Call Trace:', ' <TASK>', ' process_one_work+0x1c5/0x3c0', ' </TASK>',
            '---[ end trace 0000000000000000 ]---']
    v = judge_log(parser, faults.insert_before(faults.pass_log(), before, oops), tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    assert 'kernel crash' in v.cause and TRAP_OOPS[kernel] in v.cause, v.cause


KERNEL_NAMES = [k.name for k in kernels.KERNELS]


@pytest.mark.parametrize('name', KERNEL_NAMES)
def test_every_format_is_its_kernels_own_text(name: str) -> None:
    """Item 3: the crash and report tables were 6.12's: each entry now says which
    kernels print it and the text of its format, found in the lines of the
    file it names that fixtures/formats/<kernel>.txt keeps of each of those
    kernels' source (read from the tree by the test below, on every machine:
    a fresh CI machine has no tree, and 6.1's check skipped where none was)."""
    from rxalign.crashes import CRASH_FORMATS, EVERY_KERNEL
    assert EVERY_KERNEL == tuple(KERNEL_NAMES)
    named = [n for f in CRASH_FORMATS for n in f.kernels] + \
        [n for r in REPORT_FORMATS for n in r.kernels]
    assert set(named) <= set(EVERY_KERNEL), named
    missing = format_sources.unprinted(name, format_sources.fixture(name))
    assert not missing, f'{name} does not print (fixtures/formats/{name}.txt):\n' + \
        '\n'.join(missing)


@pytest.mark.parametrize('name', KERNEL_NAMES)
def test_the_format_fixture_is_read_from_its_kernels_source(tmp_path: Path, name: str) -> None:
    """The fixture is what the kernel's tree holds today, line for line: a
    kernel or a table entry changed without it is named (skipped where this
    machine has no tree of @name)."""
    from default_tree import kernel_tree
    files = sorted({file for file, _ in format_sources.formats(name)})
    tree = kernel_tree(kernels.select(name), tmp_path, *(f'*/{file}' for file in files))
    derived, kept = format_sources.derive(tree, name), format_sources.fixture(name)
    assert derived == kept, (
        f'fixtures/formats/{name}.txt is not {tree}: write it again with '
        f'`PYTHONPATH=scripts python3 scripts/tests/format_sources.py {name} {tree}`\n'
        f'only in the tree: {sorted(set(derived) - set(kept))}\n'
        f'only in the fixture: {sorted(set(kept) - set(derived))}')


@pytest.mark.parametrize('name', KERNEL_NAMES)
def test_a_trap_oops_as_each_kernels_source_prints_it_is_a_crash(
        parser: ModuleType, tmp_path: Path, name: str) -> None:
    """Item 3: a divide error's first line as each kernel's x86 die() prints
    it (its format and the trap's title, from its source), in a kworker after
    the last case: exit 3. Before dc3d104/df2b370, 6.1's was exit 0."""
    line = format_sources.trap_oops(format_sources.fixture(name))
    assert line and line.endswith('divide error: 0000 [#1]'), line
    assert line.startswith('Oops: ') == (name != '6.1'), line
    oops = [f'{line} PREEMPT SMP NOPTI', 'CPU: 0 PID: 15 Comm: kworker/0:1 Not tainted',
            'Workqueue: events rx_work', 'RIP: 0010:rx_work+0x2b/0x50', 'Call Trace:',
            ' <TASK>', ' process_one_work+0x1c5/0x3c0', ' </TASK>']
    v = judge_log(parser, faults.insert_before(faults.pass_log(), 'reboot: Restarting system',
                                               oops), tmp_path)
    assert v.exit == Exit.INFRA, v.cause
    assert 'kernel crash' in v.cause and line in v.cause, v.cause


@pytest.mark.parametrize('line, status', [
    # 6.1's, read in its source through the search index (no 6.1 tree here)
    ('NMI watchdog: Watchdog detected hard LOCKUP on cpu 0', Exit.TEST_FAILED),
    ('BUG: workqueue leaked lock or atomic: kworker/0:1/0x00000000/15', Exit.TEST_FAILED),
    # 7.3's
    ('INFO: task kunit_try_catch:97 blocked in I/O wait for more than 122 seconds.',
     Exit.TEST_FAILED),
    ('watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 0', Exit.TEST_FAILED),
    ('kernel BUG at skb_panic+0x4c/0x50 [verbose debug info unavailable]', Exit.INFRA),
    ('Kernel stack pointer invalid', Exit.INFRA),
])
def test_the_reports_6_1_and_7_3_print_their_own_way_are_read(
        parser: ModuleType, tmp_path: Path, line: str, status: Exit) -> None:
    """Item 3, found by test_every_format_is_its_kernels_own_text on 7.3's
    tarball: 7.3 words a hung task (`blocked in I/O wait`), a hard lockup
    (`CPU1: ` first), a BUG() without file information (`kernel BUG at`,
    lower case) and an s390 bad stack its own way; each matched no table
    and a run going on after it was green (the crashes: exit 1 with the
    oops that follows them only). 6.1's hard lockup comes from
    watchdog_hld.c, whose pr_fmt is "NMI watchdog: " (green), and its
    workqueue leak says "lock or atomic" (an unknown BUG: exit 3, not the
    case's failure)."""
    lines = faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60',
                                 [line, 'Call Trace:', ' rx_napi+0x2b/0x50'])
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == status and line in v.cause + ''.join(c.message for c in v.cases), v.cause


def test_a_parameterised_case_skipped_after_a_failure_of_its_own_fails(
        parser: ModuleType, tmp_path: Path) -> None:
    """Item 1, the parent's window: an expectation that failed after the last
    parameter, then `ok 2 rx_napi_alloc # SKIP ...`, is a failure of the
    parameterised case itself (a case of its own name), whatever its
    parameters said."""
    lines = skip_after(BYSTANDER_GONE, 'ok 2 rx_napi_alloc', 'gone', faults.pass_log())
    v = judge_log(parser, lines, tmp_path)
    assert v.exit == Exit.TEST_FAILED, v.cause
    assert 'skipped after a failure of their own' in v.cause and \
        'net_rx_align_alloc.rx_napi_alloc ' in v.cause, v.cause
