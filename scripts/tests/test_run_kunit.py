"""run-kunit end to end on a fake tree whose kunit.py replays saved logs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Tuple

import pytest

from rxalign import deps, run_kunit
from rxalign.cache import Cache, Lock
from rxalign.exitcodes import Exit, HarnessError

import faults


@pytest.fixture(autouse=True)
def no_installs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No apt, and no kernel series: the fake tree has none of the files it patches."""
    monkeypatch.setattr(deps, 'ensure_packages', lambda pkgs, log: None)
    monkeypatch.setattr(deps, 'check_arch_tools', lambda arch: None)
    (tmp_path / 'no-series').mkdir()
    monkeypatch.setattr(run_kunit, 'SERIES_DIR', tmp_path / 'no-series')


def run(monkeypatch: pytest.MonkeyPatch, tree: Path, out: Path, ktap: str, mode: str = 'pass',
        args: Tuple[str, ...] = ('--arch', 'x86_64')) -> int:
    monkeypatch.setenv('RXALIGN_FAKE', mode)
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path(ktap)))
    return run_kunit.main(['--tree', str(tree), '--out', str(out), '--timeout', '1', *args])


def leftovers(out: Path) -> List[str]:
    return [p.name for p in out.parent.iterdir() if p.name.endswith('.partial')]


def test_pass_writes_results(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                             cache_root: Path, tmp_path: Path) -> None:
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
    for f in ('report.md', 'report.html', 'junit.xml', 'kcidb.json', 'results.json',
              'x86_64/ktap.log', 'x86_64/build.log',
              'x86_64/verdict.json'):
        assert (out / f).exists(), f
    data = json.loads((out / 'results.json').read_text())
    assert data['arches']['x86_64']['status'] == 'passed'
    assert data['arches']['x86_64']['facts']['net_ip_align'] == '0'
    assert not leftovers(out)


@pytest.mark.parametrize('ktap, mode, status, words', [
    ('fail', 'fail', Exit.TEST_FAILED, ['1 failed', 'napi_alloc_skb len=60']),
    ('panic_mid_suite', 'fail', Exit.INFRA, ['Kernel panic', 'ktap.log']),
    ('no_ktap', 'fail', Exit.INFRA, ['no KTAP output']),
    ('truncated', 'hang', Exit.INFRA, ['no result within --timeout 1s']),
    ('pass', 'buildfail', Exit.INFRA, ['build failed', 'error: expected', 'build.log']),
])
def test_faults_have_their_status_and_one_line_cause(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, ktap: str, mode: str, status: Exit,
        words: List[str]) -> None:
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, ktap, mode) == status
    err = capsys.readouterr().err
    for w in words:
        assert w in err, (w, err)
    assert 'x86_64' in err and (out / 'results.json').exists()
    # the logs it names are where they ended up
    assert '.partial' not in err and '.partial' not in (out / 'report.md').read_text()


def test_one_crashed_arch_keeps_the_others(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                           cache_root: Path, tmp_path: Path) -> None:
    monkeypatch.setenv('RXALIGN_FAKE_KTAP_powerpc32', str(faults.path('panic_mid_suite')))
    out = tmp_path / 'out'
    status = run(monkeypatch, fake_tree, out, 'pass', 'fail',
                 ('--arch', 'x86_64,powerpc32'))
    assert status == Exit.INFRA
    arches = json.loads((out / 'results.json').read_text())['arches']
    assert arches['x86_64']['status'] == 'passed'
    assert arches['powerpc32']['status'] == 'infra'


def test_an_arch_that_cannot_run_here_keeps_the_others(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    def no_firmware(arch: object) -> None:
        if getattr(arch, 'name') == 'riscv':
            raise HarnessError(Exit.ENVIRONMENT, 'riscv: QEMU firmware /usr/share/qemu/'
                               'opensbi-riscv64-generic-fw_dynamic.bin is missing; apt-get '
                               'install qemu-system-data')
    monkeypatch.setattr(deps, 'check_arch_tools', no_firmware)
    out = tmp_path / 'out'
    status = run(monkeypatch, fake_tree, out, 'pass', args=('--arch', 'x86_64,riscv'))
    assert status == Exit.ENVIRONMENT
    arches = json.loads((out / 'results.json').read_text())['arches']
    assert arches['x86_64']['status'] == 'passed'
    assert arches['riscv']['status'] == 'environment' and not arches['riscv']['cases']
    assert 'riscv: QEMU firmware' in capsys.readouterr().err
    assert '| riscv | environment |' in (out / 'report.md').read_text()


def test_no_arch_can_run_here_stops_before_the_tree(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    def nothing(arch: object) -> None:
        raise HarnessError(Exit.ENVIRONMENT, 'no compiler')
    monkeypatch.setattr(deps, 'check_arch_tools', nothing)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.ENVIRONMENT
    assert not out.exists() and not leftovers(out)


def test_a_rerun_with_nothing_changed_boots_without_building(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    def calls() -> List[str]:
        logs = list(cache_root.glob('build/*/x86_64/calls.log'))
        return logs[0].read_text().split() if logs else []
    assert run(monkeypatch, fake_tree, tmp_path / 'a', 'pass') == Exit.OK
    assert calls() == ['config', 'make', 'exec']
    assert run(monkeypatch, fake_tree, tmp_path / 'b', 'pass') == Exit.OK
    assert calls()[3:] == ['exec']
    assert 'were not run' in (tmp_path / 'b/x86_64/build.log').read_text()
    # a changed source file is a new tree: built again, by make alone while
    # the config inputs are those of the last good build
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass') == Exit.OK
    assert calls()[4:] == ['make', 'exec']
    assert 'kunit.py config was not run' in (tmp_path / 'c/x86_64/build.log').read_text()
    # a changed config input: kunit.py configures and builds again
    monkeypatch.setattr(run_kunit, 'SLIM', tmp_path / 'no-slim.config')
    (tmp_path / 'no-slim.config').write_text('# CONFIG_SOUND is not set\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'd', 'pass') == Exit.OK
    assert calls()[6:] == ['config', 'make', 'exec']


def test_a_make_that_drops_a_kunitconfig_line_fails_config(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """make re-syncs .config after a Kconfig change; a kunitconfig line lost on
    the way fails the run as kunit.py's own check would, and the next run
    configures from scratch."""
    def calls() -> List[str]:
        return next(cache_root.glob('build/*/x86_64/calls.log')).read_text().split()
    assert run(monkeypatch, fake_tree, tmp_path / 'a', 'pass') == Exit.OK
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    monkeypatch.setenv('RXALIGN_FAKE_MAKE', 'drop')
    assert run(monkeypatch, fake_tree, tmp_path / 'b', 'pass') == Exit.INFRA
    assert 'x86_64: kunit.py config failed: Missing: CONFIG_KUNIT=y' in capsys.readouterr().err
    monkeypatch.delenv('RXALIGN_FAKE_MAKE')
    assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass') == Exit.OK
    assert calls()[3:] == ['make', 'config', 'make', 'exec']


def test_a_failed_build_is_never_up_to_date(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    assert run(monkeypatch, fake_tree, tmp_path / 'a', 'pass') == Exit.OK
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'b', 'pass', 'buildfail') == Exit.INFRA
    # the old kernel is still there, but it is not the one these sources make
    assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass', 'buildfail') == Exit.INFRA


def test_patch_that_does_not_apply(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str], fake_tree: Path,
                                   cache_root: Path, tmp_path: Path) -> None:
    bad = tmp_path / 'bad.patch'
    bad.write_text('From: x <x@y>\nSubject: [PATCH] bad\n\n---\n--- a/net/nope.c\n'
                   '+++ b/net/nope.c\n@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n')
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64', '--patches', str(bad))) == Exit.PATCH
    assert 'bad.patch' in capsys.readouterr().err
    assert not out.exists() and not leftovers(out)


def test_missing_patch_file_is_usage(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                     cache_root: Path, tmp_path: Path) -> None:
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass',
               args=('--patches', str(tmp_path / 'nope.patch'))) == Exit.USAGE


def test_a_second_run_on_the_same_cache_is_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    with Lock(Cache(cache_root)):
        assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.BUSY
    assert 'RXALIGN_CACHE' in capsys.readouterr().err


def test_ctrl_c_leaves_nothing_half_written(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                            cache_root: Path, tmp_path: Path) -> None:
    def interrupted(*args: object, **kw: object) -> None:
        raise KeyboardInterrupt
    out = tmp_path / 'out'
    with monkeypatch.context() as m:
        m.setattr(run_kunit, 'run_arch', interrupted)
        assert run(monkeypatch, fake_tree, out, 'pass') == Exit.INTERRUPTED
    assert not out.exists() and not leftovers(out)
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
