"""Where the kernel trees, build dirs and ccache live: outside the repository."""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import os
from pathlib import Path
from typing import IO, Dict, List, Optional

from . import procs
from .exitcodes import Exit, HarnessError

CACHE_ENV = 'RXALIGN_CACHE'


def default_root() -> Path:
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser().resolve()
    xdg = os.environ.get('XDG_CACHE_HOME') or str(Path.home() / '.cache')
    return Path(xdg) / 'rx-align'


@dataclasses.dataclass(frozen=True)
class Cache:
    root: Path

    @property
    def trees(self) -> Path:
        return self.root / 'trees'

    @property
    def builds(self) -> Path:
        return self.root / 'build'

    @property
    def ccache(self) -> Path:
        return self.root / 'ccache'

    def tree(self, base_id: str) -> Path:
        return self.trees / base_id

    def build_dir(self, base_id: str, arch: str, profile: str = '') -> Path:
        return self.builds / base_id / (arch + ('-' + profile if profile else ''))


class Lock:
    """One run at a time per cache: two kunit.py builds would share build dirs.

    An flock on `lock`, held by this process and by every child it starts
    (they inherit the fd, kunit_driver._run), so a run-kunit killed by
    SIGKILL keeps the cache locked while its kunit.py, make or QEMU still
    run. The file says who holds it: `pid N`, then a `group G` line per child
    process group. A process that does not inherit the fd (kunit.py's QEMU)
    is caught through those lines: a recorded group with a live member that
    runs on this cache (its CCACHE_DIR) keeps the cache busy too.
    """

    def __init__(self, cache: Cache) -> None:
        self._path = cache.root / 'lock'
        self._mark = f'CCACHE_DIR={cache.ccache}'   # in every child's environment
        self._fd: Optional[IO[str]] = None

    def __enter__(self) -> 'Lock':
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd = open(self._path, 'a+', encoding='utf-8')
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            fd.seek(0)
            holder = ', '.join(fd.read().split('\n')[:1]) or 'another run'
            fd.close()
            if e.errno in (errno.EAGAIN, errno.EACCES):
                raise HarnessError(Exit.BUSY, f'the cache {self._path.parent} is in use by '
                                   f'{holder} (or the children of that run, if it was '
                                   f'killed); wait for it, or set {CACHE_ENV} to another '
                                   'directory') from e
            raise
        fd.seek(0)
        orphans = self._orphans(fd.read())
        if orphans:
            fcntl.flock(fd, fcntl.LOCK_UN)
            fd.close()
            shown = '; '.join(f'group {g}: {", ".join(procs.command(p) for p in pids)[:200]}'
                              for g, pids in orphans.items())
            raise HarnessError(Exit.BUSY, f'the cache {self._path.parent} is in use by '
                               f'processes a killed run left behind ({shown}); stop them '
                               f'({" ; ".join(f"kill -- -{g}" for g in orphans)}) or wait '
                               f'for them, or set {CACHE_ENV} to another directory')
        fd.seek(0)
        fd.truncate()
        fd.write(f'pid {os.getpid()}\n')
        fd.flush()
        self._fd = fd
        return self

    def _orphans(self, text: str) -> Dict[int, List[int]]:
        """The recorded process groups that still have a member on this cache."""
        found: Dict[int, List[int]] = {}
        for line in text.splitlines():
            kind, _, number = line.partition(' ')
            if kind == 'group' and number.isdigit():
                live = [p for p in procs.group_members(int(number))
                        if procs.has_env(p, self._mark)]
                if live:
                    found[int(number)] = live
        return found

    def fileno(self) -> int:
        assert self._fd is not None, 'Lock used outside its with block'
        return self._fd.fileno()

    def adopt(self, pgid: int) -> None:
        """Record a child's process group: its members hold the cache too."""
        if self._fd:
            self._fd.write(f'group {pgid}\n')
            self._fd.flush()

    def __exit__(self, *exc: object) -> None:
        if self._fd:
            self._fd.truncate(0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._fd.close()
            self._fd = None
