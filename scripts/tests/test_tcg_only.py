"""kunit.py of 7.3 asks QEMU for KVM first; where nested KVM hangs the guest
prints nothing (seen: x86_64 on 7.3, "hung: no console output for 60s").
The wrapper run-kunit puts first on PATH keeps QEMU in TCG."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rxalign import arches
from rxalign.cache import Cache
from rxalign.arch_plan import tcg_only


def test_the_wrapper_drops_kvm_and_hvf_and_keeps_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    fake = bin_dir / 'qemu-system-x86_64'
    fake.write_text('#!/bin/sh\necho "$@"\n')
    fake.chmod(0o755)
    path = f'{bin_dir}:/usr/bin:/bin'
    wrappers = tcg_only(arches.BY_NAME['x86_64'], Cache(tmp_path / 'cache'), path=path)
    env = {'PATH': f'{wrappers}:{path}'}
    proc = subprocess.run(['qemu-system-x86_64', '-m', '1024', '-accel', 'kvm', '-accel', 'hvf',
                           '-accel', 'tcg', '-serial', 'stdio'], env=env, capture_output=True,
                          text=True, check=True)
    assert proc.stdout.split() == ['-m', '1024', '-accel', 'tcg', '-serial', 'stdio']


def test_no_qemu_no_wrapper(tmp_path: Path) -> None:
    assert tcg_only(arches.BY_NAME['x86_64'], Cache(tmp_path / 'cache'),
                    path=str(tmp_path)) is None
