"""The kernels Debian ships that the suites run on: one entry per source package.

kernel-patches/<series>/ is based on the newest one (what netdev would
apply); kernel-patches/for-<name>/<series>/ replaces a series on an older
kernel (its backport, or nothing where the bug it fixes is not there).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, Tuple


# 6.1 keeps these slim.config cuts:
_SLIM_KEPT_6_1 = (
    # ptp_vclock.c (PTP, which the NIC drivers bring) uses SRCU, which 6.1
    # builds only when something selects it (6.2 made it unconditional):
    # inotify is the smallest selector among the cuts
    '# CONFIG_INOTIFY_USER is not set',
    # no prompt in 6.1: on every arch with a direct map to set (x86, riscv)
    '# CONFIG_SECRETMEM is not set',
)


@dataclasses.dataclass(frozen=True)
class Kernel:
    name: str                    # --kernel, and the for-<name>/ series directory
    package: str                 # Debian's source package
    release: str                 # where Debian ships it, for humans and reports
    # Fetched from these Debian suites through our own apt configuration in the
    # cache (debian_archive.py); () means the machine's own apt sources carry it.
    suites: Tuple[str, ...] = ()
    default: bool = False
    # Cuts of scripts/kconfig/slim.config (written for 6.12) this kernel
    # keeps the feature of, on every arch: its Kconfig cannot turn it off
    # (kunit.py would refuse the .config) or its build needs it.
    slim_kept: Tuple[str, ...] = ()

    @property
    def tarball_name(self) -> str:
        return f'{self.package}.tar.xz'


KERNELS: Tuple[Kernel, ...] = (
    Kernel('6.1', 'linux-source-6.1', 'Debian 12 (bookworm), the kernel it runs',
           slim_kept=_SLIM_KEPT_6_1),
    # The default: the kernel of Debian's stable release (13) and an LTS, and
    # the one the whole arch matrix and every mutation are measured on.
    Kernel('6.12', 'linux-source-6.12', 'Debian 12 (bookworm) and 13 (trixie), the kernel 13 '
           'runs', default=True),
    Kernel('7.3', 'linux-source-7.3', 'Debian 13 backports (trixie-backports)',
           suites=('trixie', 'trixie-backports')),
)
BY_NAME: Dict[str, Kernel] = {k.name: k for k in KERNELS}
DEFAULT = next(k for k in KERNELS if k.default)
NEWEST = KERNELS[-1]     # what kernel-patches/<series>/ is based on


def select(name: str) -> Kernel:
    """The table entry for --kernel NAME; KeyError names the unknown one."""
    if name not in BY_NAME:
        raise KeyError(name)
    return BY_NAME[name]


def _numbers(version: str) -> Tuple[int, ...]:
    """VERSION.PATCHLEVEL as numbers: 6.12 comes after 6.9 (ValueError: not one)."""
    parts = version.split('.')
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise ValueError(f'{version!r} is no VERSION.PATCHLEVEL')
    return tuple(int(p) for p in parts)


def for_version(version: str) -> Kernel:
    """The kernel whose series variants a tree of @version (VERSION.PATCHLEVEL)
    takes: the newest in KERNELS not newer than it, so a tree newer than the
    newest (net-next) takes the newest's, kernel-patches/<series>/.
    ValueError: @version is older than every kernel, or no version."""
    fits = [k for k in KERNELS if _numbers(k.name) <= _numbers(version)]
    if not fits:
        raise ValueError(f'kernel {version} is older than every kernel the series are for '
                         f'({", ".join(k.name for k in KERNELS)})')
    return max(fits, key=lambda k: _numbers(k.name))
