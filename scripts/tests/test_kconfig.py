"""What each kernel is configured with (kconfig.py): one kernel per arch
entry and the boards booting it, the NIC drivers and their suite in it, and
the slim cuts a kernel keeps."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import List

import pytest

from default_tree import default_tree
from rxalign import arches, kconfig, kernels
from rxalign.paths import DEBUG, KUNITCONFIG, SLIM, TESTS_DIR

BOARDS = [a for a in arches.ARCHES if a.kernel_of]


def drivers_suite_option() -> str:
    """The drivers suite's Kconfig symbol, from kunit-tests/Makefile: the
    object rx_align_drivers_kunit.o is built under it."""
    m = re.search(r'obj-\$\((CONFIG_\w+)\)\s*\+=\s*rx_align_drivers_kunit\.o',
                  (TESTS_DIR / 'Makefile').read_text())
    assert m, 'kunit-tests/Makefile no longer builds rx_align_drivers_kunit.o'
    return m.group(1)


@pytest.mark.parametrize('board', BOARDS, ids=[a.name for a in BOARDS])
def test_a_board_configures_the_kernel_it_boots_as_its_base_does(board: arches.Arch) -> None:
    """One kernel for the base entry and every board booting it: each asks for
    the same kconfig lines (else each run would reconfigure and rebuild the
    other's kernel), the board's NIC drivers among them."""
    base = arches.builder(board)
    assert base.name == board.kernel_of and not base.kernel_of
    # the same kernel; another toolchain (a newer QEMU) builds its own copy
    assert (base.kunit_arch, base.cross_compile) == (board.kunit_arch, board.cross_compile)
    lines = kconfig.kernel_kconfig(board, kconfig.Profile())
    assert lines == kconfig.kernel_kconfig(base, kconfig.Profile())
    assert set(board.kconfig) <= set(lines)
    assert set(board.nic_kconfig()) <= set(lines)


@pytest.mark.parametrize('arch', arches.ARCHES, ids=[a.name for a in arches.ARCHES])
def test_a_kernel_booted_with_nics_has_their_drivers_and_their_suite(arch: arches.Arch) -> None:
    """--drivers boots the kernel run-kunit built without it: a kernel any
    entry boots with NICs has every such entry's NIC drivers and the drivers
    suite; one no entry gives NICs has neither (a build no run needs)."""
    sharing = [b for b in arches.ARCHES if arches.builder(b) is arches.builder(arch)]
    lines = set(kconfig.kernel_kconfig(arch, kconfig.Profile()))
    suite = f'{drivers_suite_option()}=y'
    if any(b.nics for b in sharing):
        assert suite in lines
        for b in sharing:
            assert set(b.nic_kconfig() if b.nics else ()) <= lines, b.name
    else:
        assert suite not in lines and 'CONFIG_ETHERNET=y' not in lines


@pytest.mark.parametrize('kernel', kernels.KERNELS, ids=[k.name for k in kernels.KERNELS])
def test_a_kept_cut_is_a_line_of_slim_config(kernel: kernels.Kernel) -> None:
    """A kept cut that is not spelled as in slim.config keeps nothing."""
    cuts = kconfig.option_lines(SLIM)
    assert set(kernel.slim_kept) <= set(cuts)


def test_fitted_drops_the_kernels_kept_cuts_and_the_arch_absent_ones(tmp_path: Path) -> None:
    armv5 = arches.BY_NAME['armv5']
    assert armv5.slim_absent
    plain = kconfig.Profile(slim=False).fragments()
    assert kconfig.fitted(arches.BY_NAME['x86_64'], plain, (), tmp_path) == plain
    slim = kconfig.Profile().fragments()
    kept = '# CONFIG_INOTIFY_USER is not set'
    # x86_64 has no absent lines: only the kernel's kept cut goes
    out = kconfig.fitted(arches.BY_NAME['x86_64'], slim, (kept,), tmp_path)
    assert out[0] == slim[0] and out[1].parent == tmp_path
    lines = kconfig.option_lines(out[1])
    assert kept not in lines and set(lines) == set(kconfig.option_lines(SLIM)) - {kept}
    # armv5: its own absent lines go too, the kernel's kept one with them
    lines = kconfig.option_lines(kconfig.fitted(armv5, slim, (kept,), tmp_path)[1])
    assert set(lines) == set(kconfig.option_lines(SLIM)) - {kept, *armv5.slim_absent}


@pytest.mark.parametrize('profile, suffix, extra', [
    (kconfig.Profile(), '', [SLIM]),
    (kconfig.Profile(slim=False), 'full', []),
    (kconfig.Profile(debug=True), 'debug', [SLIM, DEBUG]),
    (kconfig.Profile(slim=False, debug=True), 'full-debug', [DEBUG]),
])
def test_a_profile_names_its_fragments_and_its_build_dir_alike(
        profile: kconfig.Profile, suffix: str, extra: List[Path]) -> None:
    """The default kernel (run-kunit, --drivers, the bench) builds in the
    arch's plain build dir; every other fragment set in a dir of its own."""
    assert profile.fragments() == [KUNITCONFIG, *extra]
    assert profile.build_suffix == suffix


def test_a_line_whose_symbol_the_tree_lacks_is_left_out(tmp_path: Path) -> None:
    """7.3 has no MDIO_DEVICE: its line is left out there (and said), kept where
    a Kconfig file defines the symbol, as config, menuconfig or in any Kconfig.*."""
    (tmp_path / 'drivers').mkdir()
    (tmp_path / 'Kconfig').write_text('config FOO\n\tbool "foo"\n')
    (tmp_path / 'drivers' / 'Kconfig.net').write_text('menuconfig BAR\n\ttristate "bar"\n')
    (tmp_path / 'README').write_text('config GONE\n')
    subprocess.run(['git', 'init', '-q', str(tmp_path)], check=True)
    subprocess.run(['git', '-C', str(tmp_path), 'add', '.'], check=True)
    symbols = kconfig.tree_symbols(tmp_path)
    assert {'FOO', 'BAR'} <= symbols and 'GONE' not in symbols
    kept, gone = kconfig.defined_here(['CONFIG_FOO=y', 'CONFIG_GONE=y',
                                       '# CONFIG_BAR is not set', 'CONFIG_FOO_BAR=5'], symbols)
    assert kept == ['CONFIG_FOO=y', '# CONFIG_BAR is not set']
    assert gone == ['CONFIG_GONE=y', 'CONFIG_FOO_BAR=5']


def test_every_arch_table_symbol_is_in_the_default_kernel(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """run-kunit leaves out a line whose symbol the tree lacks (a newer kernel
    dropped it), so a misspelt symbol would go unnoticed there: every one must
    be defined by the default kernel, read from a tree run-kunit prepared,
    else from Debian's tarball."""
    symbols = kconfig.tree_symbols(default_tree(tmp_path_factory.mktemp('kconfig'), '*Kconfig*'))
    # the suites' own symbols come with the tests, not with the tarball
    symbols |= set(re.findall(r'^config\s+(\w+)', (TESTS_DIR / 'Kconfig').read_text(), re.M))
    lines = {line for a in arches.ARCHES
             for line in kconfig.kernel_kconfig(a, kconfig.Profile())}
    _, gone = kconfig.defined_here(sorted(lines), symbols)
    assert not gone
