"""The arch table and --arch selection."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rxalign import arches
from rxalign.exitcodes import Exit

SCRIPTS = Path(__file__).resolve().parents[1]


def test_defaults_cover_both_policies() -> None:
    names = [a.name for a in arches.default_arches()]
    assert names == ['x86_64', 'powerpc', 'powerpc32']


def test_select() -> None:
    assert [a.name for a in arches.select('powerpc32,x86_64,x86_64')] == ['powerpc32', 'x86_64']
    assert len(arches.select('all')) == len(arches.ARCHES)
    with pytest.raises(KeyError):
        arches.select('x86_64,vax')


def test_every_qemu_config_exists() -> None:
    for a in arches.ARCHES:
        path = a.qemu_config_path()
        assert path is None or path.is_file(), a.name


def test_unknown_arch_is_a_usage_error() -> None:
    proc = subprocess.run([str(SCRIPTS / 'run-kunit'), '--arch', 'vax'],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == Exit.USAGE
    assert "unknown arch 'vax'" in proc.stderr and 'x86_64' in proc.stderr


def test_compile_test_reads_its_defconfigs_from_the_arch_table() -> None:
    """compile-test kept its own per-arch DEFCONFIG/BUSES dicts beside the arch
    table (issue 16's review): an arch added to the table had none, and
    `compile-test --arch arm64` was a KeyError traceback."""
    from rxalign import compile_test
    assert not hasattr(compile_test, 'DEFCONFIG') and not hasattr(compile_test, 'BUSES')
    assert arches.BY_NAME['x86_64'].defconfig == 'x86_64_defconfig'
    assert arches.BY_NAME['powerpc32'].defconfig == 'pmac32_defconfig'
    assert 'ISA' in arches.BY_NAME['i386'].compile_enable
    assert compile_test.main(['--arch', 'sh']) == Exit.USAGE   # none for sh: said, not raised
