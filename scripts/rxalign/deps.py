"""Debian packages, tools and firmware each run needs; installs what is missing."""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

from .arches import Arch
from .exitcodes import Exit, HarnessError
from .kernels import Kernel
from .paths import REPO
from .probes import Runner, check as check_probe, run_here

# What every run needs, whatever the arch and kernel: the kernel's build deps.
BASE_PACKAGES = ('make', 'gcc', 'flex', 'bison', 'bc', 'libelf-dev',
                 'libssl-dev', 'ccache', 'git', 'xz-utils', 'perl', 'python3')
# --debug: a static busybox is the kmemleak /init (scripts/initramfs/kmemleak-init).
DEBUG_PACKAGES = ('busybox-static',)
NO_INSTALL_ENV = 'RXALIGN_NO_INSTALL'
# Where this project runs when the machine is not Debian 12 or 13: a Debian 13
# container, as root (apt-get installs what each run needs), the checkout at
# its own path (results name their logs by it), the cache in a named volume.
# scripts/lib.sh prints the same command (scripts/tests/test_environment.py).
CONTAINER_IMAGE = 'docker.io/library/debian:13'
CONTAINER_CACHE = '/root/.cache/rx-align'


def container_command(repo: Path = REPO, entry: str = 'run-kunit') -> str:
    """The one command that runs @entry in a Debian 13 container (docs/containers.md)."""
    return (f'podman run --rm -v {repo}:{repo}:z -w {repo} -v rx-align-cache:{CONTAINER_CACHE} '
            f'{CONTAINER_IMAGE} scripts/{entry} ARGS...')


def not_debian(what: str) -> HarnessError:
    """Exit 4 for a machine without Debian's package tools: what to run instead."""
    return HarnessError(Exit.ENVIRONMENT, f'{what}: rx-align needs Debian 12 or 13, whose '
                        'apt-get installs the compilers, QEMU and kernel sources each run '
                        'needs; run it in a Debian container instead (docker run takes the same '
                        f'arguments as podman run): {container_command()} (docs/containers.md)')


def kernel_packages(kernel: Optional[Kernel]) -> Tuple[str, ...]:
    """What brings @kernel's source: its package where the machine's apt carries it;
    where it does not, what unpacks the one debian_archive.py fetches."""
    if kernel is None:
        return ()
    return ('dpkg', 'tar', 'debian-archive-keyring') if kernel.suites else (kernel.package,)


def build_packages(arches: Iterable[Arch]) -> Tuple[str, ...]:
    """What building a kernel for @arches needs: the build deps (ccache
    among them: every make here runs through it) and each arch's compilers."""
    return tuple(dict.fromkeys(BASE_PACKAGES + tuple(p for a in arches for p in a.packages)))


def missing_packages(packages: Iterable[str]) -> List[str]:
    if not shutil.which('dpkg-query'):
        raise not_debian('this machine has no dpkg-query (it is not Debian), so the packages '
                         f'cannot be checked: {" ".join(dict.fromkeys(packages))}')
    missing = []
    for pkg in dict.fromkeys(packages):
        proc = subprocess.run(['dpkg-query', '-W', '-f=${Status}', pkg],
                              capture_output=True, text=True, check=False)
        if 'install ok installed' not in proc.stdout:
            missing.append(pkg)
    return missing


def _apt_install(packages: Sequence[str]) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    return subprocess.run(['apt-get', 'install', '-y', '-q', '--no-install-recommends',
                           *packages], capture_output=True, text=True, env=env, check=False)


def ensure_packages(packages: Iterable[str], log: Callable[[str], None]) -> None:
    missing = missing_packages(packages)
    if not missing:
        return
    cmd = 'apt-get install ' + ' '.join(missing)
    if not shutil.which('apt-get'):
        raise not_debian(f'missing packages {" ".join(missing)}, and no apt-get to install them')
    if os.environ.get(NO_INSTALL_ENV) or os.geteuid() != 0:
        raise HarnessError(Exit.ENVIRONMENT, f'missing Debian packages: {" ".join(missing)}; '
                           f'install them with: sudo {cmd}')
    log(f'installing {" ".join(missing)} (apt-get)')
    proc = _apt_install(missing)
    if proc.returncode != 0:
        subprocess.run(['apt-get', 'update', '-q'], capture_output=True, check=False)
        proc = _apt_install(missing)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ['no output'])[-1]
        raise HarnessError(Exit.ENVIRONMENT, f'{cmd} failed: {last}; check the apt sources '
                           'and run apt-get update')


@dataclasses.dataclass(frozen=True)
class Place:
    """Where an arch's compiler, QEMU and firmware are looked for: this
    machine, or a Debian root (toolchains.py), and what to do when one of
    them is not there."""
    # on the machine, looked up when called (tests replace shutil.which)
    which: Callable[[str], Optional[str]] = lambda binary: shutil.which(binary)
    exists: Callable[[str], bool] = lambda path: os.path.exists(path)
    run: Runner = lambda cmd: run_here(cmd)  # runs the compiler on a probe
    tmp: Optional[Path] = None              # a directory seen alike inside and out
    where: str = ''                         # ' in the Debian 13 root ...': after "not found"
    # what to do, given the arch's packages
    fix: Callable[[str], str] = lambda pkgs: f'apt-get install {pkgs}'


MACHINE = Place()


def check_arch_tools(arch: Arch, place: Place = MACHINE) -> None:
    """Fail before the build, never after it, when the arch cannot boot here:
    its compiler, its QEMU and the firmware files the QEMU loads (the arch
    table's `firmware`), and the probes of the compiler."""
    fix = place.fix(' '.join(arch.packages))
    gcc = f'{arch.cross_compile}gcc'
    for what, binary in (('compiler ', gcc), ('', arch.qemu_binary)):
        if binary and not place.which(binary):
            raise HarnessError(Exit.ENVIRONMENT, f'{arch.name}: {what}{binary} not found'
                               f'{place.where}; {fix}')
    for fw in arch.firmware:
        if not place.exists(fw):
            raise HarnessError(Exit.ENVIRONMENT, f'{arch.name}: QEMU firmware {fw} is '
                               f'missing{place.where}; {fix}')
    for probe in arch.probes:
        bug = check_probe(probe, arch.cross_compile, place.run, place.tmp)
        if bug:
            raise HarnessError(Exit.ENVIRONMENT, f'{arch.name}: {bug}'
                               + (f' ({place.where.strip()})' if place.where else ''))


def arch_problem(arch: Arch, log: Callable[[str], None]) -> Optional[HarnessError]:
    """Install and check what one arch needs; the problem, if any, instead of raising.

    One arch that cannot run here must not cost the others their results: it
    gets an `environment` verdict naming the fix, and the run exits 4.
    """
    try:
        ensure_packages(arch.packages, log)
        check_arch_tools(arch)
    except HarnessError as e:
        if e.status != Exit.ENVIRONMENT:
            raise
        return e
    return None
