"""The series in kernel-patches/, as they are mailed, in the order every run applies them.

Each series is a directory of `git format-patch` output (0000-cover-letter.patch
first, which carries no diff).  The KUnit tests are the one series whose
patches are made here: the harness commits kunit-tests/ into the test tree as
kunit-tests/commits/ describes (kunit_series.py), and kernel-patches/net-next/
is `git format-patch` of the commits posted, for reading and mailing.

kernel-patches/<name>/ is based on the newest kernel of kernels.py; on an
older kernel kernel-patches/for-<kernel>/<name>/ replaces it when it exists
(the backport, as stable takes it, or no patch at all where the bug is not
there: its README.md says why). A --tree takes the series of the kernel
its Makefile's version falls under (kernels.for_version), and each fix only
where it applies and is not in it already (Role).
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import tree
from .arches import Arch
from .kernels import DEFAULT, NEWEST, Kernel
from .mail import COVER_LETTER
from .patches import read as read_patches
from .paths import SERIES_DIR, TESTS_DIR



class Role(enum.Enum):
    """What a series is to a run: where it applies, how strictly, and whether it is mailed."""
    TREE_FIX = 'tree fix'   # Debian's trees only (a --tree has its own history); not mailed
    FIX = 'fix'             # mailed; on a --tree only where it applies and is not there yet
    TESTS = 'tests'         # kunit-tests/, committed by the harness: must apply everywhere
    TESTS_COMPAT = 'tests compat'   # the tests on an older kernel: must apply; not mailed


@dataclasses.dataclass(frozen=True)
class Series:
    name: str                           # kernel-patches/<name>/, and the tree layer
    mailed_to: str                      # the tree and audience, for humans
    role: Role = Role.FIX
    only_on: Tuple[str, ...] = ()       # the kernels it is for, if not every one
    # the series its patches are made on, beyond the kernel: a net fix that
    # reaches net-next before a net-next patch on the same lines is posted
    # (each is earlier in SERIES, so every run applies it first)
    after: Tuple[str, ...] = ()

    @property
    def tests_dir(self) -> Optional[Path]:
        """kunit-tests/, for the series the harness commits from it."""
        return TESTS_DIR if self.role is Role.TESTS else None

    @property
    def debian_only(self) -> bool:
        return self.role is Role.TREE_FIX

    @property
    def mailed(self) -> bool:
        return self.role in (Role.FIX, Role.TESTS)

    def directory(self, kernel: Kernel = DEFAULT, series_dir: Path = SERIES_DIR) -> Path:
        own = series_dir / f'for-{kernel.name}' / self.name
        return own if kernel != NEWEST and own.is_dir() else series_dir / self.name

    def patches(self, kernel: Kernel = DEFAULT,
                series_dir: Path = SERIES_DIR) -> Tuple[Path, ...]:
        if self.only_on and kernel.name not in self.only_on:
            return ()
        return tuple(sorted(p for p in self.directory(kernel, series_dir).glob('*.patch')
                            if p.name != COVER_LETTER))

    def layer(self, kernel: Kernel = DEFAULT, tests_dir: Path = TESTS_DIR,
              series_dir: Path = SERIES_DIR, debian: bool = True) -> tree.Layer:
        if self.role is Role.TESTS:
            # the stored patch is for reading: kunit-tests/ is the source
            return tree.Layer(self.name, tests_dir=tests_dir)
        patches = self.patches(kernel, series_dir) if debian or not self.debian_only else ()
        # a tree the user names may hold a fix already, or code it no longer fits
        return tree.Layer(self.name, patches=patches,
                          where_needed=not debian and self.role is Role.FIX)


# Debian's tree must build and boot first; fixes go to net, and net
# reaches net-next before the tests that need them.
SERIES: Tuple[Series, ...] = (
    Series('tree-fixes', 'stable and the arch lists: fixes Debian\'s trees need to build or boot '
           'on some arches (parisc: linux-parisc)',
           Role.TREE_FIX),
    Series('net', 'net: the bugs the suite found, with Fixes: tags, and their test'),
    # tulip's copy-all arches pass the tagged 1518-byte frame up uncopied:
    # a fix for net, apart from the arch list (net-next-tulip)
    Series('net-tulip', 'net: tulip copies the full-size tagged frame where every frame is '
           'copied (one patch, no cover letter)'),
    # sonic's maintainer, netdev and linux-m68k (macsonic, where it was seen);
    # net-next: tested in QEMU only (its notes say why)
    Series('net-next-sonic', 'net-next: the sonic limit the driver suite found (one patch, '
           'no cover letter)'),
    # tulip's copy-all list as a Kconfig symbol: an orphaned driver's cost
    # (every frame copied on riscv), net-next, on the lines net-tulip changes
    Series('net-next-tulip', 'net-next: tulip copies every frame where unaligned loads are '
           'not cheap (one patch, no cover letter; on top of net-tulip)',
           after=('net-tulip',)),
    # virtio_net's in-place receive modes: a cost where NET_IP_ALIGN is 2
    # (fixups, no crash), so net-next; not backported to 6.1, where no
    # driver run is made
    Series('net-next-virtio', 'net-next: virtio_net keeps the IP header aligned in mergeable '
           'buffers under XDP and in a legacy device\'s small buffers',
           only_on=('6.12', '7.3')),
    # the i.MX25/27 FEC cannot shift the frame: the driver moves it where
    # loads trap (ARMv5); found on 7.3's armv5-imx25 board, net-next only
    Series('net-next-fec', 'net-next: fec moves a received frame up by NET_IP_ALIGN on chips '
           'without RACC (one patch, no cover letter)', only_on=('7.3',)),
    # vhost_net's batched TX rounds NET_IP_ALIGN away: a cost where it is 2
    # (fixups), so no Fixes:; through the vhost tree, found on 7.3's mips
    Series('vhost', 'the vhost tree: vhost_net keeps NET_IP_ALIGN in front of the frames it '
           'batches (one patch, no cover letter)', only_on=('7.3',)),
    # what the fixups suite needs of ARM: a counter a test can read (ARMv7
    # loads words itself, but alignment.c fixes LDM/LDRD up)
    Series('arm', 'linux-arm-kernel: ARM counts its alignment fixups as perf events (one '
           'patch, no cover letter)', only_on=('7.3',)),
    Series('net-next', 'net-next: the KUnit suites', Role.TESTS),
    # what the tests need of an older kernel's API: for-<kernel>/ only
    Series('tests-compat', 'nobody: the KUnit tests adapted to an older kernel\'s API, to run '
           'them there', Role.TESTS_COMPAT),
    # 6.12 only: three of the six drivers are gone in 7.3 (docs/kernels.md)
    Series('coccinelle', 'the Coccinelle maintainers: the semantic patch behind '
           'docs/pad-sites.md',
           only_on=('6.12',)),
    Series('drivers-rfc', 'net-next, as an RFC: the drivers the semantic patch converts',
           only_on=('6.12',)),
)
BY_NAME = {s.name: s for s in SERIES}
DRIVERS = BY_NAME['drivers-rfc']


def layers(kernel: Kernel = DEFAULT, tests_dir: Path = TESTS_DIR, series_dir: Path = SERIES_DIR,
           debian: bool = True) -> List[tree.Layer]:
    """The stack every job tests, in the order above (@tests_dir: a copy of
    kunit-tests/; @debian: the base is Debian's tree, which takes the tree fixes)."""
    return [s.layer(kernel, tests_dir, series_dir, debian) for s in SERIES]


def describe_series() -> str:
    """The series every run applies, in order, for --help: where each applies."""
    def note(s: Series) -> str:
        notes = {Role.TESTS: ['the KUnit tests'], Role.TREE_FIX: ['Debian\'s trees only'],
                 Role.TESTS_COMPAT: ['older kernels only']}.get(s.role, [])
        notes += [f'{", ".join(s.only_on)} only'] if s.only_on else []
        return s.name + (f' ({"; ".join(notes)})' if notes else '')
    return ', '.join(note(s) for s in SERIES)


def describe_layers(layers: Sequence[tree.Layer],
                    skipped: Sequence[tree.PatchOutcome] = ()) -> str:
    """The series layers a run applies, by name and size (empty ones left out);
    `net (2 of 3)` where @skipped left some out."""
    def size(layer: tree.Layer) -> str:
        if layer.tests_dir:
            return 'tests'
        left_out = sum(1 for o in skipped if o.layer == layer.name)
        n = len(layer.patches)
        return f'{n - left_out} of {n}' if left_out else str(n)
    return ', '.join(f'{layer.name} ({size(layer)})' for layer in layers
                     if layer.patches or layer.tests_dir) or 'none'


def fixes_label(fixes: Sequence[Path], run: Sequence[Arch]) -> str:
    """The tree fixes of a run, for its tree's label: each one an arch of @run
    builds, by its subject; the others counted, with their arches, never
    listed by the file names git format-patch cuts mid-word. A fix is
    another arch's when every file it changes is under the arch/ directory
    of no arch of @run; one of shared code (drivers/, a Kconfig) counts for all."""
    mine = {a.srcarch for a in run}
    shown: List[str] = []
    others: List[str] = []      # the arch/ directories of the fixes folded
    folded = 0
    for p in (q for f in fixes for g in read_patches([f]) for q in g.patches):
        dirs = {m.group(1) if m else '' for m in (re.match(r'arch/([^/]+)/', name)
                                                    for name in p.files)}
        if '' in dirs or dirs & mine:
            shown.append(p.title)
        else:
            folded += 1
            others += sorted(dirs)
    label = ''.join(f' + tree fix "{title}"' for title in shown)
    if not folded:
        return label
    count = f'{folded} tree fix{"es" if folded > 1 else ""}'
    where = ', '.join(dict.fromkeys(others))
    if shown:
        return f'{label} + {count} for other arches ({where})'
    return f' + {count} (none for {", ".join(a.name for a in run)}: {where})'


def mailed_patches(kernel: Kernel = DEFAULT, series_dir: Path = SERIES_DIR) -> List[Path]:
    """The series as they are mailed, without the tree fixes."""
    return [p for s in SERIES if s.mailed for p in s.patches(kernel, series_dir)]


def touched_c_files(patches: List[Path]) -> List[str]:
    """The C files under drivers/ and net/ that the patches change, in order."""
    files: List[str] = []
    for p in patches:
        for m in re.finditer(r'^\+\+\+ b/((?:drivers|net)/\S+\.c)$', p.read_text(), re.M):
            if m.group(1) not in files:
                files.append(m.group(1))
    return files
