"""Environment faults: each is exit 4 with the package or the fix named, before any build."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from rxalign import deps, run_kunit
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
