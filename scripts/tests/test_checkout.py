"""checkout.py: the rx-align commit a report names, -dirty when changed."""

from __future__ import annotations

import subprocess
from pathlib import Path

from rxalign import checkout


def git(top: Path, *args: str) -> str:
    return subprocess.run(['git', '-C', str(top), '-c', 'user.name=t', '-c', 'user.email=t@t',
                           *args], capture_output=True, text=True, check=True).stdout.strip()


def test_the_commit_clean_changed_and_none(tmp_path: Path) -> None:
    """Issue 43.8: a report did not say which rx-align ran it."""
    top = tmp_path / 'rx-align'
    top.mkdir()
    assert checkout.commit(top) == ''                   # not a git checkout
    git(top, 'init', '-q')
    assert checkout.commit(top) == ''                   # no commit yet
    (top / 'README.md').write_text('x\n')
    git(top, 'add', 'README.md')
    git(top, 'commit', '-q', '-m', 'one')
    head = git(top, 'rev-parse', 'HEAD')
    assert checkout.commit(top) == head
    (top / 'README.md').write_text('y\n')
    assert checkout.commit(top) == head + checkout.DIRTY
    (top / 'README.md').write_text('x\n')
    (top / 'new.py').write_text('')                     # a file git does not know
    assert checkout.commit(top) == head + checkout.DIRTY
