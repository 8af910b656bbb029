"""Where the kernel trees, build dirs and ccache live: outside the repository."""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import os
from pathlib import Path
from typing import IO, Optional

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
    """One run at a time per cache: two kunit.py builds would share build dirs."""

    def __init__(self, cache: Cache) -> None:
        self._path = cache.root / 'lock'
        self._fd: Optional[IO[str]] = None

    def __enter__(self) -> 'Lock':
        self._path.parent.mkdir(parents=True, exist_ok=True)
        fd = open(self._path, 'a+', encoding='utf-8')
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            fd.seek(0)
            holder = fd.read().strip() or 'another run'
            fd.close()
            if e.errno in (errno.EAGAIN, errno.EACCES):
                raise HarnessError(Exit.BUSY, f'the cache {self._path.parent} is in use by '
                                   f'{holder}; wait for it, or set {CACHE_ENV} to another '
                                   'directory') from e
            raise
        fd.seek(0)
        fd.truncate()
        fd.write(f'pid {os.getpid()}\n')
        fd.flush()
        self._fd = fd
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fd:
            self._fd.truncate(0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            self._fd.close()
            self._fd = None
