"""compile-test: a file no arch of the table can build is said so, never passed.

CI on 2026-12-07 stopped at "xtsonic.c was compiled on none of
x86_64,powerpc,i386" once net-next-sonic dropped xtsonic's override:
XTENSA_XT2000_SONIC depends on XTENSA_PLATFORM_XT2000, which only
arch/xtensa/ defines, and Debian ships no xtensa-linux cross compiler.
"""

from __future__ import annotations

from pathlib import Path

from rxalign.compile_test import _arch_only
from rxalign.kbuild import arch_only


def tree(tmp_path: Path, arch: str, elsewhere: bool = False) -> Path:
    d = tmp_path / 'drivers/net/x'
    d.mkdir(parents=True)
    (d / 'Makefile').write_text('obj-$(CONFIG_FOO) += foo.o\nobj-$(CONFIG_BAZ) += baz.o\n')
    (d / 'Kconfig').write_text('config FOO\n\ttristate "foo"\n\tdepends on BAR && NET\n\n'
                               'config BAZ\n\ttristate "baz"\n\tdepends on PCI\n')
    a = tmp_path / 'arch' / arch
    a.mkdir(parents=True)
    (a / 'Kconfig').write_text('config BAR\n\tbool "bar"\n')
    (tmp_path / 'net').mkdir()
    (tmp_path / 'net/Kconfig').write_text('config NET\n\tbool "net"\n'
                                          + ('config BAR\n\tbool "bar"\n' if elsewhere else ''))
    (tmp_path / 'drivers/Kconfig').write_text('config PCI\n\tbool "pci"\n')
    return tmp_path


def test_a_driver_of_an_arch_without_an_entry_is_skipped_with_why(tmp_path: Path) -> None:
    src = tree(tmp_path, 'xtensa')
    assert arch_only(src, 'drivers/net/x/foo.c', 'FOO') == ('BAR', 'xtensa')
    why = _arch_only(src, 'drivers/net/x/foo.c')
    assert 'depends on BAR, which only arch/xtensa/ defines' in why


def test_a_driver_an_entry_could_build_still_fails(tmp_path: Path) -> None:
    """m68k has entries: not building it is the selection's fault."""
    src = tree(tmp_path, 'm68k')
    assert arch_only(src, 'drivers/net/x/foo.c', 'FOO') == ('BAR', 'm68k')
    assert _arch_only(src, 'drivers/net/x/foo.c') == ''
    # a dependency any arch may have (PCI), or one defined outside arch/ too
    assert arch_only(src, 'drivers/net/x/baz.c', 'BAZ') is None
    assert arch_only(tree(tmp_path / 'b', 'xtensa', elsewhere=True),
                     'drivers/net/x/foo.c', 'FOO') is None
    # an alternative is no requirement: COMPILE_TEST builds it anywhere
    src = tree(tmp_path / 'c', 'xtensa')
    kconfig = src / 'drivers/net/x/Kconfig'
    kconfig.write_text(kconfig.read_text().replace('BAR && NET', 'BAR || COMPILE_TEST'))
    assert arch_only(src, 'drivers/net/x/foo.c', 'FOO') is None
