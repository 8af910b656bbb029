"""run-kunit end to end on a fake tree whose kunit.py replays saved logs."""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from rxalign import (arch_verdict, checkout, deps, kconfig, kernels, kunit_driver, procs,
                     run_kunit, tree)
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
    # the saved logs come from the suite as it was then
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')


def run(monkeypatch: pytest.MonkeyPatch, tree: Path, out: Path, ktap: str, mode: str = 'pass',
        args: Tuple[str, ...] = ('--arch', 'x86_64')) -> int:
    monkeypatch.setenv('RXALIGN_FAKE', mode)
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path(ktap)))
    return run_kunit.main(['--tree', str(tree), '--out', str(out), '--timeout', '1', *args])



def leftovers(out: Path) -> List[str]:
    return [p.name for p in out.parent.iterdir() if p.name.endswith('.partial')]


def test_pass_writes_results(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                             fake_tree: Path, cache_root: Path, tmp_path: Path) -> None:
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
    # a line per suite while the guest runs, between the phase lines
    said = [line.split('] ', 1)[-1].rsplit(' (', 1)[0]
            for line in capsys.readouterr().out.splitlines() if line.startswith('[1/1 x86_64]')]
    run_phase = said[said.index('booting and running...'):]
    assert run_phase[1:4] == ['suite net_rx_align_policy: ok, 3 passed',
                              'suite net_rx_align_alloc: ok, 291 passed',
                              'suite net_rx_align_iphdr: ok, 42 passed'], said
    assert run_phase[4].startswith('booting and running done in'), said
    for f in ('report.md', 'report.html', 'junit.xml', 'kcidb.json', 'results.json',
              'x86_64/ktap.log', 'x86_64/build.log',
              'x86_64/verdict.json'):
        assert (out / f).exists(), f
    data = json.loads((out / 'results.json').read_text())
    assert data['arches']['x86_64']['status'] == 'passed'
    assert data['arches']['x86_64']['facts']['net_ip_align'] == '0'
    assert not leftovers(out)


def test_each_log_is_parsed_once_for_the_verdict_and_kunit_json(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    """Issue 43.3: kunit_parser read each console log twice, for kunit.json
    (run_arch) and for the verdict (judge), each parse in a child process of
    its own; now once, and kunit.json is written from that parse. Seen
    failing on the code before: two parses of the one log."""
    parses: List[int] = []
    real = procs.bounded

    def counted(fn: Any, *args: Any, **kwargs: Any) -> Any:
        parses.append(len(args[0]))
        return real(fn, *args, **kwargs)
    monkeypatch.setattr(kunit_driver, 'bounded', counted)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
    assert len(parses) == 1, parses
    suites = json.loads((out / 'x86_64/kunit.json').read_text())['sub_groups']
    assert [g['name'] for g in suites][:2] == ['net_rx_align_policy', 'net_rx_align_alloc']


def test_each_arch_config_is_kept_and_linked(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                             cache_root: Path, tmp_path: Path) -> None:
    """Issue 43.8: the report did not say how each kernel was configured; the
    .config lived only in the cache's build dir, which the next run changes.
    It is copied to <arch>/config and linked beside build.log and ktap.log.
    Seen failing on the code before: no x86_64/config."""
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
    assert 'CONFIG_KUNIT=y' in (out / 'x86_64/config').read_text()
    md = (out / 'report.md').read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith('| x86_64 | passed'))
    assert '[config](x86_64/config)' in row
    assert '<a href="x86_64/config">config</a>' in (out / 'report.html').read_text()


def test_the_results_say_how_to_run_it_again(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                              cache_root: Path, tmp_path: Path) -> None:
    """Issue 43.8: the report named the tree, not how to run it again: the
    command (as TuxRun prints one: the tree, the arches, --patches and each
    option that changes what is built or judged) and the rx-align commit
    that ran it. Seen failing on the code before: results.json had no
    command or rxalign, the report neither line."""
    pad = tmp_path / 'pad.patch'
    pad.write_text('From: x <x@y>\nSubject: [PATCH] pad\n\n---\n--- a/net/core/skbuff.c\n'
                   '+++ b/net/core/skbuff.c\n@@ -1 +1 @@\n-int skb_pad = 32;\n'
                   '+int skb_pad = 33;\n-- \n2.39.5\n')
    rules = tmp_path / 'expected.txt'
    rules.write_text('# none\n')
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass', args=(
        '--arch', 'x86_64', '--patches', str(pad), '--expected', str(rules))) == Exit.OK
    meta = json.loads((out / 'results.json').read_text())['meta']
    assert shlex.split(meta['command']) == [
        'scripts/run-kunit', '--tree', str(fake_tree.resolve()), '--arch', 'x86_64',
        '--patches', str(pad.resolve()), '--expected', str(rules.resolve()), '--timeout=1']
    assert meta['rxalign'] == checkout.commit()     # '' outside a git checkout
    md = (out / 'report.md').read_text()
    assert f'command: `{meta["command"]}`' in md
    assert ('rx-align: ' in md) == bool(meta['rxalign'])


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


@pytest.mark.parametrize('rule, status', [('x86_64: *  # no compiler here', Exit.OK),
                                          ('riscv: *  # another arch', Exit.ENVIRONMENT)])
def test_an_arch_expected_not_to_run_is_known_even_alone(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, rule: str, status: Exit) -> None:
    """A CI job per arch (ci-templates/) gets a report and exit 0 for an arch
    the expected file says cannot run, and the rule must name that arch."""
    def nothing(arch: object) -> None:
        raise HarnessError(Exit.ENVIRONMENT, 'the compiler miscompiles the probe')
    monkeypatch.setattr(deps, 'check_arch_tools', nothing)
    expected = tmp_path / 'expected'
    expected.write_text('kernel: any\n' + rule + '\n')
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64', '--expected', str(expected))) == status
    if status == Exit.OK:
        data = json.loads((out / 'results.json').read_text())
        assert data['arches']['x86_64']['status'] == 'known'
        captured = capsys.readouterr()
        assert 'known, not gating: the compiler miscompiles' in captured.out
        assert 'error' not in captured.err
    else:
        assert not out.exists()


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
    # and the run after it too: a build skipped keeps the stamp that skipped it
    assert run(monkeypatch, fake_tree, tmp_path / 'b2', 'pass') == Exit.OK
    assert calls()[4:] == ['exec']
    # a changed source file is a new tree: built again, by make alone while
    # the config inputs are those of the last good build
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass') == Exit.OK
    assert calls()[5:] == ['make', 'exec']
    assert 'kunit.py config was not run' in (tmp_path / 'c/x86_64/build.log').read_text()
    # a changed config input: kunit.py configures and builds again
    monkeypatch.setattr(kconfig, 'SLIM', tmp_path / 'no-slim.config')
    (tmp_path / 'no-slim.config').write_text('# CONFIG_SOUND is not set\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'd', 'pass') == Exit.OK
    assert calls()[7:] == ['config', 'make', 'exec']


def test_a_first_build_skips_ccache_and_the_builds_after_it_use_it(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    """ccache costs a first build a preprocessor pass per object and pays off
    only when a tree changes back; a build that failed built nothing."""
    def ccache() -> List[str]:
        return next(cache_root.glob('build/*/x86_64/ccache.log')).read_text().split()
    assert run(monkeypatch, fake_tree, tmp_path / 'a', 'pass', 'buildfail') == Exit.INFRA
    assert run(monkeypatch, fake_tree, tmp_path / 'b', 'pass') == Exit.OK
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass') == Exit.OK
    assert ccache() == ['off', 'off', 'on'], ccache()


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


@pytest.mark.parametrize('bad', [
    ('--tree', '{tmp}/nonexistent', 'is not a kernel tree'),
    ('--expected', '{tmp}/nonexistent', '--expected'),
    ('--patches', '{tmp}/nonexistent.patch', '--patches'),
    ('--arch', 'vax', "unknown arch 'vax'"),
    ('--timeout', '0', '--timeout'),
])
def test_bad_arguments_are_said_before_the_cache_lock(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, bad: Tuple[str, str, str]) -> None:
    """A typo is exit 2 whether or not another run holds the cache, not exit 6."""
    option, value, said = bad[0], bad[1].format(tmp=tmp_path), bad[2]
    args = ['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1', option, value]
    with Lock(Cache(cache_root)):
        assert run_kunit.main([*args, '--out', str(tmp_path / 'out')]) == Exit.USAGE
    err = capsys.readouterr().err
    assert said in err and 'in use by' not in err, err
    assert not (tmp_path / 'out').exists() and not leftovers(tmp_path / 'out')


def test_ctrl_c_leaves_nothing_half_written(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                            cache_root: Path, tmp_path: Path) -> None:
    def interrupted(*args: object, **kw: object) -> None:
        raise KeyboardInterrupt
    out = tmp_path / 'out'
    with monkeypatch.context() as m:
        m.setattr(arch_verdict, 'run_arch', interrupted)
        assert run(monkeypatch, fake_tree, out, 'pass') == Exit.INTERRUPTED
    assert not out.exists() and not leftovers(out)
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK


# ---- issue 16: each test below failed before its fix (see the docstring) ----

def test_out_never_deletes_what_is_there(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                         cache_root: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Item 1: `--out DIR` ran shutil.rmtree on an existing directory: `--out .`
    in a git checkout replaced it, .git included, and the run exited 0."""
    checkout = tmp_path / 'checkout'
    (checkout / '.git').mkdir(parents=True)
    (checkout / '.git' / 'HEAD').write_text('ref: refs/heads/main\n')
    (checkout / 'notes.txt').write_text('mine\n')
    monkeypatch.chdir(checkout)
    assert run(monkeypatch, fake_tree, Path('.'), 'pass') == Exit.USAGE
    assert (checkout / '.git' / 'HEAD').read_text() == 'ref: refs/heads/main\n'
    assert (checkout / 'notes.txt').read_text() == 'mine\n'
    assert 'not empty' in capsys.readouterr().err
    assert not (cache_root / 'trees').exists()   # refused before any work
    # an empty directory (a CI that made it) is fine, and a new one is made
    (tmp_path / 'empty').mkdir()
    assert run(monkeypatch, fake_tree, tmp_path / 'empty', 'pass') == Exit.OK
    assert (tmp_path / 'empty' / 'results.json').is_file()
    assert run(monkeypatch, fake_tree, tmp_path / 'new/dir', 'pass') == Exit.OK


@pytest.mark.parametrize('out', ['file', '/', '/proc/rx-align-out'])
def test_an_impossible_out_is_a_usage_error_before_the_run(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], out: str) -> None:
    """Item 7: `--out FILE` (after the whole run, results discarded), `--out /`,
    `--out /proc/x` were Python tracebacks, exit 1 ("a test failed")."""
    (tmp_path / 'file').write_text('mine\n')
    path = tmp_path / out if out == 'file' else Path(out)
    assert run(monkeypatch, fake_tree, path, 'pass') == Exit.USAGE
    err = capsys.readouterr().err
    assert '--out' in err and 'Traceback' not in err
    assert (tmp_path / 'file').read_text() == 'mine\n'
    assert not (cache_root / 'trees').exists()


def test_a_real_directory_at_latest_is_left_alone(monkeypatch: pytest.MonkeyPatch,
                                                  fake_tree: Path, cache_root: Path,
                                                  tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Item 7: a real directory at kunit-results/latest was a traceback after the run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'kunit-results/latest').mkdir(parents=True)
    (tmp_path / 'kunit-results/latest/mine').write_text('mine\n')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    status = run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1'])
    assert status == Exit.USAGE
    assert 'kunit-results/latest' in capsys.readouterr().err
    assert (tmp_path / 'kunit-results/latest/mine').read_text() == 'mine\n'


def test_an_internal_error_has_its_own_status(monkeypatch: pytest.MonkeyPatch,
                                              fake_tree: Path, cache_root: Path,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Item 7: a bug of ours was a traceback with exit 1, which means "a test failed"."""
    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError('a bug of ours')
    monkeypatch.setattr(arch_verdict, 'judge', broken)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.INTERNAL
    err = capsys.readouterr().err
    assert 'internal error' in err and 'a bug of ours' in err
    assert not out.exists() and not leftovers(out)


@pytest.mark.parametrize('spec', ['', ' , '])
def test_an_empty_arch_list_is_a_usage_error(monkeypatch: pytest.MonkeyPatch, fake_tree: Path,
                                             cache_root: Path, tmp_path: Path,
                                             spec: str) -> None:
    """Item 9: `--arch ''` (an unset CI variable) silently ran the default arches."""
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass',
               args=('--arch', spec)) == Exit.USAGE
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('content, words', [
    ('', 'is empty'),
    ('just some notes\n', 'not a patch'),
])
def test_a_patches_file_that_is_no_patch_is_refused_up_front(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, content: str, words: str) -> None:
    """--patches with an empty or non-patch file was caught only after the tree
    was prepared, with "rebase it"."""
    bad = tmp_path / 'my.patch'
    bad.write_text(content)
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass',
               args=('--arch', 'x86_64', '--patches', str(bad))) == Exit.USAGE
    err = capsys.readouterr().err
    assert words in err and 'my.patch' in err and 'rebase' not in err
    assert not (cache_root / 'trees').exists()


def exec_args(cache_root: Path) -> List[str]:
    return next(cache_root.glob('build/*/x86_64/exec-args.log')).read_text().split()


def test_a_panic_ends_the_run_and_is_the_cause(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str],
                                               fake_tree: Path, cache_root: Path,
                                               tmp_path: Path) -> None:
    """A kernel that panicked kept QEMU spinning until --timeout, and the cause
    read "no result within --timeout" although the log held the panic."""
    start = time.monotonic()
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'panic_mid_suite', 'spin',
               args=('--arch', 'x86_64', '--timeout', '60')) == Exit.INFRA
    assert time.monotonic() - start < 15
    err = capsys.readouterr().err
    assert 'Kernel panic - not syncing: Fatal exception in interrupt' in err
    assert 'net_rx_align_alloc.rx_napi_alloc after "napi_alloc_skb len=1"' in err
    assert 'panic=-1' in ' '.join(exec_args(cache_root))


def test_a_silent_guest_is_stopped_as_hung(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str],
                                           fake_tree: Path, cache_root: Path,
                                           tmp_path: Path) -> None:
    """A guest that printed nothing more ran until the 300 s --timeout."""
    start = time.monotonic()
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'truncated', 'spin',
               args=('--arch', 'x86_64', '--timeout', '60', '--idle-timeout', '2')) == Exit.INFRA
    assert time.monotonic() - start < 15
    err = capsys.readouterr().err
    assert 'hung' in err and 'no console output for 2s' in err
    assert 'net_rx_align_alloc.rx_napi_alloc after "napi_alloc_skb len=1"' in err


def test_results_and_cache_inside_the_tree_are_not_what_it_tests(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, tmp_path: Path) -> None:
    """A kernel repository's CI writes --out and the cache inside its checkout;
    they went into run-kunit's snapshot of --tree, so each arch's job tested a
    tree of another hash and the merge could not tell one run's results from
    another's (seen with the GitLab template's kernel-repository shape)."""
    hashes = []
    for arch in ('x86_64', 'powerpc32'):
        checkout = tmp_path / f'job-{arch}'       # each CI job has its own checkout
        shutil.copytree(fake_tree, checkout)
        monkeypatch.setenv('RXALIGN_CACHE', str(checkout / f'.cache/rx-align-{arch}'))
        out = checkout / 'results' / arch
        assert run(monkeypatch, checkout, out, 'pass', args=('--arch', arch)) == Exit.OK
        hashes.append(json.loads((out / 'results.json').read_text())['meta']['tree_hash'])
    assert hashes[0] == hashes[1]


# ---- issue 24: each test below failed before its fix (see the docstring) ----

@pytest.mark.parametrize('race', ['taken', 'rename_fails'])
def test_results_are_kept_when_out_was_taken(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str],
                                             fake_tree: Path, cache_root: Path,
                                             tmp_path: Path, race: str) -> None:
    """Item 8: another run (with its own cache) took --out while this one ran,
    or the final rename failed: the staging directory, the only copy of the
    results, was deleted."""
    out = tmp_path / 'out'
    real = kunit_driver.run_arch

    def other_run_takes_out(*args: Any, **kw: Any) -> Any:
        out.mkdir()
        (out / 'results.json').write_text('{"the other run": 1}\n')
        return real(*args, **kw)

    replace = os.replace

    def rename_fails(src: Any, dst: Any) -> None:
        if Path(dst) == out:
            raise OSError(errno.EXDEV, 'Invalid cross-device link')
        replace(src, dst)

    if race == 'taken':
        monkeypatch.setattr(arch_verdict, 'run_arch', other_run_takes_out)
    else:
        monkeypatch.setattr(os, 'replace', rename_fails)
    assert run(monkeypatch, fake_tree, out, 'fail') == Exit.NOT_PLACED
    err = capsys.readouterr().err
    kept = leftovers(out)
    assert len(kept) == 1, kept
    assert str(out.parent / kept[0]) in err
    results = json.loads((out.parent / kept[0] / 'results.json').read_text())
    assert results['arches']['x86_64']['status'] == 'failed'
    if race == 'taken':
        assert (out / 'results.json').read_text() == '{"the other run": 1}\n'


def lock_groups(cache_root: Path) -> List[int]:
    lock = cache_root / 'lock'
    text = lock.read_text() if lock.exists() else ''
    return [int(ln.split()[1]) for ln in text.splitlines() if ln.startswith('group ')]


def forked_run(argv: List[str]) -> int:
    """run-kunit in a process of its own (which a signal may kill): its pid."""
    pid = os.fork()
    if pid == 0:
        code = 70
        try:
            code = run_kunit.main(argv)
        finally:
            os._exit(code)
    return pid


def guest_groups(cache_root: Path, seconds: float) -> List[int]:
    """The process groups the lock names, once a fake kunit.py's `sleep` (its
    QEMU) runs in one of them."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not any(
            'sleep' in procs.command(p) for g in lock_groups(cache_root)
            for p in procs.group_members(g)):
        time.sleep(0.2)
    groups = lock_groups(cache_root)
    assert groups, 'the fake kunit.py never started'
    return groups


def kill_groups(groups: List[int]) -> None:
    for g in groups:
        try:
            os.killpg(g, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_killed_run_keeps_the_cache_while_its_children_live(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Item 10: after SIGKILL of run-kunit, its kunit.py and QEMU kept running
    and a new run on the same cache took the lock while they ran. The fake
    kunit.py here waits on a `sleep` that stands for QEMU."""
    monkeypatch.setenv('RXALIGN_FAKE', 'spin')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('truncated')))
    # the run that gets killed
    pid = forked_run(['--tree', str(fake_tree), '--out', str(tmp_path / 'a'),
                      '--timeout', '60', '--idle-timeout', '60'])
    groups: List[int] = []
    try:
        groups = guest_groups(cache_root, 30)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        # kunit.py (holding the lock's fd) and its QEMU still run
        assert run(monkeypatch, fake_tree, tmp_path / 'b', 'pass') == Exit.BUSY
        assert 'in use' in capsys.readouterr().err
        # kunit.py dies too; its QEMU, which never had the fd, lives on
        os.kill(groups[-1], signal.SIGKILL)
        time.sleep(0.5)
        assert run(monkeypatch, fake_tree, tmp_path / 'c', 'pass') == Exit.BUSY
        assert f'kill -- -{groups[-1]}' in capsys.readouterr().err
    finally:
        kill_groups(groups)
    time.sleep(0.5)
    assert run(monkeypatch, fake_tree, tmp_path / 'd', 'pass') == Exit.OK


@pytest.mark.parametrize('how', ['SIGINT', 'SIGTERM'])
def test_an_interrupted_run_keeps_the_arches_it_finished(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, how: str) -> None:
    """Item 10: Ctrl-C or SIGTERM (a CI job cancelled) during the second arch
    deleted the first arch's complete results with the rest."""
    real = kunit_driver.run_arch

    def stopped_in_powerpc32(arch: Any, *args: Any, **kw: Any) -> Any:
        if arch.name == 'powerpc32':
            if how == 'SIGTERM':
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(5)
            raise KeyboardInterrupt
        return real(arch, *args, **kw)

    monkeypatch.setattr(arch_verdict, 'run_arch', stopped_in_powerpc32)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64,powerpc32,powerpc')) == Exit.INTERRUPTED
    data = json.loads((out / 'results.json').read_text())
    assert data['meta']['interrupted'] and not leftovers(out)
    statuses = {a: v['status'] for a, v in data['arches'].items()}
    assert statuses == {'x86_64': 'passed', 'powerpc32': 'infra', 'powerpc': 'infra'}
    assert 'interrupted' in data['arches']['powerpc']['cause']
    assert 'partial' in (out / 'report.md').read_text()
    assert '<dt>partial</dt>' in (out / 'report.html').read_text()
    assert (out / 'x86_64' / 'ktap.log').is_file()
    assert str(out) in capsys.readouterr().err


# ---- issue 41: each test below failed before its fix (see the docstring) ----

EXTRA_SUITE = '''static struct kunit_case rx_extra_cases[] = {
	KUNIT_CASE(rx_extra),
	{}
};

static struct kunit_suite rx_extra_suite = {
	.name = %s,
	.test_cases = rx_extra_cases,
};
kunit_test_suites(&rx_extra_suite);
'''


@pytest.mark.parametrize('name, header, status, said', [
    # item 14: net_rx_align_[!d]* left it out: never run, never missing, exit 0
    # (the saved logs' suite has no drivers suite to tell it from)
    ('"net_rx_align_dma_sync"', '', Exit.INFRA, 'missing net_rx_align_dma_sync'),
    # item 13: a macro of a header was exit 70; it is read, and the suite required
    ('RX_EXTRA_NAME', '#define RX_EXTRA_NAME "net_rx_align_extra"\n', Exit.INFRA,
     'missing net_rx_align_extra'),
    ('RX_EXTRA_NAME', '', Exit.USAGE, 'RX_EXTRA_NAME'),
])
def test_the_suites_to_run_and_require_are_the_declared_ones(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, name: str, header: str, status: Exit,
        said: str) -> None:
    tests = tmp_path / 'kunit-tests'
    shutil.copytree(faults.FIXTURES / 'kunit-tests', tests)
    (tests / 'rx_align_extra_kunit.c').write_text(EXTRA_SUITE % name)
    added = ' rx_align_extra_kunit.c'
    if header:
        (tests / 'rx_align_extra.h').write_text(header)
        added += ' rx_align_extra.h'
    msg = tests / 'commits' / '0001-tests.msg'      # the commit that adds them
    msg.write_text(msg.read_text().replace('Files: ', f'Files:{added} ', 1))
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', tests)
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == status
    err = capsys.readouterr().err
    assert said in err and 'Traceback' not in err, err


class MachineReached(Exception):
    """The arguments were taken: run-kunit went on to this machine's packages."""


@pytest.mark.parametrize('kernel, expected, status', [
    ('6.1', 'debian-7.3.expected', Exit.USAGE),
    ('6.12', 'debian-7.3.expected', Exit.USAGE),
    ('7.3', 'debian-7.3.expected', None),
    ('6.12', 'debian-6.12.expected', None),
])
def test_rules_of_another_kernel_are_refused_before_any_work(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        cache_root: Path, kernel: str, expected: str, status: Any) -> None:
    """Item 4: `--kernel 6.1 --expected expected/debian-7.3.expected` was
    accepted silently, and 7.3's known failures excused 6.1's."""
    from rxalign import paths

    def reached(plan: Any) -> Any:
        raise MachineReached()
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', paths.TESTS_DIR)
    monkeypatch.setattr(run_kunit, 'check_machine', reached)
    args = ['--kernel', kernel, '--arch', 'x86_64', '--out', str(tmp_path / 'out'),
            '--expected', str(paths.REPO / 'expected' / expected)]
    if status is None:
        with pytest.raises(MachineReached):
            run_kunit.run(run_kunit.parse_args(args))
        return
    assert run_kunit.main(args) == status
    err = capsys.readouterr().err
    assert f'a rule for kernel 7.3' in err and f'kernel {kernel}' in err, err
    assert not (tmp_path / 'out').exists()


def test_rules_for_a_tree_hold_on_its_makefiles_version(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Item 4: a --tree's kernel is the VERSION.PATCHLEVEL of its Makefile; a
    tree that does not say takes only `kernel: any` rules."""
    expected = tmp_path / 'expected'
    expected.write_text('kernel: 6.12\nx86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n')
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'fail',
               args=('--arch', 'x86_64', '--expected', str(expected))) == Exit.USAGE
    assert 'a kernel whose version is unknown' in capsys.readouterr().err
    (fake_tree / 'Makefile').write_text('VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n')
    assert run(monkeypatch, fake_tree, out, 'fail',
               args=('--arch', 'x86_64', '--expected', str(expected))) == Exit.OK
    assert json.loads((out / 'results.json').read_text())['meta']['kernel'] == '6.12'


def first_run_then(monkeypatch: pytest.MonkeyPatch, fake_tree: Path, tmp_path: Path,
                   spoil: Any) -> Path:
    """A plain run in kunit-results/, then @spoil(its results.json data)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    assert run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                           '--run-id', 'first']) == Exit.OK
    earlier = (tmp_path / 'kunit-results/latest').resolve()
    data = json.loads((earlier / 'results.json').read_text())
    spoil(data)
    (earlier / 'results.json').write_text(json.dumps(data))
    time.sleep(1.1)     # the next run's kunit-results/<UTC time> is another second
    return earlier


@pytest.mark.parametrize('spoil', [
    lambda r: r.update(format=99),
    lambda r: r['arches']['x86_64'].update(facts=None),
    lambda r: r['arches']['x86_64'].update(seconds={'run': 'fast'}),
    lambda r: r['meta'].update(arches=None),
    lambda r: r['meta'].update(finished=7),
])
def test_an_earlier_run_that_cannot_be_read_never_costs_this_one_its_results(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, spoil: Any) -> None:
    """Items 5 and 8: the default baseline was read after every arch ran,
    inside the staging block: an earlier results.json this version cannot read
    (a newer format, a wrongly typed field) made a finished run exit 2 (or 70)
    about a --baseline nobody gave, and deleted its results."""
    earlier = first_run_then(monkeypatch, fake_tree, tmp_path, spoil)
    capsys.readouterr()
    assert run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                           '--run-id', 'second']) == Exit.OK
    err = capsys.readouterr().err
    assert 'warning' in err and earlier.name in err and 'Traceback' not in err, err
    latest = (tmp_path / 'kunit-results/latest').resolve()
    assert latest != earlier and (latest / 'results.json').is_file()
    assert json.loads((latest / 'results.json').read_text())['meta']['run_id'] == 'second'


@pytest.mark.parametrize('signal_name', ['SIGINT', 'SIGTERM'])
@pytest.mark.parametrize('where', ['write_results', 'record'])
def test_an_interrupt_after_the_last_arch_keeps_every_result(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, signal_name: str, where: str) -> None:
    """Item 6: SIGTERM or Ctrl-C after the last arch, while the reports were
    written, removed every result and said "interrupted before any arch
    finished"."""
    real = getattr(run_kunit, where)

    def interrupted(*args: Any, **kw: Any) -> Any:
        os.kill(os.getpid(), getattr(signal, signal_name))
        time.sleep(0.2)
        return real(*args, **kw)

    monkeypatch.setattr(run_kunit, where, interrupted)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64,powerpc32')) == Exit.INTERRUPTED
    err = capsys.readouterr().err
    assert 'before any arch finished' not in err and str(out) in err, err
    data = json.loads((out / 'results.json').read_text())
    assert {a: v['status'] for a, v in data['arches'].items()} == \
        {'x86_64': 'passed', 'powerpc32': 'passed'}
    assert not data['meta']['interrupted'] and not leftovers(out)


def test_a_bug_after_the_arches_finished_keeps_their_results(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Item 6: nothing that goes wrong after an arch finished deletes its
    results: a bug of the report writers is exit 70, and the finished arches'
    logs and verdicts stay where they were written, named."""
    from rxalign import report

    def broken(*args: Any, **kw: Any) -> None:
        raise RuntimeError('a bug of the writers')
    monkeypatch.setattr(report, 'write_all', broken)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.INTERNAL
    err = capsys.readouterr().err
    kept = leftovers(out)
    assert len(kept) == 1 and str(out.parent / kept[0]) in err, err
    assert (out.parent / kept[0] / 'x86_64' / 'ktap.log').is_file()
    assert (out.parent / kept[0] / 'x86_64' / 'verdict.json').is_file()


def test_a_log_the_parser_never_finishes_keeps_the_other_arches(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Item 7: a bare `1..0` plan sent kunit.py's parser into an endless loop:
    the run never ended. The parse is bounded; that arch is infra, the others
    keep their results."""
    from test_verdict import endless_parse
    monkeypatch.setattr(kunit_driver, 'PARSE_SECONDS', 2.0)
    monkeypatch.setenv('RXALIGN_FAKE_KTAP_x86_64',
                       str(faults.write(endless_parse(), tmp_path / 'endless.ktap')))
    out = tmp_path / 'out'
    start = time.monotonic()
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64,powerpc32')) == Exit.INFRA
    assert time.monotonic() - start < 60
    assert 'x86_64: the console log cannot be read' in capsys.readouterr().err
    arches = json.loads((out / 'results.json').read_text())['arches']
    assert arches['x86_64']['status'] == 'infra', arches['x86_64']['cause']
    assert arches['powerpc32']['status'] == 'passed', arches['powerpc32']['cause']


@pytest.mark.parametrize('line', [
    'e1000 0000:00:03.0 eth0: Reset adapter: timed out after 100 ms',
    "    # rx_napi_alloc: Command '['qemu']' timed out after 300 seconds",
])
def test_words_on_the_console_are_no_timeout(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, line: str) -> None:
    """Item 10: any console line with "timed out after" made a passing run
    exit 3 as a QEMU timeout. The timeout is measured, not read."""
    log = faults.write(faults.insert_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60',
                                            [line]), tmp_path / 'words.ktap')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(log))
    monkeypatch.setenv('RXALIGN_FAKE', 'pass')
    out = tmp_path / 'out'
    assert run_kunit.main(['--tree', str(fake_tree), '--out', str(out), '--timeout', '20',
                           '--arch', 'x86_64']) == Exit.OK, capsys.readouterr().err


def test_a_guest_past_timeout_is_stopped_by_the_clock(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Item 10: the timeout is decided from the process: a guest still running
    at --timeout (printing, so never idle) is stopped then, whatever it prints."""
    start = time.monotonic()
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'truncated', 'spin',
               args=('--arch', 'x86_64', '--timeout', '3', '--idle-timeout', '60')) == Exit.INFRA
    assert time.monotonic() - start < 20
    assert 'no result within --timeout 3s' in capsys.readouterr().err


def test_a_bug_in_a_later_arch_keeps_the_arches_that_finished(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Adversarial pass: a bug of the harness while the second arch was judged
    removed the first arch's finished results with the staging directory."""
    from rxalign.verdict import judge as real

    def broken_for_powerpc32(run: Any, *args: Any, **kw: Any) -> Any:
        if run.arch == 'powerpc32':
            raise RuntimeError('a bug of ours')
        return real(run, *args, **kw)
    monkeypatch.setattr(arch_verdict, 'judge', broken_for_powerpc32)
    out = tmp_path / 'out'
    assert run(monkeypatch, fake_tree, out, 'pass',
               args=('--arch', 'x86_64,powerpc32')) == Exit.INTERNAL
    kept = leftovers(out)
    assert len(kept) == 1 and str(out.parent / kept[0]) in capsys.readouterr().err
    assert (out.parent / kept[0] / 'x86_64' / 'ktap.log').is_file()


def test_a_baseline_too_deep_to_read_is_passed_over(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """Adversarial pass: a results.json nested deeper than Python's recursion
    limit was a RecursionError, exit 70 before any build."""
    earlier = first_run_then(monkeypatch, fake_tree, tmp_path, lambda r: None)
    (earlier / 'results.json').write_text('[' * 100000 + ']' * 100000)
    assert run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                           '--run-id', 'second']) == Exit.OK
    assert earlier.name in capsys.readouterr().err
    assert report_main_exit(earlier, tmp_path / 'rep') == Exit.USAGE


def report_main_exit(d: Path, out: Path) -> int:
    from rxalign import report_main
    return report_main.main(['--out', str(out), str(d)])


# ---- issue 42 item 1: --tree on a current tree; each test failed on the old
# code but the one that says otherwise (see the docstrings) ----

def fake_series(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                patches: Dict[str, str]) -> Path:
    """kernel-patches/ with @patches ({'net/0001-pad.patch': text, ...}) only."""
    root = tmp_path / 'series'
    for name, text in patches.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    monkeypatch.setattr(run_kunit, 'SERIES_DIR', root)
    return root


def pad_fix(old: str, new: str, file: str = 'net/core/skbuff.c', name: str = 'skb_pad') -> str:
    """git format-patch's mail of a fix that changes @file's `int @name = @old;`."""
    return (f'From 1234abcd Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.org>\n'
            f'Date: Thu, 3 Dec 2026 00:00:00 +0000\nSubject: [PATCH net] net: {name} {new}\n\n'
            f'Why.\n\nSigned-off-by: Dev <dev@example.org>\n---\n'
            f'diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n'
            f'-int {name} = {old};\n+int {name} = {new};\n-- \n2.39.5\n\n')


def at_version(fake_tree: Path, version: str) -> None:
    major, minor = version.split('.')
    (fake_tree / 'Makefile').write_text(f'VERSION = {major}\nPATCHLEVEL = {minor}\nSUBLEVEL = 0\n')


def prepared_file(cache_root: Path, fake_tree: Path, name: str = 'net/core/skbuff.c') -> str:
    """@name as the run's prepared tree of --tree @fake_tree has it."""
    return (Cache(cache_root).tree(tree.user_base(fake_tree).base_id) / name).read_text()


def label_of(out: Path) -> str:
    return str(json.loads((out / 'results.json').read_text())['meta']['tree'])


@pytest.mark.parametrize('version, pad', [
    ('6.5', '32'),      # 6.1's variant: for-6.1/net/ has no patch
    ('6.12', '16'),     # for-6.12/net/
    ('7.4', '64'),      # newer than every kernel: kernel-patches/net/
])
def test_a_tree_takes_the_series_of_its_makefiles_version(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path, tmp_path: Path,
        version: str, pad: str) -> None:
    """Every --tree took 6.12's variants (the default kernel's): a 7.4 net-next
    got for-6.12/net/ and a 6.5 tree a fix 6.1 does not need (the 6.12 case
    passed on the old code too)."""
    fake_series(monkeypatch, tmp_path, {'net/0001-pad.patch': pad_fix('32', '64'),
                                        'for-6.12/net/0001-pad.patch': pad_fix('32', '16'),
                                        'for-6.1/net/README.md': 'no fix: the bug is not there\n'})
    at_version(fake_tree, version)
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.OK
    assert prepared_file(cache_root, fake_tree) == f'int skb_pad = {pad};\n'
    assert json.loads((tmp_path / 'out/results.json').read_text())['meta']['kernel'] == version


def test_a_tree_older_than_every_kernel_is_a_usage_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """A 5.15 tree ran with 6.12's series and tests (and failed somewhere in
    them); it is exit 2 naming the kernels there are, before any work."""
    at_version(fake_tree, '5.15')
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.USAGE
    err = capsys.readouterr().err
    assert 'kernel 5.15' in err and '(6.1, 6.12, 7.3)' in err, err
    assert not (tmp_path / 'out').exists() and not cache_root.exists()


def test_a_fix_already_in_the_tree_is_skipped_and_reported(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """A net-next that merged our net fix: git am failed on it, exit 5 before
    any test. It is skipped, said while the tree is prepared, and named in
    the results (meta.tree, the reports), also by a run that reuses the tree."""
    fake_series(monkeypatch, tmp_path, {
        'net/0001-pad.patch': pad_fix('32', '64'),
        'net/0002-dev.patch': pad_fix('32', '64', 'net/core/dev.c', 'dev_pad')})
    at_version(fake_tree, '7.4')
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    (fake_tree / 'net/core/dev.c').write_text('int dev_pad = 32;\n')
    skipped = 'skipped net/0001-pad (already in the tree)'
    for out in (tmp_path / 'a', tmp_path / 'b'):     # b reuses a's tree
        assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
        said = capsys.readouterr().out
        assert skipped in said.splitlines(), said
        label = label_of(out)
        assert 'series net (1 of 2), net-next (tests)' in label and f'+ {skipped}' in label
        assert skipped in (out / 'report.md').read_text()
    assert '(unchanged)' in said
    assert prepared_file(cache_root, fake_tree, 'net/core/dev.c') == 'int dev_pad = 64;\n'


def debian_run(monkeypatch: pytest.MonkeyPatch, fake_tree: Path, tmp_path: Path,
               out: Path) -> int:
    """run-kunit --kernel 7.3, with the fake tree as Debian's tarball."""
    tarball = tmp_path / 'linux-source-7.3.tar.xz'
    subprocess.run(['tar', '-cJf', str(tarball), '-C', str(fake_tree.parent), fake_tree.name],
                   check=True)
    base = tree.Base(base_id='debian-7.3.4-1', label='linux-source-7.3 7.3.4-1', tarball=tarball)
    monkeypatch.setattr(tree, 'debian_base', lambda kernel, cache, log: base)
    monkeypatch.setenv('RXALIGN_FAKE', 'pass')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    return run_kunit.main(['--kernel', '7.3', '--arch', 'x86_64', '--out', str(out),
                           '--timeout', '1'])


def test_a_fix_that_does_not_apply_is_skipped_on_a_user_tree_only(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """A --tree whose code moved under a fix was exit 5: the fix is skipped,
    with git's error, and the tests run. Debian's tree, which the fixes are
    made for, still takes every one or stops (exit 5)."""
    fake_series(monkeypatch, tmp_path, {'net/0001-pad.patch': pad_fix('32', '64')})
    at_version(fake_tree, '7.3')
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 16;\n')
    out = tmp_path / 'user'
    assert run(monkeypatch, fake_tree, out, 'pass') == Exit.OK
    said = capsys.readouterr().out
    line = next(ln for ln in said.splitlines() if ln.startswith('skipped '))
    assert line.startswith('skipped net/0001-pad (does not apply to this tree: error: '), said
    assert f'+ {line}' in label_of(out) and 'series net (0 of 1)' in label_of(out)
    assert debian_run(monkeypatch, fake_tree, tmp_path, tmp_path / 'debian') == Exit.PATCH
    err = capsys.readouterr().err
    assert '0001-pad.patch' in err and 'kernel-patches/net/' in err, err


def test_tests_compat_must_apply_on_a_user_tree(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """tests-compat was Debian's trees only: a 6.12 --tree built 7.3's tests
    without it. It applies on a user tree of its kernel, and as the tests
    must: a patch of it that does not apply is exit 5."""
    fake_series(monkeypatch, tmp_path, {'for-6.12/tests-compat/0001-compat.patch': pad_fix(
        '1', '2', 'net/core/tests/rx_align_kunit.c', 'no_such_line')})
    at_version(fake_tree, '6.12')
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.PATCH
    err = capsys.readouterr().err
    assert '0001-compat.patch' in err and 'tests-compat' in err, err


def test_the_tests_must_still_apply_on_a_user_tree(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path) -> None:
    """The tests layer is never skipped (this one passed on the old code too:
    it holds what must not change)."""
    at_version(fake_tree, '7.4')
    (fake_tree / 'net/Kconfig').write_text('config NET_TEST\n\ttristate "x"\n')   # no anchor
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.PATCH
    assert 'cannot hook the tests into net/Kconfig' in capsys.readouterr().err


def test_a_user_tree_keeps_the_cuts_of_its_kernel(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        tmp_path: Path) -> None:
    """Issue 42: `--tree` on a git tree of 6.1 failed to build (ptp_vclock.c:
    implicit DEFINE_STATIC_SRCU): a user tree got slim.config as written,
    without the cuts 6.1 keeps (kernels.py), which Debian's 6.1 gets. Now the
    kernel the tree's version takes the series of decides them for both.
    Seen failing on the code before: the inotify cut in x86_64's slim.config."""
    at_version(fake_tree, '6.1')
    assert run(monkeypatch, fake_tree, tmp_path / 'out', 'pass') == Exit.OK
    kept = kernels.BY_NAME['6.1'].slim_kept
    assert kept
    fitted = list((cache_root / 'build').glob('*/x86_64/slim-x86_64.config'))
    assert len(fitted) == 1, fitted
    assert not set(kept) & set(fitted[0].read_text().splitlines())


# ---- issue 50 ----

def group_alive(group: int) -> List[str]:
    """The commands of the group's processes that still run (a zombie, dead
    and not yet reaped by init, does not), after a moment to die in."""
    def running() -> List[str]:
        alive = []
        for pid in procs.group_members(group):
            try:
                state = Path(f'/proc/{pid}/stat').read_text().rsplit(')', 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state != 'Z':
                alive.append(procs.command(pid))
        return alive
    deadline = time.monotonic() + 5
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    return running()


@pytest.mark.parametrize('how', ['SIGHUP', 'SIGQUIT'])
def test_a_hangup_stops_the_run_as_sigterm_does(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fake_tree: Path,
        cache_root: Path, tmp_path: Path, how: str) -> None:
    """Item 5: SIGHUP (the terminal or ssh session closed) killed run-kunit with
    no message and nothing at --out, the first arch's results left in a hidden
    .partial, and the guest's kunit.py, in a session of its own, ran on
    holding the cache: the next run was exit 6. SIGQUIT the same. Both stop
    the run as SIGTERM does: exit 130, the finished arch kept at --out and
    marked partial, the guest's process group killed. Here the second arch's
    fake kunit.py waits on a `sleep` that stands for QEMU, and the signal
    comes from outside, to a run in a process of its own."""
    monkeypatch.setenv('RXALIGN_FAKE', 'pass')
    monkeypatch.setenv('RXALIGN_FAKE_MODE_powerpc32', 'spin')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    monkeypatch.setenv('RXALIGN_FAKE_KTAP_powerpc32', str(faults.path('truncated')))
    out = tmp_path / 'out'
    # the run the terminal's hangup reaches
    pid = forked_run(['--tree', str(fake_tree), '--out', str(out), '--arch', 'x86_64,powerpc32',
                      '--timeout', '60', '--idle-timeout', '60'])
    groups: List[int] = []
    try:
        groups = guest_groups(cache_root, 60)
        os.kill(pid, getattr(signal, how))
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == Exit.INTERRUPTED, \
            (os.WIFSIGNALED(status) and signal.Signals(os.WTERMSIG(status)).name, status)
        data = json.loads((out / 'results.json').read_text())
        assert how in data['meta']['interrupted'], data['meta']
        assert {a: v['status'] for a, v in data['arches'].items()} == \
            {'x86_64': 'passed', 'powerpc32': 'infra'}
        assert (out / 'x86_64' / 'ktap.log').is_file() and not leftovers(out)
        alive = [c for g in groups for c in group_alive(g)]
        assert not alive, f'the guest outlived the run: {alive}'
    finally:
        kill_groups(groups)
    capsys.readouterr()
    # the next run takes the cache: nothing of the stopped one holds it
    assert run(monkeypatch, fake_tree, tmp_path / 'next', 'pass') == Exit.OK
