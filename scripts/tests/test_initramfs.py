"""The initramfs of a test kernel: what goes in it, and when the vhost
suite's guest program is built (scripts/rxalign/initramfs.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

import pytest

from rxalign import initramfs
from rxalign.arch_plan import plan
from rxalign.arches import BY_NAME
from rxalign.paths import KMEMLEAK_INIT
from test_arch_plan import kernel_tree, settings


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> List[List[str]]:
    """Every command the module runs; a compile writes its -o file."""
    calls: List[List[str]] = []

    def run(p: object, cmd: List[str], cwd: Path, env: Dict[str, str], log: Path,
            what: str) -> str:
        calls.append(cmd)
        if '-o' in cmd:
            Path(cmd[cmd.index('-o') + 1]).write_bytes(b'\x7fELF guest ' + ' '.join(cmd).encode())
        return '/usr/lib/gcc/include'
    monkeypatch.setattr(initramfs, '_run', run)
    return calls


def _lines(lines: List[str]) -> str:
    source = next(ln for ln in lines if ln.startswith('CONFIG_INITRAMFS_SOURCE='))
    return Path(source.split('=', 1)[1].strip('"')).read_text()


def test_mips_gets_the_vhost_program_with_its_flags(tmp_path: Path,
                                                    built: List[List[str]]) -> None:
    tree = kernel_tree(tmp_path, '7.3')
    (tree / initramfs.NOLIBC).mkdir(parents=True)
    (tree / initramfs.NOLIBC / 'nolibc.h').write_text('')
    p = plan(BY_NAME['mips'], settings(tree, tmp_path / 'cache', debug=False))
    lines = initramfs.kconfig(p, tree, {}, tmp_path / 'build.log')
    assert lines[0] == 'CONFIG_BLK_DEV_INITRD=y'
    listing = _lines(lines)
    program = next(ln.split()[2] for ln in listing.splitlines()
                   if ln.startswith(f'file {initramfs.VHOST_TX_GUEST} '))
    assert Path(program).is_file() and Path(program).parent == p.build_dir
    for node in ('/dev/net/tun 0600 0 0 c 10 200', '/dev/vhost-net 0600 0 0 c 10 238'):
        assert f'nod {node}' in listing
    compile_cmd = next(c for c in built if '-o' in c)
    assert compile_cmd[:3] == ['mips-linux-gnu-gcc', '-EB', '-mabi=32']
    assert str(tree / initramfs.NOLIBC) in compile_cmd
    # the same program again: the same name, so the kernel's config is unchanged
    assert initramfs.kconfig(p, tree, {}, tmp_path / 'build.log') == lines


def test_no_program_without_flags_or_nolibc(tmp_path: Path, built: List[List[str]]) -> None:
    tree = kernel_tree(tmp_path, '7.3')
    for name in ('powerpc32', 'mips'):      # no nolibc_cflags; no nolibc in the tree
        p = plan(BY_NAME[name], settings(tree, tmp_path / 'cache', debug=False))
        p.build_dir.mkdir(parents=True, exist_ok=True)
        assert initramfs.kconfig(p, tree, {}, tmp_path / 'build.log') == []
    assert not built


def test_kmemleak_init_without_the_vhost_program(tmp_path: Path, built: List[List[str]]) -> None:
    tree = kernel_tree(tmp_path, '7.3')
    p = plan(BY_NAME['x86_64'], settings(tree, tmp_path / 'cache', debug=True))
    listing = _lines(initramfs.kconfig(p, tree, {}, tmp_path / 'build.log'))
    assert f'file /init {KMEMLEAK_INIT} 0755 0 0' in listing
    assert initramfs.VHOST_TX_GUEST not in listing and not built


def test_a_program_that_does_not_build_stops_the_run(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    tree = kernel_tree(tmp_path, '7.3')
    (tree / initramfs.NOLIBC).mkdir(parents=True)
    (tree / initramfs.NOLIBC / 'nolibc.h').write_text('')
    p = plan(BY_NAME['mips'], settings(tree, tmp_path / 'cache', debug=False))
    monkeypatch.setenv('PATH', str(tmp_path))      # no make, no gcc
    with pytest.raises(initramfs.GuestBuildError, match='make headers'):
        initramfs.kconfig(p, tree, {'PATH': str(tmp_path)}, tmp_path / 'build.log')
