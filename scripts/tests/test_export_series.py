"""scripts/export-series: the send-ready copy is signed by a real person."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rxalign import export_series, kernels, series
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import SERIES_DIR

WHO = export_series.Identity('Ada Lovelace', 'ada@kernel-dev.org')


def git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **values: str) -> Path:
    home = tmp_path / 'home'
    home.mkdir()
    monkeypatch.setenv('HOME', str(home))
    monkeypatch.setenv('GIT_CONFIG_NOSYSTEM', '1')
    for key, value in values.items():
        subprocess.run(['git', 'config', '--global', f'user.{key}', value], check=True)
    return home


@pytest.mark.parametrize('email', ['maintainers@users.noreply.a-seed-46f523d0.example',
                                   'me@localhost', 'dev@example.org', 'root'])
def test_a_placeholder_identity_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           email: str) -> None:
    home = git_config(tmp_path, monkeypatch, name='Some One', email=email)
    with pytest.raises(HarnessError) as err:
        export_series.git_identity(home)
    assert err.value.status == Exit.USAGE and 'git config --global' in err.value.message


def test_no_identity_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = git_config(tmp_path, monkeypatch)
    with pytest.raises(HarnessError) as err:
        export_series.git_identity(home)
    assert err.value.status == Exit.USAGE and 'no git identity' in err.value.message


def test_a_real_identity_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = git_config(tmp_path, monkeypatch, name=WHO.name, email=WHO.email)
    assert export_series.git_identity(home) == WHO


def test_every_patch_of_the_net_series_is_signed_by_the_sender() -> None:
    net = series.BY_NAME['net'].directory(kernels.NEWEST, SERIES_DIR)
    files = sorted(net.glob('*.patch'))
    assert files
    for f in files:
        text = export_series.resign(f.read_text(), WHO)
        assert '.example' not in text, f.name
        assert text.count(f'From: {WHO}\n') == 1, f.name
        if f.name != series.COVER_LETTER:
            assert f'\nSigned-off-by: {WHO}\n' in text, f.name
        else:
            assert f'\n{WHO.name} (' in text


def test_someone_elses_patch_keeps_its_author_and_gets_our_sign_off() -> None:
    text = ('From 1 Mon Sep 17 00:00:00 2001\nFrom: Real Author <real@kernel.org>\n'
            'Subject: [PATCH] x\n\nwhy\n\nSigned-off-by: Real Author <real@kernel.org>\n'
            '---\n x | 1 +\n')
    out = export_series.resign(text, WHO)
    assert 'From: Real Author <real@kernel.org>' in out
    assert ('Signed-off-by: Real Author <real@kernel.org>\n'
            f'Signed-off-by: {WHO}\n---\n') in out


def test_recipients_follow_the_subject() -> None:
    text = 'From: a <a@b.org>\nSubject: [PATCH net] a long\n subject\n\nbody\n'
    out = export_series.add_recipients(text, ['netdev@vger.kernel.org'], ['X <x@y.org>'])
    assert out == ('From: a <a@b.org>\nSubject: [PATCH net] a long\n subject\n'
                   'To: netdev@vger.kernel.org\nCc: X <x@y.org>\n\nbody\n')


def test_get_maintainer_names_netdev_for_the_net_series() -> None:
    tarball = Path('/usr/src/linux-source-6.12.tar.xz')
    if not tarball.is_file():
        pytest.skip(f'{tarball} is not installed')
    net = series.BY_NAME['net'].patches(kernels.NEWEST, SERIES_DIR)
    lists, people = export_series.maintainers(net, tarball)
    assert 'netdev@vger.kernel.org' in ' '.join(lists)
    assert people
