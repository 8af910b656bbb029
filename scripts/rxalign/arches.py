"""The architecture table: one entry per arch, nothing arch-specific elsewhere."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, List, Optional, Tuple

QEMU_CONFIGS = Path(__file__).resolve().parent.parent / 'qemu_configs'


@dataclasses.dataclass(frozen=True)
class Arch:
    name: str                   # our name, used on the command line and in reports
    kunit_arch: str             # kunit.py --arch (ignored when qemu_config is set)
    cross_compile: str          # CROSS_COMPILE prefix, '' for the host compiler
    packages: Tuple[str, ...]   # Debian packages: compiler, QEMU, firmware
    qemu_binary: str            # what must be on PATH to boot it
    firmware: Tuple[str, ...] = ()      # files QEMU loads at boot
    qemu_config: Optional[str] = None   # our own QemuArchParams file
    kconfig: Tuple[str, ...] = ()       # extra kconfig lines for this arch
    slim: Tuple[str, ...] = ()          # cuts on top of scripts/kconfig/slim.config
    default: bool = False               # part of a plain `run-kunit`
    policy: str = ''                    # one line for the README and reports

    def qemu_config_path(self) -> Optional[Path]:
        return QEMU_CONFIGS / self.qemu_config if self.qemu_config else None


_PPC = ('gcc-powerpc64-linux-gnu', 'binutils-powerpc64-linux-gnu', 'qemu-system-ppc')

ARCHES: Tuple[Arch, ...] = (
    Arch(name='x86_64', kunit_arch='x86_64', cross_compile='',
         packages=('gcc', 'qemu-system-x86'), qemu_binary='qemu-system-x86_64',
         firmware=('/usr/share/qemu/qboot.rom',), default=True,
         slim=('# CONFIG_ACPI is not set', '# CONFIG_CPU_MITIGATIONS is not set'),
         policy='NET_IP_ALIGN 0 (arch override), 4K pages'),
    Arch(name='powerpc', kunit_arch='powerpc', cross_compile='powerpc64-linux-gnu-',
         packages=_PPC, qemu_binary='qemu-system-ppc64',
         firmware=('/usr/share/qemu/slof.bin',), default=True,
         policy='ppc64 pseries: NET_IP_ALIGN 0 (arch override), 64K pages'),
    Arch(name='powerpc32', kunit_arch='powerpc', cross_compile='powerpc64-linux-gnu-',
         packages=_PPC, qemu_binary='qemu-system-ppc',
         firmware=('/usr/share/qemu/openbios-ppc',),
         qemu_config='powerpc32.py', default=True,
         policy='ppc32 g3beige: NET_IP_ALIGN 2 (generic), 4K pages'),
)

BY_NAME: Dict[str, Arch] = {a.name: a for a in ARCHES}


def default_arches() -> List[Arch]:
    return [a for a in ARCHES if a.default]


def select(spec: Optional[str]) -> List[Arch]:
    """Turn '--arch a,b' or 'all' into table entries; KeyError names the unknown one."""
    if not spec:
        return default_arches()
    if spec == 'all':
        return list(ARCHES)
    chosen: List[Arch] = []
    for name in (n.strip() for n in spec.split(',')):
        if not name:
            continue
        if name not in BY_NAME:
            raise KeyError(name)
        if BY_NAME[name] not in chosen:
            chosen.append(BY_NAME[name])
    return chosen
