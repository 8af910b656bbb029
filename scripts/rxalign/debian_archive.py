"""Kernel source tarballs from Debian, for every kernel of kernels.py.

A kernel the machine's own apt sources carry is installed with apt-get as
any other package.  One from another Debian suite (Debian 13's backports on
a Debian 12 machine) is fetched through an apt configuration of our own in
the cache: its own sources list, package lists and archives directory, the
same mirror the machine uses, signatures checked against the Debian archive
keyring the machine has.  The machine's apt configuration is never changed
and nothing from those suites is installed: the .deb is unpacked, and only
its tarball is kept.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Callable, Dict, Optional, Sequence

from .cache import Cache
from .exitcodes import Exit, HarnessError
from .kernels import Kernel

KEYRING = Path('/usr/share/keyrings/debian-archive-keyring.gpg')
HOST_SRC = Path('/usr/src')
Log = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class Tarball:
    path: Path
    version: str        # the Debian package version it came from
    digest: str = ''    # its checksum, verified at this use: 'sha256:...' or 'md5:...'


def _digest(path: Path, kind: str = 'sha256') -> str:
    h = hashlib.new(kind)
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def host_tarball(kernel: Kernel) -> Tarball:
    """The tarball a machine-installed linux-source package put in /usr/src,
    checked at every use against the checksum dpkg keeps of it (from the
    package apt checked against the signed lists)."""
    path = HOST_SRC / kernel.tarball_name
    if not path.is_file():
        raise HarnessError(Exit.ENVIRONMENT, f'{path} is missing: apt-get install '
                           f'{kernel.package}')
    version = subprocess.run(['dpkg-query', '-W', '-f=${Version}', kernel.package],
                             capture_output=True, text=True, check=False).stdout.strip()
    if not version:     # put there by hand: nothing to check it against
        return Tarball(path, 'unpackaged-%d' % int(path.stat().st_mtime))
    sums = subprocess.run(['dpkg-query', '--control-path', kernel.package, 'md5sums'],
                          capture_output=True, text=True, check=False).stdout.strip()
    member = f'usr/src/{kernel.tarball_name}'     # where the package puts it
    try:
        want = next((ln.split()[0] for ln in Path(sums).read_text().splitlines()
                     if ln.split()[-1:] == [member]), '') if sums else ''
    except OSError:
        want = ''
    got = _digest(path, 'md5')
    if got != want:
        raise HarnessError(Exit.ENVIRONMENT, f'{path} is not the file {kernel.package} '
                           f'{version} installed (md5 {got}, dpkg says {want or "nothing"}): '
                           f'reinstall it: apt-get install --reinstall {kernel.package}')
    return Tarball(path, version, f'md5:{got}')


def machine_mirror() -> str:
    """The mirror the machine's apt takes its own Debian release from."""
    codename = _os_release().get('VERSION_CODENAME', '')
    proc = subprocess.run(['apt-get', 'indextargets', '--format', '$(REPO_URI) $(RELEASE)'],
                          capture_output=True, text=True, check=False)
    for line in proc.stdout.splitlines():
        uri, _, release = line.partition(' ')
        if release.strip() == codename and uri:
            return uri
    raise HarnessError(Exit.ENVIRONMENT, 'cannot tell which Debian mirror the machine uses '
                       f'(no apt source for its release {codename or "?"}); add Debian\'s '
                       'archive to the apt sources, or install the package by hand')


def _os_release() -> Dict[str, str]:
    try:
        text = Path('/etc/os-release').read_text()
    except OSError:
        return {}
    return {k: v.strip('"') for k, _, v in (ln.partition('=') for ln in text.splitlines())}


@dataclasses.dataclass(frozen=True)
class AptRoot:
    """An apt configuration of our own, for @suites, under @root."""
    root: Path
    suites: Sequence[str]
    mirror: str

    @property
    def archives(self) -> Path:
        return self.root / 'archives'

    def config(self) -> Path:
        """Write (again) the configuration; apt reads nothing of the machine's but
        its keyring and its trusted defaults."""
        for d in ('lists/partial', 'archives/partial', 'cache', 'etc/sources.list.d',
                  'etc/preferences.d', 'etc/apt.conf.d', 'etc/trusted.gpg.d'):
            (self.root / d).mkdir(parents=True, exist_ok=True)
        (self.root / 'status').touch()
        (self.root / 'etc/sources.list.d/debian.sources').write_text(
            'Types: deb\n'
            f'URIs: {self.mirror}\n'
            f'Suites: {" ".join(self.suites)}\n'
            'Components: main\n'
            f'Signed-By: {KEYRING}\n')
        conf = self.root / 'apt.conf'
        r = self.root
        conf.write_text(''.join(f'{k} "{v}";\n' for k, v in (
            ('Dir::Etc', r / 'etc'), ('Dir::Etc::main', r / 'etc/apt.conf'),
            ('Dir::Etc::Parts', r / 'etc/apt.conf.d'),
            ('Dir::Etc::SourceList', '/dev/null'),
            ('Dir::Etc::SourceParts', r / 'etc/sources.list.d'),
            ('Dir::Etc::Preferences', '/dev/null'),
            ('Dir::Etc::PreferencesParts', r / 'etc/preferences.d'),
            ('Dir::Etc::Trusted', '/dev/null'), ('Dir::Etc::TrustedParts', r / 'etc/trusted.gpg.d'),
            ('Dir::State', r), ('Dir::State::Lists', r / 'lists'),
            ('Dir::State::status', r / 'status'), ('Dir::Cache', r / 'cache'),
            ('Dir::Cache::Archives', self.archives),
            ('Acquire::Languages', 'none'), ('APT::Sandbox::User', 'root'))))
        return conf

    def _apt(self, *args: str, cwd: Optional[Path] = None) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ, APT_CONFIG=str(self.config()))
        return subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd,
                              check=False)

    def update(self) -> None:
        proc = self._apt('apt-get', 'update', '-q')
        # apt-get update exits 0 on some fetch errors; a "W:"/"E:" about a
        # source of ours means the lists are not what we asked for
        errors = [ln for ln in (proc.stdout + proc.stderr).splitlines()
                  if ln.startswith(('E:', 'Err:')) or 'NO_PUBKEY' in ln or 'not signed' in ln]
        if proc.returncode != 0 or errors:
            raise HarnessError(Exit.ENVIRONMENT, f'apt-get update for {", ".join(self.suites)} '
                               f'failed: {(errors or ["exit %d" % proc.returncode])[0]}; check '
                               f'the network and that {KEYRING} (debian-archive-keyring) '
                               'knows those suites\' keys')

    def candidate(self, package: str) -> Optional[Dict[str, str]]:
        """The fields apt knows of the version it would take, or None."""
        proc = self._apt('apt-cache', 'show', '--no-all-versions', package)
        if proc.returncode != 0 or not proc.stdout.strip():
            return None
        return {m[1]: m[2] for m in re.finditer(r'^([\w-]+): (.*)$', proc.stdout, re.M)}

    def download(self, package: str, version: str) -> Path:
        proc = self._apt('apt-get', 'download', '-q', f'{package}={version}', cwd=self.archives)
        debs = sorted(self.archives.glob(f'{package}_*.deb'))
        deb = next((d for d in debs if _deb_version(d) == version), None)
        if proc.returncode != 0 or deb is None:
            last = ((proc.stderr or proc.stdout).strip().splitlines() or ['no output'])[-1]
            raise HarnessError(Exit.ENVIRONMENT, f'apt-get download {package}={version} '
                               f'failed: {last}; check the network (a version the archive '
                               'removed is found again after the next update)')
        return deb


def _deb_version(deb: Path) -> str:
    # apt names files package_version_arch.deb with ':' escaped as %3a
    return deb.name.split('_')[1].replace('%3a', ':')


def _sha256(path: Path) -> str:
    return _digest(path)


def _record(tarball: Path) -> Path:
    """Beside a fetched tarball: its checksum, and the signed lists' checksum of
    the .deb it came out of."""
    return tarball.with_name(tarball.name + '.checksum')


def _verified(tarball: Path, version: str, deb_sha256: str) -> str:
    """The tarball's sha256 if it is the one unpacked from the .deb the signed
    lists name (its record says so, and its content is still what the record
    says); '' otherwise."""
    try:
        data = json.loads(_record(tarball).read_text())
    except (OSError, ValueError):
        return ''
    if not isinstance(data, dict) or not deb_sha256 or \
            (data.get('version'), data.get('deb_sha256')) != (version, deb_sha256):
        return ''
    got = _sha256(tarball)
    return got if got == data.get('sha256') else ''


def _set_aside(tarball: Path, log: Log) -> None:
    """A cached tarball that fails its check, or that nothing records (an older
    run-kunit fetched it): kept for a look, never used."""
    recorded = _record(tarball).is_file()
    aside = tarball.with_name(tarball.name + ('.corrupt' if recorded else '.unverified'))
    log(f'{tarball} ' + ('fails its check against the signed lists (changed or truncated)'
                         if recorded else 'has no record of the .deb it came from, so nothing '
                         'to check it against (an older run-kunit fetched it)')
        + f'; set aside as {aside.name}, fetching it anew')
    os.replace(tarball, aside)
    _record(tarball).unlink(missing_ok=True)


def fetched_tarball(kernel: Kernel, cache: Cache, log: Log) -> Tarball:
    """The tarball of @kernel's package from its suites: reused when the lists
    still name the version we have, fetched and checked otherwise."""
    apt = AptRoot(cache.root / 'apt' / '+'.join(kernel.suites), kernel.suites, machine_mirror())
    fields = apt.candidate(kernel.package) if (apt.root / 'lists').is_dir() else None
    if fields is None:
        log(f'apt-get update for {", ".join(kernel.suites)} (our own apt configuration in '
            f'{apt.root})')
        apt.update()
        fields = apt.candidate(kernel.package)
    if fields is None or 'Version' not in fields:
        raise HarnessError(Exit.ENVIRONMENT, f'{kernel.package} is not in Debian\'s '
                           f'{", ".join(kernel.suites)}; pick another --kernel '
                           '(run-kunit --list-kernels)')
    version = fields['Version']
    dest = cache.root / 'sources' / f'{kernel.package}_{version}.tar.xz'
    if dest.is_file():
        # trusted only as the tarball of the .deb the signed lists name, checked now
        got = _verified(dest, version, fields.get('SHA256', ''))
        if got:
            return Tarball(dest, version, f'sha256:{got}')
        _set_aside(dest, log)
    try:
        deb = apt.download(kernel.package, version)
    except HarnessError:
        # the lists may name a version the archive has since removed
        log(f'{kernel.package} {version} could not be fetched; updating the lists once')
        apt.update()
        fields = apt.candidate(kernel.package) or {}
        version = fields.get('Version', version)
        dest = dest.with_name(f'{kernel.package}_{version}.tar.xz')
        deb = apt.download(kernel.package, version)
    want = fields.get('SHA256', '')
    got = _sha256(deb)
    if got != want:
        bad = deb.with_suffix('.deb.corrupt')
        os.replace(deb, bad)
        raise HarnessError(Exit.ENVIRONMENT, f'{deb.name} fails its checksum (sha256 {got}, '
                           f'the signed lists say {want or "nothing"}); kept as {bad}; run '
                           'again to fetch it anew')
    log(f'unpacking {kernel.tarball_name} from {deb.name}')
    _unpack_tarball(deb, kernel, dest)
    got = _sha256(dest)
    tmp = _record(dest).with_suffix('.tmp')
    tmp.write_text(json.dumps({'version': version, 'deb_sha256': want, 'sha256': got}) + '\n')
    os.replace(tmp, _record(dest))
    deb.unlink()    # the tarball is what we keep; the .deb would double the space
    return Tarball(dest, version, f'sha256:{got}')


def _unpack_tarball(deb: Path, kernel: Kernel, dest: Path) -> None:
    """Take usr/src/<tarball> out of @deb into @dest, renamed only when whole."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f'.{dest.name}.partial'
    member = f'./usr/src/{kernel.tarball_name}'
    with open(tmp, 'wb') as out:
        deb_proc = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', str(deb)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        tar = subprocess.run(['tar', '-xO', '-f', '-', member], stdin=deb_proc.stdout,
                             stdout=out, stderr=subprocess.PIPE, check=False)
        assert deb_proc.stdout is not None
        deb_proc.stdout.close()
        deb_err = deb_proc.communicate()[1]
    if deb_proc.returncode != 0 or tar.returncode != 0 or tmp.stat().st_size == 0:
        tmp.unlink(missing_ok=True)
        why = (deb_err or tar.stderr).decode(errors='replace').strip() or f'no {member}'
        status = Exit.ENVIRONMENT if 'No space' in why else Exit.INFRA
        raise HarnessError(status, f'unpacking {deb} failed: {why}')
    os.replace(tmp, dest)


def tarball(kernel: Kernel, cache: Cache, log: Log) -> Tarball:
    return fetched_tarball(kernel, cache, log) if kernel.suites else host_tarball(kernel)
