"""Environment faults: each is exit 4 with the package or the fix named, before any build."""

from __future__ import annotations

import errno
import os
import subprocess
from pathlib import Path
from typing import Callable, Iterable, List

import pytest

from rxalign import arches, bench, compile_test, deps, run_kunit, upstream_check
from rxalign.arches import Arch
from rxalign.exitcodes import Exit, HarnessError

FAKE = Arch(name='fakearch', kunit_arch='fakearch', cross_compile='nonexistent-linux-gnu-',
            packages=('gcc-nonexistent-linux-gnu', 'qemu-system-fake'),
            qemu_binary='qemu-system-fake', firmware=('/nonexistent/fw.bin',))


def test_missing_cross_compiler_names_the_package() -> None:
    with pytest.raises(HarnessError) as err:
        deps.check_arch_tools(FAKE)
    assert err.value.status == Exit.ENVIRONMENT
    assert 'nonexistent-linux-gnu-gcc' in err.value.message
    assert 'apt-get install gcc-nonexistent-linux-gnu' in err.value.message


def test_missing_qemu_binary_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr('rxalign.deps.shutil.which', lambda name: None if 'qemu' in name else '/x')
    with pytest.raises(HarnessError) as err:
        deps.check_arch_tools(FAKE)
    assert 'qemu-system-fake not found' in err.value.message


def test_missing_firmware_is_caught_before_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr('rxalign.deps.shutil.which', lambda name: '/usr/bin/' + name)
    with pytest.raises(HarnessError) as err:
        deps.check_arch_tools(FAKE)
    assert err.value.status == Exit.ENVIRONMENT
    assert '/nonexistent/fw.bin' in err.value.message and 'apt-get install' in err.value.message


def test_missing_package_without_install_rights(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(deps.NO_INSTALL_ENV, '1')
    with pytest.raises(HarnessError) as err:
        deps.ensure_packages(['rx-align-no-such-package'], print)
    assert err.value.status == Exit.ENVIRONMENT
    assert 'apt-get install rx-align-no-such-package' in err.value.message


def test_full_disk_is_an_environment_error(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    def full(args: object) -> int:
        raise OSError(errno.ENOSPC, 'No space left on device')
    monkeypatch.setattr(run_kunit, 'run', full)
    monkeypatch.setenv('RXALIGN_CACHE', str(tmp_path))
    assert run_kunit.main(['--arch', 'x86_64']) == Exit.ENVIRONMENT
    assert 'disk full' in capsys.readouterr().err


# ---- issue 42 item 3: a machine that is not Debian ----

SCRIPTS = Path(__file__).resolve().parents[1]


def not_debian_path(tmp_path: Path) -> str:
    """PATH as on a machine without Debian's package tools: every command of
    this one but dpkg's and apt's."""
    bin_dir = tmp_path / 'not-debian-bin'
    bin_dir.mkdir()
    for tool in Path('/usr/bin').iterdir():
        if not tool.name.startswith(('dpkg', 'apt')):
            (bin_dir / tool.name).symlink_to(tool)
    return str(bin_dir)


@pytest.mark.parametrize('no_install', ['', '1'])
def test_a_machine_without_dpkg_is_told_to_use_a_container(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        no_install: str) -> None:
    """No dpkg-query was a traceback, exit 70 ("a bug of run-kunit"), also
    with RXALIGN_NO_INSTALL=1."""
    monkeypatch.setenv('PATH', str(tmp_path))      # nothing at all
    monkeypatch.setenv('RXALIGN_CACHE', str(tmp_path / 'cache'))
    monkeypatch.setenv(deps.NO_INSTALL_ENV, no_install)
    assert run_kunit.main(['--arch', 'x86_64', '--out', str(tmp_path / 'out')]) == \
        Exit.ENVIRONMENT
    err = capsys.readouterr().err
    assert 'no dpkg-query' in err and 'make gcc' in err and 'Debian 12 or 13' in err
    assert deps.container_command() in err and 'docs/containers.md' in err
    assert 'Traceback' not in err


def test_run_kunit_on_a_machine_without_dpkg(tmp_path: Path) -> None:
    """The real entry point, with dpkg-query and apt-get off PATH."""
    env = dict(os.environ, PATH=not_debian_path(tmp_path), RXALIGN_CACHE=str(tmp_path / 'c'))
    proc = subprocess.run([str(SCRIPTS / 'run-kunit'), '--arch', 'x86_64', '--out',
                           str(tmp_path / 'out')], capture_output=True, text=True, env=env,
                          timeout=60, check=False)
    assert proc.returncode == Exit.ENVIRONMENT, proc.stderr
    assert 'podman run --rm' in proc.stderr and 'Traceback' not in proc.stderr


def test_packages_missing_and_no_apt_get(monkeypatch: pytest.MonkeyPatch) -> None:
    """dpkg-query there, apt-get not: the container, not "sudo apt-get install"."""
    monkeypatch.setattr(deps, 'missing_packages', lambda pkgs: list(pkgs))
    monkeypatch.setattr('rxalign.deps.shutil.which', lambda name: None)
    with pytest.raises(HarnessError) as err:
        deps.ensure_packages(['qemu-system-ppc'], print)
    assert err.value.status == Exit.ENVIRONMENT
    assert 'no apt-get' in err.value.message and 'podman run' in err.value.message


def test_lib_sh_says_the_same_container_command(tmp_path: Path) -> None:
    """The shell entry points' one check (python3 itself) prints deps.py's command."""
    for entry in ('run-kunit', 'report'):
        shown = subprocess.run(['bash', '-c', f'. {SCRIPTS}/lib.sh; container_command {entry}'],
                               capture_output=True, text=True, check=True).stdout.strip()
        assert shown == deps.container_command(entry=entry)
    env = dict(os.environ, PATH=not_debian_path(tmp_path))
    proc = subprocess.run(['bash', '-c', f'. {SCRIPTS}/lib.sh; PYTHON=/nonexistent; '
                           'ensure_python'], capture_output=True, text=True, env=env,
                          check=False)
    assert proc.returncode == Exit.ENVIRONMENT
    assert deps.container_command(entry='bash') in proc.stderr


def _packages_asked(monkeypatch: pytest.MonkeyPatch, main: Callable[[List[str]], int],
                    argv: List[str]) -> List[str]:
    """What @main asks apt for; the fake refuses, so nothing else runs."""
    asked: List[str] = []

    def ensure(packages: Iterable[str], log: Callable[[str], None]) -> None:
        asked.extend(packages)
        raise HarnessError(Exit.ENVIRONMENT, 'not installed in this test')

    monkeypatch.setattr(deps, 'ensure_packages', ensure)
    try:
        status = main(argv)
    except HarnessError as e:     # bench leaves it to run_main
        status = e.status
    assert status == Exit.ENVIRONMENT
    return asked


def test_a_build_asks_for_ccache_and_the_compiler_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """CI on a fresh machine, 2026-12-07: every per-patch build failed with
    "ccache: not found", because only run-kunit installed the build deps."""
    asked = _packages_asked(monkeypatch, upstream_check.main, [])
    assert {'ccache', 'gcc', 'flex', 'bison', 'libelf-dev'} <= set(asked)
    assert 'ccache' not in _packages_asked(monkeypatch, upstream_check.main, ['--no-build'])
    asked = _packages_asked(monkeypatch, compile_test.main, ['--arch', 'powerpc'])
    assert 'ccache' in asked
    assert set(arches.select('powerpc')[0].packages) <= set(asked)
    asked = _packages_asked(monkeypatch, bench.main, ['--arch', 'mips'])
    assert {'ccache', *arches.select('mips')[0].packages} <= set(asked)
