"""Where results go: a new directory, filled beside it and renamed into place.

Nothing that exists is ever deleted or overwritten: --out must name a
directory that does not exist yet, or an empty one (a CI that made it).
Results are written to a new hidden sibling, `.<name>.<random>.partial`,
and renamed onto --out only when complete (run-kunit interrupted after
some arches finished completes it with those, marked partial); a run
that fails, or is interrupted before any arch finished, removes its own
partial directory and nothing else. Complete
results that cannot be renamed onto --out (another run took it) stay
where they were written, and the error names that directory (exit 9).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, List, Optional

from .exitcodes import Exit, HarnessError


def check(out: Path, opt: str = '--out') -> Path:
    """The absolute --out, or a usage error that names the fix: said before any
    work, so a path that cannot be made is refused before packages or the lock."""
    path = Path(os.path.abspath(out.expanduser()))
    _free(path, out, opt)
    _creatable(path, out, opt)
    return path


def _creatable(path: Path, out: Path, opt: str) -> None:
    """The results are written beside @path and renamed onto it: its nearest
    existing ancestor must be a directory where this user can make one. Tried
    (a directory made and removed), since permissions alone do not say it
    (/proc, a read-only mount, root)."""
    ancestor = path.parent
    while not os.path.lexists(ancestor):
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise HarnessError(Exit.USAGE, f'{opt} {out}: {ancestor} is not a directory; name a '
                           'directory that can be made')
    try:
        probe = tempfile.mkdtemp(prefix=f'.{path.name}.', suffix='.probe', dir=ancestor)
    except OSError as e:
        raise HarnessError(Exit.USAGE, f'{opt} {out}: cannot create a directory in {ancestor} '
                           f'({e.strerror}); name a directory you can write') from None
    os.rmdir(probe)


def _free(path: Path, out: Path, opt: str) -> None:
    """@path does not exist, or is an empty directory."""
    if path.is_symlink() or (path.exists() and not path.is_dir()):
        raise HarnessError(Exit.USAGE, f'{opt} {out}: exists and is not a directory; name a '
                           'new directory (nothing there is ever overwritten)')
    if path.is_dir():
        try:
            inside: List[str] = sorted(os.listdir(path))
        except OSError as e:
            raise HarnessError(Exit.USAGE, f'{opt} {out}: cannot read it: {e.strerror}') from None
        if inside:
            shown = ', '.join(inside[:3]) + (' ...' if len(inside) > 3 else '')
            raise HarnessError(Exit.USAGE, f'{opt} {out}: the directory is not empty ({shown}); '
                               'name a new or empty directory: results never replace what '
                               'is there')


class Staging:
    """A partial results directory beside `out`, renamed onto it by commit()."""

    def __init__(self, out: Path, opt: str = '--out') -> None:
        self.out = out
        self.opt = opt
        self._path: Optional[Path] = None
        self.kept = False       # it holds results of work that finished: never deleted

    @property
    def path(self) -> Path:
        assert self._path is not None, 'Staging used outside its with block'
        return self._path

    def __enter__(self) -> 'Staging':
        try:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self._path = Path(tempfile.mkdtemp(prefix=f'.{self.out.name}.', suffix='.partial',
                                               dir=self.out.parent))
        except OSError as e:
            raise HarnessError(Exit.USAGE, f'{self.opt} {self.out}: cannot create a directory '
                               f'there ({e.strerror}); name a directory you can write') from None
        return self

    def commit(self) -> None:
        """Put the complete results at `out`; if that cannot be done (another run
        took the name meanwhile, the rename failed), keep them where they are:
        they may be the only copy, and the error says where."""
        kept = self.path
        try:
            _free(self.out, self.out, self.opt)   # still new or empty?
            os.replace(kept, self.out)
        except (HarnessError, OSError) as e:
            self._path = None           # never deleted: __exit__ leaves it alone
            why = e.message if isinstance(e, HarnessError) else \
                f'{self.opt} {self.out}: {e.strerror or e}'
            raise HarnessError(Exit.NOT_PLACED, f'{why}; the complete results are kept in '
                               f'{kept} (move them where you want them)') from None
        self._path = None

    def keep(self) -> None:
        """Results of finished work are in it: whatever happens now, it stays
        (renamed onto `out` by commit(), or left where it is and named)."""
        self.kept = True

    def __exit__(self, *exc: object) -> None:
        if self._path is not None and not self.kept:
            shutil.rmtree(self._path, ignore_errors=True)   # ours, and incomplete
        self._path = None


def write(out: Path, fill: Callable[[Path], None], opt: str = '--out') -> None:
    """Fill a new directory and put it at `out` (checked with check() first)."""
    with Staging(out, opt) as staging:
        fill(staging.path)
        staging.commit()


def point_latest(latest: Path, target: Path) -> None:
    """kunit-results/latest -> the newest run, swapped in one rename."""
    tmp = latest.with_name(f'.{latest.name}.{os.getpid()}')
    tmp.unlink(missing_ok=True)
    tmp.symlink_to(target.name)
    os.replace(tmp, latest)


def check_latest(latest: Path) -> None:
    if latest.exists() and not latest.is_symlink():
        raise HarnessError(Exit.USAGE, f'{latest} is not the symlink run-kunit keeps there '
                           f'(it is a {"directory" if latest.is_dir() else "file"}): move it '
                           'away, or give --out')
