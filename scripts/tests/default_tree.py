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
    return kernel_tree(kernels.DEFAULT, scratch, wildcard, *more)


def kernel_tree(kernel: kernels.Kernel, scratch: Path, wildcard: str, *more: str) -> Path:
    """default_tree() of any kernel of the table: skip, saying which, when the
    machine has neither its tree in the cache nor its package."""
    trees = sorted(Cache(default_root()).trees.glob(f'debian-{kernel.name}.*'))
    if trees:
        return trees[0]
    # a tarball the cache fetched (debian_archive: a kernel of another suite)
    fetched = sorted((default_root() / 'sources').glob(f'{kernel.package}_*.tar.xz'))
    try:
        tarball = fetched[-1] if fetched else host_tarball(kernel).path
    except HarnessError as e:
        how = (f'scripts/run-kunit --kernel {kernel.name} fetches it' if kernel.suites
               else e.message)
        pytest.skip(f'no tree of {kernel.name} in the cache ({default_root()}/trees), and '
                    f'no {kernel.package} here: {how}')
    subprocess.run(['tar', '-xJf', str(tarball), '-C', str(scratch), '--strip-components=1',
                    '--wildcards', wildcard, *more], check=True)
    subprocess.run(['git', 'init', '-q', str(scratch)], check=True)
    subprocess.run(['git', '-C', str(scratch), 'add', '.'], check=True)
    return scratch
