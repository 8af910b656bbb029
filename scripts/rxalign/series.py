"""The series in kernel-patches/, as they are mailed, in the order every run applies them.

Each series is a directory of `git format-patch` output (0000-cover-letter.patch
first, which carries no diff).  The KUnit tests are the one series whose
patch is not stored: the harness commits kunit-tests/ into the test tree
with kunit-tests/commit-message, and `git format-patch` there mails it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Tuple

from . import tree
from .paths import SERIES_DIR, TESTS_DIR

COVER_LETTER = '0000-cover-letter.patch'


@dataclasses.dataclass(frozen=True)
class Series:
    name: str                           # kernel-patches/<name>/, and the tree layer
    mailed_to: str                      # the tree and audience, for humans
    tests_dir: Optional[Path] = None    # the patch is kunit-tests/, committed by us
    debian_only: bool = False           # fixes to Debian's tree: a --tree has its own

    def directory(self, series_dir: Path = SERIES_DIR) -> Path:
        return series_dir / self.name

    def patches(self, series_dir: Path = SERIES_DIR) -> Tuple[Path, ...]:
        return tuple(sorted(p for p in self.directory(series_dir).glob('*.patch')
                            if p.name != COVER_LETTER))

    def layer(self, tests_dir: Path = TESTS_DIR, series_dir: Path = SERIES_DIR,
              debian: bool = True) -> tree.Layer:
        patches = self.patches(series_dir) if debian or not self.debian_only else ()
        return tree.Layer(self.name, patches=patches,
                          tests_dir=tests_dir if self.tests_dir else None)


# Debian's tree must build and boot first; fixes go to net, and net
# reaches net-next before the tests that need them.
SERIES: Tuple[Series, ...] = (
    Series('tree-fixes', 'stable and the arch lists: fixes Debian 12\'s tree needs to build or boot '
           'on some arches (parisc: linux-parisc)',
           debian_only=True),
    Series('net', 'net: the bugs the suite found, with Fixes: tags'),
    Series('net-next', 'net-next: the KUnit suites', tests_dir=TESTS_DIR),
    Series('coccinelle', 'the Coccinelle maintainers: the semantic patch behind the audit'),
    Series('drivers-rfc', 'net-next, as an RFC: the drivers the semantic patch converts'),
)
BY_NAME = {s.name: s for s in SERIES}
DRIVERS = BY_NAME['drivers-rfc']


def layers(tests_dir: Path = TESTS_DIR, series_dir: Path = SERIES_DIR,
           debian: bool = True) -> List[tree.Layer]:
    """The stack every job tests, in the order above (@tests_dir: a copy of
    kunit-tests/; @debian: the base is Debian's tree, which takes the tree fixes)."""
    return [s.layer(tests_dir, series_dir, debian) for s in SERIES]


def all_patches(series_dir: Path = SERIES_DIR) -> List[Path]:
    """What a run applies to Debian's tree, tree fixes included."""
    return [p for s in SERIES for p in s.patches(series_dir)]


def mailed_patches(series_dir: Path = SERIES_DIR) -> List[Path]:
    """The series as they are mailed, without the tree fixes."""
    return [p for s in SERIES if not s.debian_only for p in s.patches(series_dir)]
