"""The compilers and QEMU a run builds and boots with: the machine's, or a Debian root's.

`--toolchain host` (the default) takes what is on the machine's PATH, except
for an arch whose table entry needs a newer Debian than the machine runs
(`Arch.toolchain`: Debian 12 has no SH compiler that builds a working kernel
and no LoongArch one at all): that arch alone goes through the root of that
release.  `--toolchain debian-13` takes every arch through the root.  The
root (debian_root.py) is made on first use; each arch's packages are
installed into it by the same table as on the machine.
"""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from . import deps
from .arches import Arch
from .cache import Cache
from .debian_root import RELEASES, Release, Root, open_root
from .exitcodes import Exit, HarnessError
from .probes import run_here

HOST = 'host'
NAMES = (HOST, *RELEASES)
Log = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class Toolchain:
    name: str                       # HOST or a release's name: reports and build dirs
    root: Optional[Root] = None     # None: the machine's own

    @property
    def build_suffix(self) -> str:
        """Appended to the build dir: switching toolchains rebuilds neither."""
        return '' if self.root is None else self.name

    def command(self, cmd: Sequence[str], cwd: Optional[Path] = None) -> List[str]:
        return list(cmd) if self.root is None else self.root.command(cmd, cwd)

    def run(self, cmd: Sequence[str]) -> 'subprocess.CompletedProcess[str]':
        return run_here(cmd) if self.root is None else self.root.run(cmd)

    def version(self, binary: str) -> str:
        """The first line of `binary --version`, or that it is not there."""
        try:
            proc = self.run([binary, '--version'])
        except OSError:
            return f'{binary}: not found'
        first = proc.stdout.split('\n', 1)[0].strip()
        return first if proc.returncode == 0 and first else f'{binary}: not found'

    def describe(self, arch: Arch) -> str:
        """The toolchain in one line, for results and reports: compiler and QEMU."""
        where = ('the machine\'s' if self.root is None
                 else f'{self.root.release.describe()} root')
        tools = [self.version(f'{arch.cross_compile}gcc')]
        if arch.qemu_binary:
            tools.append(self.version(arch.qemu_binary))
        return f'{self.name} ({where}): ' + '; '.join(tools)


def machine_release() -> int:
    """The machine's Debian major version, from /etc/os-release (0 if unknown)."""
    try:
        text = Path('/etc/os-release').read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        key, _, value = line.partition('=')
        if key == 'VERSION_ID':
            digits = value.strip('"').split('.')[0]
            return int(digits) if digits.isdigit() else 0
    return 0


class Toolchains:
    """The toolchain of each arch of one run; a root is made once, when first needed."""

    def __init__(self, choice: str, cache: Cache, log: Log,
                 machine: Optional[int] = None) -> None:
        if choice not in NAMES:
            raise HarnessError(Exit.USAGE, f'--toolchain {choice!r}: known toolchains: '
                               f'{", ".join(NAMES)}')
        self.choice = choice
        self.cache = cache
        self.log = log
        self.machine = machine_release() if machine is None else machine
        self._made: Dict[str, Toolchain] = {}
        self._failed: Dict[str, HarnessError] = {}   # a root that could not be made: once

    def name_for(self, arch: Arch) -> str:
        """Which toolchain builds @arch: --toolchain's, or the newer release the
        arch needs when the machine's is older."""
        if self.choice != HOST or not arch.toolchain:
            return self.choice
        release = RELEASES[arch.toolchain]
        return HOST if self.machine >= int(release.version) else release.name

    def for_arch(self, arch: Arch) -> Toolchain:
        name = self.name_for(arch)
        if name in self._failed:
            raise self._failed[name]
        if name not in self._made:
            try:
                self._made[name] = (Toolchain(HOST) if name == HOST else Toolchain(
                    name, open_root(RELEASES[name], self.cache, self.log)))
            except HarnessError as e:
                self._failed[name] = e
                raise
        return self._made[name]

    def arch_problem(self, arch: Arch) -> Optional[HarnessError]:
        """deps.arch_problem through the arch's toolchain: install, check, probe."""
        if self.name_for(arch) == HOST:
            return deps.arch_problem(arch, self.log)
        try:
            tc = self.for_arch(arch)
            assert tc.root is not None
            tc.root.install(arch.packages, self.log)
            check_root_tools(arch, tc.root, self.cache)
        except HarnessError as e:
            if e.status != Exit.ENVIRONMENT:
                raise
            return HarnessError(e.status, f'{arch.name}: {e.message}'
                                if not e.message.startswith(arch.name) else e.message)
        return None


def check_root_tools(arch: Arch, root: Root, cache: Cache) -> None:
    """deps.check_arch_tools, inside the root."""
    where = f' in the {root.release.describe()} root {root.path}'
    deps.check_arch_tools(arch, deps.Place(
        which=root.which, exists=lambda f: (root.path / f.lstrip('/')).exists(),
        run=root.run, tmp=cache.root / 'tmp', where=where,
        fix=lambda pkgs: f'the arch table\'s packages ({pkgs}) do not bring it there: fix '
                         'its entry in scripts/rxalign/arches.py'))


def host_toolchain() -> Toolchain:
    return Toolchain(HOST)


def env_for(toolchain: Toolchain, env: Dict[str, str]) -> Dict[str, str]:
    """What a command in the root gets: the same environment, in C.UTF-8 (the
    machine's locale may not exist there)."""
    return env if toolchain.root is None else dict(env, LC_ALL='C.UTF-8', LANG='C.UTF-8')

