"""A Debian root of another release in the cache, to build and boot kernels in.

Made once with mmdebstrap from Debian's packages: the mirror the machine's
own apt uses, the Release files checked against the machine's Debian
archive keyring.  The machine's apt configuration is never changed and
nothing of that release is installed on the machine: everything goes into
the root, which is built in a temporary directory and renamed into place
only when whole, so a root that failed halfway is never used.

Commands run in it through `unshare --mount` and `chroot`, with the
repository and the cache bound at the same paths, so a kernel tree, a build
dir and a QEMU config have one name inside and outside.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import deps
from .cache import Cache
from .debian_archive import KEYRING, machine_mirror
from .exitcodes import Exit, HarnessError
from .paths import REPO

Log = Callable[[str], None]
COMPLETE = '.rxalign-root-complete'    # written last, before the rename
# What every build needs inside the root (deps.BASE_PACKAGES, and what apt
# in the root checks the archive with).
ROOT_PACKAGES = ('make', 'gcc', 'flex', 'bison', 'bc', 'libelf-dev', 'libssl-dev', 'ccache',
                 'git', 'xz-utils', 'perl', 'python3', 'debian-archive-keyring',
                 'ca-certificates')
# What makes the root: Debian packages of the machine's own release.
HOST_TOOLS = ('mmdebstrap', 'debian-archive-keyring')
KEYRING_ENV = 'RXALIGN_ROOT_KEYRING'    # another keyring, for tests of a bad signature


@dataclasses.dataclass(frozen=True)
class Release:
    name: str           # --toolchain
    codename: str
    version: str        # for humans

    def describe(self) -> str:
        return f'Debian {self.version} ({self.codename})'


RELEASES: Dict[str, Release] = {r.name: r for r in (
    Release('debian-13', 'trixie', '13'),
)}

# unshare --mount gives the chroot its own mounts, gone when it exits: the
# machine's mount table never sees them.  $1 the root, $2 the working
# directory, then the paths to bind at the same place, '--', the command.
ENTER = r'''
root=$1; cwd=$2; shift 2
while [ "$1" != -- ]; do
	mkdir -p "$root$1"
	mount --bind "$1" "$root$1"
	shift
done
shift
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
exec chroot "$root" /bin/sh -c 'cd "$0" && exec "$@"' "$cwd" "$@"
'''


def _reason(output: str, keyring: Path = KEYRING) -> str:
    """The cause of a failed mmdebstrap or apt-get, and what to do, in one line."""
    lines = [ln.strip() for ln in output.splitlines() if ln.strip()]
    checks: Sequence[Tuple[Tuple[str, ...], str]] = (
        (('No space left on device',), 'disk full: free space there, or set RXALIGN_CACHE '
         'to a disk with room'),
        (('NO_PUBKEY', 'not signed', 'is not signed', 'BADSIG', 'EXPKEYSIG',
          'signatures were invalid', 'The following signatures'),
         f'the archive\'s signature does not check against {keyring}: update '
         'debian-archive-keyring'),
        (('Temporary failure resolving', 'Could not resolve', 'Failed to fetch',
          'Could not connect', 'Connection failed', 'Network is unreachable',
          'Unable to connect'),
         'no network, or the mirror is unreachable: check the network and the machine\'s '
         'apt sources, then run again'),
        (('Unable to locate package', 'has no installation candidate',
          'Unable to correct problems', 'dpkg returned an error', 'Sub-process'),
         'a package failed: see the line above; run again once the mirror has it whole'),
    )
    for needles, what in checks:
        hit = next((ln for ln in lines if any(n in ln for n in needles)), None)
        if hit:
            return f'{hit[:300]} ({what})'
    return f'{(lines or ["no output"])[-1][:300]}'


@dataclasses.dataclass(frozen=True)
class Root:
    """A complete root of @release at @path."""
    path: Path
    release: Release
    binds: Tuple[Path, ...]

    def command(self, cmd: Sequence[str], cwd: Optional[Path] = None) -> List[str]:
        """@cmd run inside the root, in @cwd (a path bound at the same place)."""
        # no --fork: the command keeps unshare's pid (kunit_driver stops a
        # guest by signalling every other member of that process group)
        return ['unshare', '--mount', '--propagation', 'private', '--',
                '/bin/sh', '-ec', ENTER, 'rxalign-root', str(self.path), str(cwd or '/'),
                *(str(b) for b in self.binds), '--', *cmd]

    def run(self, cmd: Sequence[str], cwd: Optional[Path] = None,
            env: Optional[Dict[str, str]] = None) -> 'subprocess.CompletedProcess[str]':
        return subprocess.run(self.command(cmd, cwd), capture_output=True, text=True,
                              env=env, check=False)

    def which(self, binary: str) -> Optional[str]:
        found = self.path / 'usr/bin' / binary
        return f'/usr/bin/{binary}' if found.is_file() else None

    def missing(self, packages: Sequence[str]) -> List[str]:
        status = self.path / 'var/lib/dpkg/status'
        installed = set()
        name = ''
        for line in status.read_text(errors='replace').splitlines():
            if line.startswith('Package: '):
                name = line[9:].strip()
            elif line.startswith('Status: ') and line.endswith(' installed'):
                installed.add(name)
        return [p for p in dict.fromkeys(packages) if p not in installed]

    def install(self, packages: Sequence[str], log: Log) -> None:
        """apt-get install inside the root: the machine's own apt is not involved."""
        missing = self.missing(packages)
        if not missing:
            return
        log(f'installing {" ".join(missing)} into the {self.release.describe()} root '
            f'{self.path}')
        shutil.copyfile('/etc/resolv.conf', self.path / 'etc/resolv.conf')
        env = dict(os.environ, DEBIAN_FRONTEND='noninteractive', LC_ALL='C.UTF-8')
        apt = ['apt-get', 'install', '-y', '-q', '--no-install-recommends', *missing]
        lists = self.path / 'var/lib/apt/lists'
        fresh = not any(lists.glob('*_Packages*'))   # mmdebstrap leaves none behind
        proc = self.run(['apt-get', 'update', '-q'], env=env) if fresh else None
        if proc is None or proc.returncode == 0:
            proc = self.run(apt, env=env)
        if proc.returncode != 0 and not fresh:
            self.run(['apt-get', 'update', '-q'], env=env)
            proc = self.run(apt, env=env)
        if proc.returncode != 0:
            raise HarnessError(Exit.ENVIRONMENT, f'apt-get install {" ".join(missing)} in the '
                               f'{self.release.describe()} root {self.path} failed: '
                               f'{_reason(proc.stdout + proc.stderr)}')


def root_dir(cache: Cache, release: Release, bare: bool = False) -> Path:
    """Where the root of @release lives, named by what it holds: a bare one (apt
    and the essential packages: a new machine's) is never the one that builds."""
    return cache.root / 'roots' / (release.name + ('-bare' if bare else ''))


def _clean_partials(parent: Path, release: Release) -> None:
    """Roots a killed or failed run left half made: never used, removed."""
    for stale in parent.glob(f'.{release.name}*.partial-*'):
        pid = stale.name.rsplit('-', 1)[-1]
        if pid.isdigit() and Path(f'/proc/{pid}').exists() and int(pid) != os.getpid():
            continue        # another run is making it right now
        shutil.rmtree(stale, ignore_errors=True)


def make_root(release: Release, cache: Cache, log: Log,
              keyring: Optional[Path] = None, mirror: Optional[str] = None,
              include: Sequence[str] = ROOT_PACKAGES) -> Path:
    """Make the root of @release unless a complete one is there; its path.
    @include: the packages besides apt and Debian's essential ones (none: a
    bare root, made and kept apart from the one that has them)."""
    dest = root_dir(cache, release, bare=not include)
    if (dest / COMPLETE).is_file():
        return dest
    if dest.exists():   # not ours, or from before the marker: never trusted
        raise HarnessError(Exit.ENVIRONMENT, f'{dest} exists but is not a complete root '
                           f'(no {COMPLETE}); remove it and run again')
    deps.ensure_packages(HOST_TOOLS, log)
    if not shutil.which('mmdebstrap'):
        raise HarnessError(Exit.ENVIRONMENT, 'mmdebstrap is missing; install it with: sudo '
                           'apt-get install mmdebstrap')
    keyring = keyring or Path(os.environ.get(KEYRING_ENV) or KEYRING)
    if not keyring.is_file():
        raise HarnessError(Exit.ENVIRONMENT, f'{keyring} is missing; install it with: sudo '
                           'apt-get install debian-archive-keyring')
    mirror = mirror or machine_mirror()
    dest.parent.mkdir(parents=True, exist_ok=True)
    _clean_partials(dest.parent, release)
    tmp = dest.parent / f'.{dest.name}.partial-{os.getpid()}'
    log(f'making a {release.describe()} root in {dest} (mmdebstrap, once; a few minutes)')
    cmd = ['mmdebstrap', '--mode=root', '--variant=apt', f'--keyring={keyring}',
           '--aptopt=Acquire::Languages "none"', '--dpkgopt=path-exclude=/usr/share/doc/*',
           '--dpkgopt=path-exclude=/usr/share/man/*', '--dpkgopt=path-exclude=/usr/share/locale/*',
           *([f'--include={",".join(include)}'] if include else []), release.codename, str(tmp),
           # signed-by: this keyring alone, not what the machine's apt trusts
           # (mmdebstrap's --keyring adds to /etc/apt/trusted.gpg.d); the
           # root's own debian-archive-keyring has the same path
           f'deb [signed-by={keyring}] {mirror} {release.codename} main']
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False,
                              env=dict(os.environ, LC_ALL='C.UTF-8'))
        if proc.returncode == 0:
            (tmp / COMPLETE).write_text(f'{release.describe()} from {mirror}, checked '
                                        f'against {keyring}\n')
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise HarnessError(Exit.ENVIRONMENT, f'the {release.describe()} root could not be '
                           f'made (mmdebstrap exit {proc.returncode}): '
                           f'{_reason(proc.stderr + proc.stdout, keyring)}; nothing was kept')
    try:
        os.rename(tmp, dest)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not (dest / COMPLETE).is_file():
            raise
        # another run made it meanwhile: theirs is as good as ours
    return dest


def open_root(release: Release, cache: Cache, log: Log, bare: bool = False) -> Root:
    """The root of @release, made if need be, with the repository and the cache bound;
    @bare: a new machine's, nothing but apt and the essential packages, nothing bound."""
    if os.geteuid() != 0:
        raise HarnessError(Exit.ENVIRONMENT, f'the {release.describe()} root is made and '
                           'entered as root (mmdebstrap, unshare --mount, chroot): run as '
                           'root, or leave out the arches that need it (--list-arches)')
    path = make_root(release, cache, log, include=() if bare else ROOT_PACKAGES)
    root = Root(path=path, release=release, binds=() if bare else (REPO, cache.root))
    if not bare:
        # what it holds, from its own dpkg status: a root made before
        # ROOT_PACKAGES grew gets what it lacks
        root.install(ROOT_PACKAGES, log)
    return root
