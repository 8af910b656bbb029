"""The default kernel's own files, for tests that read the real tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rxalign import kernels
from rxalign.cache import Cache, default_root
from rxalign.debian_archive import host_tarball
from rxalign.exitcodes import HarnessError


def default_tree(scratch: Path, wildcard: str, *more: str) -> Path:
    """A git tree of the default kernel holding at least the files @wildcard
    (and @more) match: one run-kunit prepared, else those files out of Debian's tarball,
    unpacked into @scratch and committed there (git grep reads the index);
    skip when the machine has neither (scripts/test installs the package)."""
    trees = sorted(Cache(default_root()).trees.glob(f'debian-{kernels.DEFAULT.name}.*'))
    if trees:
        return trees[0]
    try:
        tarball = host_tarball(kernels.DEFAULT).path
    except HarnessError as e:
        pytest.skip(e.message)
    subprocess.run(['tar', '-xJf', str(tarball), '-C', str(scratch), '--strip-components=1',
                    '--wildcards', wildcard, *more], check=True)
    subprocess.run(['git', 'init', '-q', str(scratch)], check=True)
    subprocess.run(['git', '-C', str(scratch), 'add', '.'], check=True)
    return scratch
