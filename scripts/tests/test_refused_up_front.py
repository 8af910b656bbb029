"""Issue 42 item 7: what is wrong on the command line is said before any work.

Each case here is refused with exit 2 and a message naming the fix before a
package is checked (dpkg-query), anything is installed or fetched, or the
cache lock is taken; each test failed before its fix (see its docstring).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

from rxalign import report_main, run_kunit
from rxalign.cache import Cache, Lock
from rxalign.exitcodes import Exit

import faults

SCRIPTS = Path(__file__).resolve().parents[1]
PAIR = faults.FIXTURES / 'baseline'


def fake_apt(tmp_path: Path) -> Path:
    """dpkg-query and apt-get that only write down that they were called."""
    bin_dir = tmp_path / 'apt-bin'
    bin_dir.mkdir()
    for tool in ('dpkg-query', 'apt-get'):
        (bin_dir / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> "{tmp_path}/apt.log"\n'
                                    'exit 1\n')
        (bin_dir / tool).chmod(0o755)
    return bin_dir


def entry_points() -> List[str]:
    return sorted(p.name for p in SCRIPTS.iterdir()
                  if p.is_file() and os.access(p, os.X_OK) and p.name != 'lib.sh')


@pytest.mark.parametrize('script', entry_points())
def test_help_checks_installs_and_fetches_nothing(tmp_path: Path, script: str) -> None:
    """`scripts/checkpatch --help` ran apt-get and fetched the 7.3 sources;
    `scripts/audit --help` checked for coccinelle first."""
    env = dict(os.environ, PATH=f'{fake_apt(tmp_path)}:{os.environ["PATH"]}',
               RXALIGN_CACHE=str(tmp_path / 'cache'))
    proc = subprocess.run([str(SCRIPTS / script), '--help'], capture_output=True, text=True,
                          env=env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert 'usage' in proc.stdout.lower(), proc.stdout
    assert not (tmp_path / 'apt.log').exists(), (tmp_path / 'apt.log').read_text()
    assert not (tmp_path / 'cache').exists()


def refused(args: List[str], cache_root: Path, capsys: pytest.CaptureFixture[str],
            calls: List[str]) -> str:
    """run-kunit @args with the cache busy: exit 2, no package checked; stderr."""
    with Lock(Cache(cache_root)):
        assert run_kunit.main(args) == Exit.USAGE
    err = capsys.readouterr().err
    assert 'in use by' not in err and not calls, (err, calls)
    return err


def test_an_out_that_cannot_be_made_is_refused_before_the_lock(
        fake_tree: Path, cache_root: Path, capsys: pytest.CaptureFixture[str],
        package_checks: List[str]) -> None:
    """`--out /proc/x` was refused only after the package checks (210
    dpkg-query calls) and the cache lock: exit 6 when another run held the
    cache, and a lock file left behind in a cache the run never used."""
    args = ['--tree', str(fake_tree), '--arch', 'x86_64', '--out', '/proc/rx-align-out']
    err = refused(args, cache_root, capsys, package_checks)
    assert '--out /proc/rx-align-out: cannot create a directory in /proc' in err
    shutil.rmtree(cache_root)
    assert run_kunit.main(args) == Exit.USAGE
    assert not cache_root.exists() and not package_checks


def test_an_unknown_kernel_is_usage_and_names_tree(
        cache_root: Path, capsys: pytest.CaptureFixture[str],
        package_checks: List[str]) -> None:
    """`--kernel 6.6` was exit 4 (environment) and did not say that --tree
    takes any other kernel."""
    err = refused(['--kernel', '6.6', '--arch', 'x86_64'], cache_root, capsys, package_checks)
    assert "--kernel '6.6'" in err and '--tree PATH' in err


def test_a_binary_expected_file_is_named(fake_tree: Path, cache_root: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str],
                                         package_checks: List[str]) -> None:
    """A binary --expected was "--expected: 'utf-8' codec can't decode byte
    0x89 ...", without the file's name."""
    binary = tmp_path / 'expected.png'
    binary.write_bytes(b'\x89PNG\r\n\x1a\n\x00\x00\xff')
    err = refused(['--tree', str(fake_tree), '--expected', str(binary)], cache_root, capsys,
                  package_checks)
    assert f'--expected {binary}: not a text file' in err
    out = tmp_path / 'merged'
    assert report_main.main([str(PAIR / 'run'), '--out', str(out), '--expected',
                             str(binary)]) == Exit.USAGE
    assert f'--expected {binary}: not a text file' in capsys.readouterr().err


def test_report_takes_baseline_none(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    package_checks: List[str]) -> None:
    """`scripts/report DIR --baseline none` was refused: "no results.json
    there: give --baseline a results directory of run-kunit, or --baseline none"."""
    run = tmp_path / 'run'
    shutil.copytree(PAIR / 'run', run)
    assert report_main.main([str(run), '--baseline', 'none']) == Exit.TEST_FAILED
    captured = capsys.readouterr()
    assert 'error: --baseline' not in captured.err and ' since ' not in captured.out


def test_a_baseline_results_json_means_its_directory(
        fake_tree: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        package_checks: List[str]) -> None:
    """`--baseline DIR/results.json` said "no results.json there"."""
    given = str(PAIR / 'baseline' / 'results.json')
    run = tmp_path / 'run'
    shutil.copytree(PAIR / 'run', run)
    assert report_main.main([str(run), '--baseline', given]) == Exit.TEST_FAILED
    assert '1 new failure since local-20261203-101500-4f1a2b' in capsys.readouterr().out
    plan = run_kunit.check_args(run_kunit.parse_args(
        ['--tree', str(fake_tree), '--out', str(tmp_path / 'out'), '--baseline', given]))
    assert plan.since.given is not None and plan.since.given.arches


def test_results_never_land_in_the_kernel_tree_it_runs_in(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path,
        capsys: pytest.CaptureFixture[str], package_checks: List[str]) -> None:
    """Run from inside a kernel tree without --out, kunit-results/ was made
    in that tree (the user's checkout)."""
    monkeypatch.chdir(fake_tree / 'net/core')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    assert run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64',
                           '--timeout', '1']) == Exit.OK
    beside = fake_tree.parent / 'kunit-results'
    assert (beside / 'latest' / 'results.json').is_file()
    assert not list(fake_tree.rglob('kunit-results'))
    assert f'the results go beside it, in {beside}' in capsys.readouterr().out
