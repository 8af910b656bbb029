"""The rx-align checkout a run came from: its commit, and whether it was changed.

A report names it beside the kernel tree it tested, so that a run can be
repeated with the same harness, suites and series: `git rev-parse HEAD`,
with `-dirty` when `git status --porcelain` lists anything (a change, or
a file git does not know); nothing when this is no git checkout (a
tarball of it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from .paths import REPO

DIRTY = '-dirty'


def _git(top: Path, *args: str) -> 'subprocess.CompletedProcess[str]':
    return subprocess.run(['git', '-C', str(top), *args], capture_output=True, text=True,
                          check=False)


def commit(top: Path = REPO) -> str:
    """The commit of the checkout at @top, `-dirty` if it has changes; '' if none."""
    try:
        head = _git(top, 'rev-parse', '--verify', 'HEAD')
        if head.returncode != 0:
            return ''
        changed = _git(top, 'status', '--porcelain').stdout.strip()
    except OSError:         # no git at all
        return ''
    return head.stdout.strip() + (DIRTY if changed else '')
