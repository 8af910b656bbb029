"""Where things are in this repository, and the stack every job tests.

The entry points (run-kunit, compile-test, series-check, bench, ...) all
need these; they take them from here rather than from each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import List

from . import tree

REPO = Path(__file__).resolve().parents[2]
SERIES_DIR = REPO / 'kernel-patches'
TESTS_DIR = REPO / 'kunit-tests'
KUNITCONFIG = REPO / 'kunitconfig'
SLIM = REPO / 'scripts/kconfig/slim.config'
DEBUG = REPO / 'scripts/kconfig/debug.config'
QEMU_CONFIGS = REPO / 'scripts/qemu_configs'
KMEMLEAK_INIT = REPO / 'scripts/initramfs/kmemleak-init'
MUTATION_PATCHES = REPO / 'scripts/mutations'


def series_patches(series_dir: Path = SERIES_DIR) -> List[Path]:
    """kernel-patches/*.patch in order; the cover letter carries no diff."""
    return sorted(p for p in series_dir.glob('*.patch') if not p.name.startswith('0000-'))


def series_layers(tests_dir: Path = TESTS_DIR, series_dir: Path = SERIES_DIR) -> List[tree.Layer]:
    """The stack every job tests: kernel-patches/ applied with git am, then kunit-tests/."""
    return [tree.Layer('series', patches=tuple(series_patches(series_dir))),
            tree.Layer('tests', tests_dir=tests_dir)]
