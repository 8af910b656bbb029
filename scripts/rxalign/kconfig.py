"""What a kernel is configured with, in one place: the fragments kunit.py
--kunitconfig takes (less the cuts a kernel keeps) and the
--kconfig_add lines of every arch entry that boots that kernel.

run-kunit, --drivers and the bench all configure through here, so a kernel
built by one is the kernel the others boot, not a near copy that rebuilds.
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from pathlib import Path
from typing import AbstractSet, Iterable, List, Set, Tuple

from .arches import ARCHES, Arch, builder, nic_kernel
from .paths import COVERAGE, DEBUG, DRIVERS, KUNITCONFIG, SLIM


@dataclasses.dataclass(frozen=True)
class Profile:
    """Which of our fragments a kernel is configured from (--no-slim, --debug):
    each choice named once, for kunit.py's arguments and for the build dir."""
    slim: bool = True       # slim.config and each arch entry's own cuts
    debug: bool = False     # debug.config (KASAN, lockdep, kmemleak)
    coverage: bool = False  # coverage.config (gcov, debugfs): --coverage

    def fragments(self) -> List[Path]:
        """Our kunitconfig, then the cuts (slim.config), then --debug's and
        --coverage's additions."""
        return ([KUNITCONFIG] + ([SLIM] if self.slim else []) + ([DEBUG] if self.debug else [])
                + ([COVERAGE] if self.coverage else []))

    @property
    def build_suffix(self) -> str:
        """What tells this profile's build dir from the default one's ('' for slim)."""
        return '-'.join(name for name, on in (('full', not self.slim), ('debug', self.debug),
                                              ('coverage', self.coverage)) if on)


def option_lines(path: Path) -> List[str]:
    """The option lines of a kconfig fragment, `# CONFIG_X is not set` included."""
    return [line.strip() for line in path.read_text().splitlines()
            if re.match(r'\s*(CONFIG_\w+=|# CONFIG_\w+ is not set)', line)]


def kernel_kconfig(arch: Arch, profile: Profile) -> List[str]:
    """The --kconfig_add lines of @arch's kernel: those of every entry that
    boots it, their NIC drivers and the drivers suite (drivers.config) when
    any of them has NICs.  So each entry, with --drivers or without,
    configures the same kernel and none rebuilds it."""
    base = builder(arch)
    lines = [line for a in ARCHES if builder(a) is base
             for line in (*a.kconfig, *(a.slim if profile.slim else ()),
                          *(a.nic_kconfig() if a.nics else ()))]
    if nic_kernel(arch):
        lines += option_lines(DRIVERS)
    return list(dict.fromkeys(lines))


def tree_symbols(tree: Path) -> Set[str]:
    """Every symbol a Kconfig file of @tree (a git repository) defines."""
    proc = subprocess.run(['git', '-C', str(tree), 'grep', '-h', '-E',
                           r'^\s*(menu)?config\s+[A-Za-z0-9_]+', '--', '*Kconfig*'],
                          capture_output=True, text=True, check=False)
    if proc.returncode not in (0, 1):     # 1: no line matched
        raise RuntimeError(f'git grep in {tree}: {proc.stderr.strip()}')
    return set(re.findall(r'config\s+(\w+)', proc.stdout))


def defined_here(lines: Iterable[str], symbols: Set[str]) -> Tuple[List[str], List[str]]:
    """@lines split into those whose symbol @symbols has and those of symbols
    the tree does not have at all (a kernel that dropped one: 7.3 folded
    MDIO_DEVICE away), which kunit.py would count as lost."""
    kept: List[str] = []
    gone: List[str] = []
    for line in lines:
        m = re.match(r'(?:# )?CONFIG_(\w+)', line)
        (gone if m and m.group(1) not in symbols else kept).append(line)
    return kept, gone


# Options of our fragments (debug.config) only an arch whose Kconfig selects
# the capability can have: elsewhere kunit.py would count them as lost.
ARCH_CAPABILITY = {
    'CONFIG_KASAN=y': 'HAVE_ARCH_KASAN',
    'CONFIG_KASAN_GENERIC=y': 'HAVE_ARCH_KASAN',
}


def arch_selects(tree: Path, srcarch: str, symbol: str,
                 off: AbstractSet[str] = frozenset()) -> bool:
    """Whether a Kconfig file of @tree's arch/@srcarch selects @symbol under
    a condition the config may meet: not one that needs a symbol of @off,
    those our config turns off (riscv's `if MMU && 64BIT`, M-mode rv32).
    Any other condition counts as met: kunit.py's own check names a
    kunitconfig line the config then loses."""
    pattern = re.compile(rf'^\s*select\s+{re.escape(symbol)}\b(?:\s+if\s+(.*))?$', re.M)
    for k in (tree / 'arch' / srcarch).glob('Kconfig*'):
        for m in pattern.finditer(k.read_text(errors='replace')):
            cond = (m.group(1) or '').split('#')[0].strip()
            # only a plain conjunction of symbols is judged
            terms = [t.strip() for t in cond.split('&&')] if cond else []
            if '||' in cond or '(' in cond or not any(t in off for t in terms):
                return True
    return False


def turned_off(configs: Iterable[Path]) -> Set[str]:
    """The symbols @configs (fragments, QEMU configs) set `is not set`."""
    return {m.group(1) for c in configs for line in option_lines(c)
            for m in [re.match(r'# CONFIG_(\w+) is not set', line)] if m}


def arch_lacks(tree: Path, arch: Arch, fragments: Iterable[Path],
               configs: Iterable[Path] = ()) -> Tuple[str, ...]:
    """The lines of @fragments @arch cannot have in @tree (ARCH_CAPABILITY),
    given what they and @configs (the QEMU config kunit.py reads) turn off."""
    fragments = list(fragments)
    off = turned_off([*fragments, *configs])
    wanted = {line for k in fragments for line in option_lines(k)} & ARCH_CAPABILITY.keys()
    return tuple(sorted(line for line in wanted
                        if not arch_selects(tree, arch.srcarch, ARCH_CAPABILITY[line], off)))


def fitted(arch: Arch, kunitconfigs: Iterable[Path], kept: Iterable[str],
           build_dir: Path) -> List[Path]:
    """@kunitconfigs less the cuts this kernel keeps and the options the arch
    cannot have (@kept: kernels.py, arch_lacks()) and those @arch's Kconfig
    cannot make (its slim_absent; kunit.py would count each as lost): a copy
    in @build_dir in place of a file that holds any."""
    drop = {*kept, *arch.slim_absent}
    out: List[Path] = []
    for k in kunitconfigs:
        lines = k.read_text().splitlines(keepends=True)
        left = [line for line in lines if line.strip() not in drop]
        if len(left) != len(lines):
            k = build_dir / f'{k.stem}-{arch.name}{k.suffix}'
            k.write_text(''.join(left))
        out.append(k)
    return out
