"""checkpatch's flags and what each series keeps are decided once
(rxalign/checkpatch_policy.py) and read by scripts/checkpatch and
scripts/upstream-check alike."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from rxalign import checkpatch_policy
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import SERIES_DIR

SCRIPTS = Path(__file__).resolve().parents[1]


def _fake_dpkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listing: str) -> None:
    dpkg = tmp_path / 'dpkg'
    dpkg.write_text(f'#!/bin/sh\nprintf "%s\\n" "{listing}"\n')
    dpkg.chmod(dpkg.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('PATH', f'{tmp_path}{os.pathsep}{os.environ["PATH"]}')


def test_netdev_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_dpkg(tmp_path, monkeypatch, '/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt')
    args = checkpatch_policy.arguments('net-next')
    assert '--strict' in args and '--max-line-length=80' in args and '--codespell' in args
    assert '--codespellfile=/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt' in args
    assert args[-2:] == ('--ignore', 'FILE_PATH_CHANGES')
    assert 'FILE_PATH_CHANGES' not in checkpatch_policy.arguments('net')


def test_no_dictionary_is_an_environment_error(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_dpkg(tmp_path, monkeypatch, '/usr/bin/codespell')
    with pytest.raises(HarnessError) as err:
        checkpatch_policy.arguments()
    assert err.value.status == Exit.ENVIRONMENT and 'reinstall codespell' in str(err.value)


def test_every_kept_type_names_a_series_and_a_reason() -> None:
    series = {p.name for p in SERIES_DIR.glob('*/')} | {p.name for p in SERIES_DIR.glob('for-*/*/')}
    for name, kept in checkpatch_policy.KEEP.items():
        assert name in series, f'{name}: no such series in kernel-patches/'
        assert all(len(reason) > 20 for _, reason in kept)


def test_the_shell_script_reads_the_policy() -> None:
    text = (SCRIPTS / 'checkpatch').read_text()
    assert 'rxalign.checkpatch_policy_main' in text
    assert '--max-line-length' not in text.replace('# ', '').split('policy()')[1]
