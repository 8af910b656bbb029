"""Kernel tarballs from Debian: trusted by their checksum at every use, never
because they are there (issue 41 item 12; each test failed before its fix)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from rxalign import debian_archive, kernels
from rxalign.cache import Cache
from rxalign.exitcodes import Exit, HarnessError

KERNEL = kernels.Kernel('9.9', 'linux-source-9.9', 'a test', suites=('trixie',))
DEB = b'the .deb the signed lists name'
TARBALL = b'the tarball inside it'


class FakeApt:
    """An apt whose signed lists name one version of the package, whose .deb
    is DEB; each download counted."""

    def __init__(self, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.downloads = 0
        monkeypatch.setattr(debian_archive, 'machine_mirror', lambda: 'http://mirror.invalid/')
        monkeypatch.setattr(debian_archive.AptRoot, 'update', lambda apt: (apt.root / 'lists')
                            .mkdir(parents=True, exist_ok=True))
        monkeypatch.setattr(debian_archive.AptRoot, 'candidate',
                            lambda apt, package: self.candidate(apt, package))
        monkeypatch.setattr(debian_archive.AptRoot, 'download',
                            lambda apt, package, version: self.download(apt, package, version))
        monkeypatch.setattr(debian_archive, '_unpack_tarball', self.unpack)

    def candidate(self, apt: debian_archive.AptRoot, package: str) -> Optional[Dict[str, str]]:
        return {'Version': '9.9.1-1', 'SHA256': hashlib.sha256(DEB).hexdigest()}

    def download(self, apt: debian_archive.AptRoot, package: str, version: str) -> Path:
        self.downloads += 1
        apt.archives.mkdir(parents=True, exist_ok=True)
        deb = apt.archives / f'{package}_{version}_all.deb'
        deb.write_bytes(DEB)
        return deb

    def unpack(self, deb: Path, kernel: kernels.Kernel, dest: Path) -> None:
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(TARBALL)


def fetch(tmp: Path, said: Optional[List[str]] = None) -> debian_archive.Tarball:
    return debian_archive.fetched_tarball(KERNEL, Cache(tmp / 'cache'),
                                          (said if said is not None else []).append)


@pytest.mark.parametrize('spoil', [
    lambda p: p.write_bytes(b'a tarball someone put there'),
    lambda p: p.write_bytes(TARBALL[:5]),                       # truncated
    lambda p: Path(f'{p}.checksum').unlink(),                   # no record of where it came from
    lambda p: Path(f'{p}.checksum').write_text('{"version": "9.9.1-1", "deb_sha256": "0", '
                                               f'"sha256": "{hashlib.sha256(TARBALL).hexdigest()}"}}'),
])
def test_a_cached_tarball_is_used_only_when_it_checks(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     spoil: object) -> None:
    """A cached tarball was trusted because it existed: a tampered one became
    the "pristine" tree, a truncated one was exit 3 on every run. It is kept
    with the signed lists' checksum of its .deb and its own, checked at every
    use; one that fails is set aside and fetched anew."""
    apt = FakeApt(tmp_path, monkeypatch)
    first = fetch(tmp_path)
    assert first.path.read_bytes() == TARBALL and apt.downloads == 1
    assert first.digest == 'sha256:' + hashlib.sha256(TARBALL).hexdigest()
    assert fetch(tmp_path).path == first.path and apt.downloads == 1     # checks: reused
    spoil(first.path)   # type: ignore[operator]
    said: List[str] = []
    again = fetch(tmp_path, said)
    assert apt.downloads == 2 and again.path.read_bytes() == TARBALL
    assert any('set aside as' in s for s in said), said
    assert again.digest == first.digest


def fake_dpkg(tmp: Path, monkeypatch: pytest.MonkeyPatch, md5: str) -> None:
    """dpkg-query of an installed linux-source-9.9 whose md5sums say @md5."""
    bin_dir = tmp / 'bin'
    bin_dir.mkdir()
    sums = tmp / 'linux-source-9.9.md5sums'
    sums.write_text(f'{md5}  usr/src/linux-source-9.9.tar.xz\n')
    (bin_dir / 'dpkg-query').write_text(
        '#!/bin/sh\ncase "$*" in *control-path*) echo ' + str(sums) + ' ;; *) printf 9.9.1-1 ;; '
        'esac\n')
    (bin_dir / 'dpkg-query').chmod(0o755)
    monkeypatch.setenv('PATH', f'{bin_dir}:{os.environ["PATH"]}')


def test_an_installed_tarball_is_checked_against_what_dpkg_installed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tarball in /usr/src was trusted because it existed."""
    src = tmp_path / 'usr/src'
    src.mkdir(parents=True)
    (src / 'linux-source-9.9.tar.xz').write_bytes(TARBALL)
    fake_dpkg(tmp_path, monkeypatch, hashlib.md5(TARBALL).hexdigest())
    monkeypatch.setattr(debian_archive, 'HOST_SRC', src)
    tarball = debian_archive.host_tarball(kernels.Kernel('9.9', 'linux-source-9.9', 'a test'))
    assert tarball.digest == 'md5:' + hashlib.md5(TARBALL).hexdigest()
    (src / 'linux-source-9.9.tar.xz').write_bytes(TARBALL[:5])
    with pytest.raises(HarnessError) as err:
        debian_archive.host_tarball(kernels.Kernel('9.9', 'linux-source-9.9', 'a test'))
    assert err.value.status == Exit.ENVIRONMENT
    assert 'apt-get install --reinstall linux-source-9.9' in err.value.message
