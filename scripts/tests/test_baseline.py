"""--baseline: what changed since an earlier run, on the saved pair in fixtures/baseline.

`baseline/` and `run/` are two results directories of the same tree and
arches (see fixtures/README.md): since the baseline, x86_64's
napi_alloc_skb frame moved 2 bytes and its case fails, powerpc32's
page_pool_frag frame was fixed, rx_net_ip_align_sane is new and the
build_skb parameter is gone, on both arches.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, List, Optional, Set, Tuple

import pytest

from rxalign import baseline, report_main, run_kunit
from rxalign.baseline import Change
from rxalign.exitcodes import Exit
from rxalign.results import Results, RunMeta, read_dir

from test_report_html import Dom, by_id

import faults

PAIR = faults.FIXTURES / 'baseline'
NAPI = 'net_rx_align_iphdr.rx_ipv4_header.napi_alloc_skb'
FRAG = 'net_rx_align_iphdr.rx_ipv4_header.page_pool_frag'
SANE = 'net_rx_align_policy.rx_net_ip_align_sane'
BUILD = 'net_rx_align_iphdr.rx_ipv4_header.build_skb'
BASE_ID = 'local-20261203-101500-4f1a2b'
BANNER = f'1 new failure since {BASE_ID}: x86_64 {NAPI}'


@pytest.fixture(autouse=True)
def recorded_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_main, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')


def test_the_comparison_of_the_saved_pair() -> None:
    comp = baseline.compare(read_dir(PAIR / 'run')[0], read_dir(PAIR / 'baseline')[0])
    assert comp.run_id == BASE_ID
    cases: Set[Tuple[str, str, Change, str, str]] = {
        (c.arch, c.case, c.kind, c.before, c.after) for c in comp.cases}
    assert cases == {('x86_64', NAPI, Change.NEW_FAIL, 'PASS', 'FAIL'),
                     ('powerpc32', FRAG, Change.FIXED, 'FAIL', 'PASS'),
                     ('x86_64', SANE, Change.NEW, '', 'PASS'),
                     ('powerpc32', SANE, Change.NEW, '', 'PASS'),
                     ('x86_64', BUILD, Change.GONE, 'PASS', ''),
                     ('powerpc32', BUILD, Change.GONE, 'PASS', '')}
    cells = {(c.row[0], c.arch, c.kind, c.before, c.after) for c in comp.cells}
    assert cells == {('napi_alloc_skb', 'x86_64', Change.NEW_FAIL, '64/2/0', '66/0/2'),
                     ('page_pool_frag', 'powerpc32', Change.FIXED, '256/2/0', '258/0/2'),
                     ('build_skb', 'x86_64', Change.GONE, '64/2/0', ''),
                     ('build_skb', 'powerpc32', Change.GONE, '34/0/2', '')}
    assert comp.summary().startswith(BANNER + '; also 1 fixed, 2 new, 2 gone')


def test_the_comparison_the_other_way_round() -> None:
    """The run as the baseline of the baseline: each change turns into its opposite."""
    comp = baseline.compare(read_dir(PAIR / 'baseline')[0], read_dir(PAIR / 'run')[0])
    kinds = {(c.arch, c.case): c.kind for c in comp.cases}
    assert kinds == {('x86_64', NAPI): Change.FIXED, ('powerpc32', FRAG): Change.NEW_FAIL,
                     ('x86_64', SANE): Change.GONE, ('powerpc32', SANE): Change.GONE,
                     ('x86_64', BUILD): Change.NEW, ('powerpc32', BUILD): Change.NEW}


def test_nothing_changed_says_so() -> None:
    run = read_dir(PAIR / 'run')[0]
    comp = baseline.compare(run, read_dir(PAIR / 'run')[0])
    assert not comp.cases and not comp.cells and not comp.arches
    assert comp.summary() == 'no new failure since local-20261204-091200-9c3d5e; nothing changed'


@pytest.mark.parametrize('before, after, kind', [
    ('PASS', 'FAIL', Change.NEW_FAIL), ('SKIP', 'CRASH', Change.NEW_FAIL),
    ('PASS', 'MISSING', Change.NEW_FAIL), ('PASS', 'XFAIL', Change.NEW_FAIL),
    # issue 41 item 9: a known failure still fails: a rule came or went, not the kernel
    ('XFAIL', 'FAIL', Change.CHANGED), ('FAIL', 'XFAIL', Change.CHANGED),
    ('PASS', baseline.SILENT_SKIP, Change.NEW_FAIL), ('', 'FAIL', Change.NEW_FAIL),
    ('FAIL', 'SKIP', Change.FIXED), ('PASS', 'SKIP', Change.CHANGED),
    ('FAIL', 'CRASH', Change.CHANGED), ('', 'PASS', Change.NEW), ('FAIL', '', Change.GONE),
    ('PASS', 'PASS', None)])
def test_each_kind_of_change(before: str, after: str, kind: Change) -> None:
    assert baseline._case_kind(before, after) == kind


def report(out: Path, *args: str) -> int:
    return report_main.main(['--out', str(out), *args, str(PAIR / 'run')])


def test_the_banner_says_what_changed_and_the_gate_stays(tmp_path: Path) -> None:
    with_base, without = tmp_path / 'with', tmp_path / 'without'
    assert report(with_base, '--baseline', str(PAIR / 'baseline')) == Exit.TEST_FAILED
    assert report(without) == Exit.TEST_FAILED
    md = (with_base / 'report.md').read_text()
    top = md.split('\n## ')[0]
    assert f'**exit 1: a test failed (x86_64 failed)**\n\n**{BANNER};' in top
    assert 'since' not in (without / 'report.md').read_text().split('\n## ')[0]
    root = Dom((with_base / 'report.html').read_text()).root
    assert by_id(root, 'gate').text() == 'exit 1: a test failed (x86_64 failed)'
    assert by_id(root, 'since').text().startswith(BANNER)
    changes = by_id(root, 'changes')
    rows = changes.all(lambda n: n.tag == 'tr' and 'data-change' in n.attrs)
    assert [r.attrs['data-change'] for r in rows] == ['new-fail', 'fixed', 'new', 'new',
                                                      'gone', 'gone']
    assert f'new-fail x86_64 {NAPI} PASS FAIL' == rows[0].text()


def test_the_baseline_marks_the_offset_cells(tmp_path: Path) -> None:
    out = tmp_path / 'out'
    report(out, '--baseline', str(PAIR / 'baseline'))
    root = Dom((out / 'report.html').read_text()).root
    differ = by_id(root, 'paths-differ')
    cells = differ.all(lambda n: n.tag == 'td' and 'data-change' in n.attrs)
    assert sorted((c.attrs['data-row'], c.attrs['data-arch'], c.attrs['data-change'])
                  for c in cells) == [('napi_alloc_skb ipv4', 'x86_64', 'new-fail'),
                                      ('page_pool_frag ipv4', 'powerpc32', 'fixed')]
    napi = next(c for c in cells if c.attrs['data-arch'] == 'x86_64')
    assert napi.text() == '66 · 0 · 2 new-fail (was 64/2/0)' and 'fit-off' in napi.classes()
    md = (out / 'report.md').read_text()
    assert '| napi_alloc_skb | ipv4 | ✗ 66 / 0 / 2 **new-fail** (was 64/2/0) | 34 / 0 / 2 |' in md
    assert f'Gone since {BASE_ID}: build_skb ipv4' in md


@pytest.mark.parametrize('make, words', [
    (lambda d: d.mkdir(), 'no results.json there'),
    (lambda d: (d.mkdir(), (d / 'results.json').write_text('[1, 2]')), 'unknown format'),
    (lambda d: (d.mkdir(), (d / 'results.json').write_text('{"meta": {}, "arches": '
                                                           '{"x86_64": {"arch": "x86_64", '
                                                           '"status": "green"}}}')),
     "'green'"),
])
def test_a_baseline_that_is_no_results_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, words: str) -> None:
    bad = tmp_path / 'old'
    make(bad)   # type: ignore[operator]
    out = tmp_path / 'out'
    assert report(out, '--baseline', str(bad)) == Exit.USAGE
    err = capsys.readouterr().err
    assert words in err and '--baseline none' in err and 'Traceback' not in err
    assert not out.exists()


def results_at(root: Path, name: str, tree: str, arches: List[str], finished: str,
               run_id: str = '', patches: Optional[List[str]] = None, kernel: str = '6.12',
               suites: str = '') -> Path:
    d = root / name
    d.mkdir(parents=True)
    meta = {'tree': tree, 'arches': arches, 'finished': finished, 'run_id': run_id or name,
            'kernel': kernel, 'suites': suites}
    if patches is not None:
        meta['patches'] = patches
    (d / 'results.json').write_text(json.dumps({'meta': meta, 'arches': {}}))
    return d


def meta_of(tree: str, arches: List[str], run_id: str, patches: Tuple[str, ...] = (),
            kernel: str = '6.12', suites: str = '') -> RunMeta:
    return RunMeta(tree=tree, head='', tree_hash='', series='', run_id=run_id,
                   arches=tuple(arches), finished='', kernel=kernel, patches=patches,
                   suites=suites)


def chosen(root: Path, of: RunMeta) -> Optional[Path]:
    found = baseline.previous(root, of, lambda m: None)
    return found[0] if found else None


def test_run_kunit_takes_the_previous_run_of_the_same_tree_and_arches(tmp_path: Path) -> None:
    root = tmp_path / 'kunit-results'
    tree = 'linux-source-6.12 6.12.118 + tree fix 0001-x'
    older = results_at(root, '20261201-100000', tree, ['x86_64', 'powerpc32'],
                       '2026-12-01T10:05:00+00:00', patches=[])
    newer = results_at(root, '20261202-100000', 'linux-source-6.12 6.12.118',
                       ['powerpc32', 'x86_64'], '2026-12-02T10:05:00+00:00', patches=[])
    results_at(root, '20261203-100000', tree, ['x86_64'], '2026-12-03T10:05:00+00:00',
               patches=[])
    results_at(root, '20261203-110000', '/home/me/net-next', ['x86_64', 'powerpc32'],
               '2026-12-03T11:05:00+00:00', patches=[])
    (root / '20261203-120000').mkdir()
    (root / '20261203-120000' / 'results.json').write_text('{half writ')
    os.symlink('20261203-110000', root / 'latest')     # another tree: never trusted
    both = ['x86_64', 'powerpc32']
    assert chosen(root, meta_of(tree, both, 'now')) == newer
    assert chosen(root, meta_of(tree, both, '20261202-100000')) == older
    assert chosen(root, meta_of(tree, ['arm64'], 'now')) is None
    assert chosen(tmp_path / 'none', meta_of(tree, ['x86_64'], 'now')) is None


def test_the_default_baseline_is_of_the_same_patches_and_kernel(tmp_path: Path) -> None:
    """Item 9: a --patches run was picked as the next plain run's baseline
    (its new failures read as "fixed"); and a run of another kernel."""
    root = tmp_path / 'kunit-results'
    tree, both = 'linux-source-6.12 6.12.118', ['x86_64', 'powerpc32']
    plain = results_at(root, '1', tree, both, '2026-12-01T10:00:00+00:00', patches=[])
    patched = results_at(root, '2', tree, both, '2026-12-02T10:00:00+00:00',
                         patches=['mutation.patch 1234'])
    results_at(root, '3', tree, both, '2026-12-03T10:00:00+00:00', patches=['other.patch 99'])
    results_at(root, '4', tree, both, '2026-12-04T10:00:00+00:00', patches=[], kernel='7.3')
    results_at(root, '5', tree, both, '2026-12-05T10:00:00+00:00')   # did not say: passed over
    assert chosen(root, meta_of(tree, both, 'now')) == plain
    assert chosen(root, meta_of(tree, both, 'now', ('mutation.patch 1234',))) == patched
    assert chosen(root, meta_of(tree, both, 'now', ('third.patch 7',))) == plain


def test_a_drivers_run_is_no_plain_runs_baseline(tmp_path: Path) -> None:
    """CI on 2026-12-07: `run-kunit --drivers` right after the plain run was
    compared with it ("also 30 new, 345 gone"): other suites, other cases."""
    root = tmp_path / 'kunit-results'
    tree, both = 'linux-source-6.12 6.12.118', ['x86_64', 'powerpc32']
    plain_glob, drivers_glob = 'net_rx_align_[a-c]*', 'net_rx_align_drivers*'
    plain = results_at(root, '1', tree, both, '2026-12-01T10:00:00+00:00', patches=[],
                       suites=plain_glob)
    drivers = results_at(root, '2', tree, both, '2026-12-02T10:00:00+00:00', patches=[],
                         suites=drivers_glob)
    assert chosen(root, meta_of(tree, both, 'now', suites=plain_glob)) == plain
    assert chosen(root, meta_of(tree, both, 'now', suites=drivers_glob)) == drivers


Run = Callable[..., int]


@pytest.fixture
def kunit_run(monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
              tmp_path: Path) -> Run:
    """run-kunit on the fake tree in @tmp_path, its results in kunit-results/
    there: run(ktap, *args), the run id r-<ktap>-<number of args>."""
    from rxalign import deps
    monkeypatch.setattr(deps, 'ensure_packages', lambda pkgs, log: None)
    monkeypatch.setattr(deps, 'check_arch_tools', lambda arch: None)
    (tmp_path / 'no-series').mkdir()
    monkeypatch.setattr(run_kunit, 'SERIES_DIR', tmp_path / 'no-series')
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')
    monkeypatch.chdir(tmp_path)

    def run(ktap: str, *args: str) -> int:
        monkeypatch.setenv('RXALIGN_FAKE', 'pass' if ktap == 'pass' else 'fail')
        monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path(ktap)))
        return run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                               '--run-id', f'r-{ktap}-{len(args)}', *args])
    return run


def test_run_kunit_compares_with_its_previous_run(kunit_run: Run, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    run = kunit_run
    assert run('pass') == Exit.OK
    first = (tmp_path / 'kunit-results/latest').resolve()
    assert 'since' not in (first / 'report.md').read_text().split('\n## ')[0]
    shutil.move(str(first), str(first.parent / '20000101-000000'))   # an older name
    assert run('fail') == Exit.TEST_FAILED
    out = capsys.readouterr().out
    assert '1 new failure since r-pass-0: x86_64 net_rx_align_alloc.rx_napi_alloc' in out
    second = (tmp_path / 'kunit-results/latest').resolve()
    assert 'new failure since r-pass-0' in (second / 'report.html').read_text()
    shutil.rmtree(tmp_path / 'kunit-results' / '20000101-000000')
    # --baseline none: no comparison, although a previous run is there
    assert run('fail', '--baseline', 'none', '--out', 'kunit-results/third') == Exit.TEST_FAILED
    assert 'since' not in capsys.readouterr().out


def test_a_report_made_again_keeps_its_changes_since(kunit_run: Run, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43.8: `scripts/report DIR` of a run that had compared itself with
    the previous one wrote the reports again without their "changes since"
    section: the results did not say which run that was. They name it
    (meta.baseline, from their directory), in place and into --out alike;
    --baseline none still turns it off. Seen failing on the code before: no
    section after `scripts/report DIR`."""
    assert kunit_run('pass') == Exit.OK
    first = (tmp_path / 'kunit-results/latest').resolve()
    shutil.move(str(first), str(first.parent / '20000101-000000'))   # both in one second
    assert kunit_run('fail') == Exit.TEST_FAILED
    second = (tmp_path / 'kunit-results/latest').resolve()
    meta = json.loads((second / 'results.json').read_text())['meta']
    assert (second / meta['baseline'] / 'results.json').is_file()
    since = '## Changes since r-pass-0'
    assert since in (second / 'report.md').read_text()
    capsys.readouterr()
    assert report_main.main([str(second)]) == Exit.TEST_FAILED
    assert since in (second / 'report.md').read_text()
    assert '1 new failure since r-pass-0' in capsys.readouterr().out
    elsewhere = tmp_path / 'elsewhere' / 'again'
    assert report_main.main(['--out', str(elsewhere), str(second)]) == Exit.TEST_FAILED
    assert since in (elsewhere / 'report.md').read_text()
    again = json.loads((elsewhere / 'results.json').read_text())['meta']
    assert (elsewhere / again['baseline']).resolve() == (second / meta['baseline']).resolve()
    assert report_main.main(['--baseline', 'none', str(second)]) == Exit.TEST_FAILED
    assert since not in (second / 'report.md').read_text()


def test_run_kunit_refuses_a_wrong_baseline_before_any_work(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert run_kunit.main(['--arch', 'x86_64', '--baseline', str(tmp_path / 'nothing')]) \
        == Exit.USAGE
    assert 'no results.json there' in capsys.readouterr().err
    assert not (tmp_path / 'kunit-results').exists()


def test_results_json_names_logs_relative_to_its_directory(parser: ModuleType,
                                                          tmp_path: Path) -> None:
    """results.json held absolute paths: a directory moved or copied off a CI runner
    pointed at logs that were not there."""
    run = json.loads((PAIR / 'run' / 'results.json').read_text())
    assert run['arches']['x86_64']['logs'] == {'build': 'x86_64/build.log',
                                               'ktap': 'x86_64/ktap.log'}
    assert run['arches']['x86_64']['cause'].endswith('(see x86_64/ktap.log)')
    # an old one, absolute and elsewhere, still links the logs next to it
    moved = tmp_path / 'moved'
    shutil.copytree(PAIR / 'run', moved)
    for v in run['arches'].values():
        v['logs'] = {k: f'/builds/ci/results/{p}' for k, p in v['logs'].items()}
    (moved / 'results.json').write_text(json.dumps(run))
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), str(moved)]) == Exit.TEST_FAILED
    page = (out / 'report.html').read_text()
    assert 'href="../moved/x86_64/ktap.log"' in page
    stored = json.loads((out / 'results.json').read_text())['arches']['x86_64']
    assert stored['logs']['ktap'] == '../moved/x86_64/ktap.log'


# ---- issue 41: each test below failed before its fix (see the docstring) ----

def judged(parser: ModuleType, runs: Dict[str, str], run_id: str) -> Results:
    from rxalign.declared import expected_suites
    from rxalign.results import ArchRun
    from rxalign.verdict import judge
    tests = faults.FIXTURES / 'kunit-tests'
    return Results(runs=[meta_of('t', list(runs), run_id)], arches={
        arch: judge(ArchRun(arch=arch, ktap_log=faults.path(log)), expected_suites(tests),
                    parser, 300) for arch, log in runs.items()})


@pytest.mark.parametrize('now, words', [
    ({'x86_64': 'pass', 'powerpc32': 'fail'},
     '1 new failure since then: powerpc32 net_rx_align_alloc.rx_napi_alloc'),
    ({'x86_64': 'pass', 'powerpc32': 'no_ktap'},
     '1 new failure since then: powerpc32 not in the baseline -> infra'),
    ({'x86_64': 'no_ktap'}, '1 new failure since then: x86_64 passed -> infra'),
])
def test_a_failure_the_baseline_cannot_have_had_is_new(parser: ModuleType,
                                                       now: Dict[str, str], words: str) -> None:
    """Item 9: the banner said "no new failure" when the failing arch was not
    in the baseline (or an arch lost its results)."""
    comp = baseline.compare(judged(parser, now, 'now'), judged(parser, {'x86_64': 'pass'}, 'then'))
    assert comp.summary().startswith(words), comp.summary()


def test_a_case_that_still_fails_but_is_known_now_is_not_fixed(parser: ModuleType) -> None:
    """Item 9: a case failing in the baseline and known (XFAIL) now was "fixed"."""
    from rxalign import known_failures
    now = judged(parser, {'x86_64': 'fail'}, 'now')
    known_failures.apply(now.arches['x86_64'], known_failures.parse(
        'kernel: any\nx86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n'))
    comp = baseline.compare(now, judged(parser, {'x86_64': 'fail'}, 'then'))
    assert not comp.of_kind(Change.FIXED), comp.cases
    assert comp.summary().startswith('no new failure since then'), comp.summary()
