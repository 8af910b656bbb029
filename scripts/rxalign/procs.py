"""Processes of a process group, read from /proc: kunit.py, its QEMU, make."""

from __future__ import annotations

from pathlib import Path
from typing import List


def group_members(pgid: int) -> List[int]:
    """The pids whose process group is `pgid`."""
    pids = []
    for stat in Path('/proc').glob('[0-9]*/stat'):
        try:
            fields = stat.read_text().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def has_env(pid: int, entry: str) -> bool:
    """Whether the process runs with `entry` (NAME=value) in its environment."""
    try:
        return entry.encode() in Path(f'/proc/{pid}/environ').read_bytes().split(b'\0')
    except OSError:
        return False


def command(pid: int) -> str:
    try:
        return Path(f'/proc/{pid}/cmdline').read_bytes().replace(b'\0', b' ').decode(
            errors='replace').strip()
    except OSError:
        return '?'
