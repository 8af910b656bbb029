"""scripts/bench compares every run of ours with plain kunit.py's results."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Sequence
from types import ModuleType

import pytest

from rxalign import arch_verdict, arches, bench, deps, kernels, tree
from rxalign.arch_plan import TREE_CONFIGS, ArchPlan, RunSettings, plan
from rxalign.bench import results
from rxalign.cache import Cache
from rxalign.declared import expected_suites, run_suites
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import KUNITCONFIG
from rxalign.results import ArchRun, Case, CaseStatus, Verdict
from rxalign.verdict import judge

import faults
from test_arch_plan import kernel_tree

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


def plans(kernel: str, root: Path, *names: str) -> List[ArchPlan]:
    s = bench.settings(kernel_tree(root, kernel), Cache(root / 'cache'),
                       tree.Base(base_id=kernel, label=kernel), kernels.BY_NAME[kernel],
                       REAL_TESTS, 2)
    return [plan(arches.BY_NAME[n], s) for n in names]


def test_plain_kunit_py_boots_the_arch_it_is_compared_with(tmp_path: Path) -> None:
    """7.3's kunit.py has powerpc32.py: plain kunit.py must be given that
    config by name, not --arch=powerpc (ppc64), which the bench once booted
    and then found "DIFFERENT" (bits 64, NET_IP_ALIGN 0) in every scenario.
    It boots what the plan boots: 7.3's powerpc.py (SLOF) is not booted on
    either side, where the bench once decided it a second way."""
    def arch_args(kernel: str, *names: str) -> List[List[str]]:
        return [[c for c in bench.plain_command(p, tmp_path / kernel, tmp_path / 'b', 2)
                 if c.startswith(('--arch=', '--qemu_config='))]
                for p in plans(kernel, tmp_path, *names)]

    ours = {n: f'--qemu_config={arches.BY_NAME[n].qemu_config_path()}'
            for n in ('powerpc32', 'powerpc')}
    assert arch_args('6.12', 'powerpc32') == [[ours['powerpc32']]]
    assert arch_args('7.3', 'powerpc32', 'x86_64', 'powerpc') == [
        ['--arch=powerpc32'], ['--arch=x86_64'], [ours['powerpc']]]
    assert (tmp_path / '7.3' / TREE_CONFIGS / 'powerpc.py').is_file()


# --- every path of scripts/bench but the builds and boots, which are faked ------------

def declared(tests: Path) -> Dict[str, List[str]]:
    """The suites the bench boots: all but the drivers suite (no NICs)."""
    suites = expected_suites(tests)
    return {s: suites[s] for s in run_suites(suites, False)}


def passing_ktap(facts: str = 'net_skb_pad=32') -> str:
    """A console on which every suite bench boots passes, with a facts line."""
    suites = declared(REAL_TESTS)
    lines = ['KTAP version 1', f'1..{len(suites)}']
    for i, (suite, cases) in enumerate(suites.items(), 1):
        lines += ['    KTAP version 1', f'    # Subtest: {suite}', f'    1..{len(cases)}']
        for j, case in enumerate(cases, 1):
            if case == 'rx_policy_facts':
                lines.append(f'    # {case}: {bench.FACTS_LINE}arch=ppc net_ip_align=2 {facts}')
            lines.append(f'    ok {j} {case}')
        lines.append(f'ok {i} {suite}')
    return '\n'.join(lines) + '\n'


class FakeBench:
    """bench.main with the builds and boots faked: plain kunit.py's and ours
    each write a console log; what the tree step saw of the tests is kept.
    The tree it prepares is a git repository of kunit.py's tools and the
    tests, as tree.prepare's is."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kunit_tools: Path,
                 ours_facts: str = 'net_skb_pad=32') -> None:
        self.prepared: List[str] = []     # the facts line's file, at each tree step
        self.packages: List[str] = []
        self.plain_runs: List[List[str]] = []
        self.ours_facts = ours_facts
        self.kunit_tools = kunit_tools
        self.src = tmp_path / 'linux'
        monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
        monkeypatch.setattr(deps, 'ensure_packages',
                            lambda pkgs, log: self.packages.extend(pkgs))
        monkeypatch.setattr(tree, 'debian_base', lambda kernel, cache, log: tree.Base(
            base_id='fake', label=f'{kernel.package} fake'))
        monkeypatch.setattr(tree, 'prepare', self.prepare)
        monkeypatch.setattr(bench, '_plain', self.plain)
        monkeypatch.setattr(arch_verdict, 'run_arch', self.run_arch)

    def prepare(self, cache: Cache, base: tree.Base, layers: Sequence[tree.Layer],
                log: object) -> tree.PreparedTree:
        tests = next(layer.tests_dir for layer in layers if layer.tests_dir)
        self.prepared.append(bench.facts_source(tests).read_text())
        if not self.src.exists():
            shutil.copytree(self.kunit_tools, self.src / 'tools/testing/kunit')
            subprocess.run(['git', 'init', '-q', str(self.src)], check=True)
        shutil.rmtree(self.src / tree.TESTS_DEST, ignore_errors=True)
        shutil.copytree(tests, self.src / tree.TESTS_DEST)
        return tree.PreparedTree(path=self.src, base=base, base_commit='', head='',
                                 reused=False)

    def plain(self, p: ArchPlan, src: Path, build: Path, jobs: int) -> float:
        assert src == self.src
        self.plain_runs.append(bench.plain_command(p, src, build, jobs))
        build.mkdir(parents=True, exist_ok=True)
        (build / 'test.log').write_text(passing_ktap())
        (build / '.config').write_text(KUNITCONFIG.read_text())    # our kunitconfig alone
        return 100.0

    def run_arch(self, arch: arches.Arch, settings: RunSettings, out_dir: Path,
                 progress: object) -> ArchRun:
        out_dir.mkdir(parents=True, exist_ok=True)
        facts = self.ours_facts if out_dir.parent.name == 'incremental' else 'net_skb_pad=32'
        (out_dir / 'ktap.log').write_text(passing_ktap(facts))
        # the drivers suites' options too (kconfig.kernel_kconfig): not booted here
        (out_dir / '.config').write_text(KUNITCONFIG.read_text() + ''.join(
            f'CONFIG_NET_RX_ALIGN_{s}_KUNIT_TEST=y\n' for s in ('DRIVERS', 'VHOST')))
        return ArchRun(arch=arch.name, ktap_log=out_dir / 'ktap.log', build_dir=out_dir,
                       seconds={'run': 1.0})


REAL_TESTS = Path(__file__).resolve().parents[2] / 'kunit-tests'


def test_bench_runs_every_scenario_to_the_end(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                              kunit_tools: Path) -> None:
    """scripts/bench --kernel 7.3 --arch powerpc32, its builds and boots faked:
    the incremental scenario edits the file that prints the facts (it once
    opened kunit-tests/rx_align_kunit.c, gone, after an hour of cold builds)."""
    fake = FakeBench(monkeypatch, tmp_path, kunit_tools)
    out = tmp_path / 'bench.md'
    assert bench.main(['--kernel', '7.3', '--arch', 'powerpc32', '--out', str(out)]) == 0
    text = out.read_text()
    assert text.startswith('# scripts/bench: linux-source-7.3 fake, powerpc32, ')
    assert '| cold | 100 | ' in text and '| no-op | 100 | ' in text and '| warm | - | ' in text
    assert text.count("; results as plain kunit.py's") == 4 and 'DIFFERENT' not in text
    once = bench.FACTS_LINE + 'arch='
    twice = bench.FACTS_LINE + ' arch='
    # the tree step before the clock, then one per scenario: edited from incremental on
    assert [once in c and twice not in c for c in fake.prepared] == \
        [True, True, True, False, False]
    assert 'gcc-powerpc64-linux-gnu' in fake.packages
    assert not list(tmp_path.glob('rx-align-bench-*')), 'the work directory stays'


def test_bench_fails_naming_what_differs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                         kunit_tools: Path) -> None:
    FakeBench(monkeypatch, tmp_path, kunit_tools, ours_facts='net_skb_pad=64')
    out = tmp_path / 'bench.md'
    assert bench.main(['--kernel', '7.3', '--arch', 'powerpc32', '--out', str(out)]) == 1
    assert '- incremental: powerpc32=passed/' in out.read_text()
    assert "DIFFERENT from plain kunit.py: powerpc32\n  - powerpc32: fact net_skb_pad: " \
        "plain 32, ours 64\n" in out.read_text()


def test_the_incremental_edit_keeps_the_facts(parser: ModuleType, tmp_path: Path) -> None:
    """One more space after the prefix: a changed module, the same facts."""
    tests = tmp_path / 'kunit-tests'
    shutil.copytree(REAL_TESTS, tests)
    src = bench.facts_source(tests)
    assert src.name == 'rx_align_policy_kunit.c'
    before = src.read_text()
    bench.touch_one_line(src)
    assert src.read_text() != before and len(src.read_text()) == len(before) + 1
    log = tmp_path / 'ktap.log'
    log.write_text(passing_ktap().replace(bench.FACTS_LINE, bench.FACTS_LINE + ' '))
    edited = judge(ArchRun(arch='powerpc32', ktap_log=log), declared(tests), parser, 300)
    log.write_text(passing_ktap())
    plain = judge(ArchRun(arch='powerpc32', ktap_log=log), declared(tests), parser, 300)
    assert results(edited) == results(plain) and plain.facts['net_skb_pad'] == '32'


def test_a_module_without_the_facts_line_stops_the_bench_before_any_work(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    tests = tmp_path / 'kunit-tests'
    tests.mkdir()
    (tests / 'rx_align_alloc_kunit.c').write_text('/* prints nothing */\n')
    monkeypatch.setattr(bench, 'TESTS_DIR', tests)
    monkeypatch.setattr(deps, 'ensure_packages', lambda pkgs, log: pytest.fail('work began'))
    with pytest.raises(HarnessError) as err:
        bench.main(['--arch', 'powerpc32'])
    assert err.value.status == Exit.INTERNAL and 'bench.FACTS_LINE' in err.value.message


def test_plain_kunit_py_that_fails_is_an_infra_error(tmp_path: Path) -> None:
    """_plain runs the tree's kunit.py (here a stand-in): its time, or its output."""
    ppc32, = plans('7.3', tmp_path, 'powerpc32')
    src = tmp_path / '7.3'
    kunit = src / 'tools/testing/kunit/kunit.py'
    kunit.write_text('import sys\nprint("ran", *sys.argv[1:3])\n')
    assert bench._plain(ppc32, src, tmp_path / 'build', 1) >= 0
    kunit.write_text('import sys\nprint("the build failed")\nsys.exit(1)\n')
    with pytest.raises(HarnessError) as err:
        bench._plain(ppc32, src, tmp_path / 'build', 1)
    assert err.value.status == Exit.INFRA and 'the build failed' in err.value.message


def test_a_case_one_side_lacks_is_named_absent() -> None:
    plain = (Verdict(arch='x').status, (('a.b', 'PASS'), ('a.c', 'PASS')), ())
    ours = (plain[0], (('a.b', 'PASS'),), ())
    assert bench.differences(plain, ours) == ['case a.c: plain PASS, ours absent']


def test_a_bench_that_fails_leaves_no_work_directory(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path, kunit_tools: Path) -> None:
    """Its cache and builds are gigabytes: gone whether it ends well or not."""
    fake = FakeBench(monkeypatch, tmp_path, kunit_tools)

    def fails(p: ArchPlan, src: Path, build: Path, jobs: int) -> float:
        fake.plain(p, src, build, jobs)
        raise HarnessError(Exit.INFRA, 'plain kunit.py failed for powerpc32')
    monkeypatch.setattr(bench, '_plain', fails)
    with pytest.raises(HarnessError):
        bench.main(['--kernel', '7.3', '--arch', 'powerpc32', '--out', str(tmp_path / 'b.md')])
    assert not list(tmp_path.glob('rx-align-bench-*')) and not (tmp_path / 'b.md').exists()


def test_scripts_bench_runs_the_module(tmp_path: Path) -> None:
    """scripts/bench's `python3 -m rxalign.bench`: its __main__, through run_main
    (a usage error is exit 2, as everywhere)."""
    scripts = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(scripts))
    for args, rc, said in ((['--help'], 0, 'usage: bench'), (['--kernel', '9.9'], 2, '9.9')):
        proc = subprocess.run([sys.executable, '-m', 'rxalign.bench', *args], cwd=tmp_path,
                              env=env, capture_output=True, text=True, check=False)
        assert proc.returncode == rc and said in proc.stdout + proc.stderr, proc
