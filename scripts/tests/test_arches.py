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
