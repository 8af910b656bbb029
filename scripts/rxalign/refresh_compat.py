"""scripts/refresh-compat: carry for-<kernel>/tests-compat/ over an edit of kunit-tests/.

A backport of the tests is a patch against kunit-tests/ as it was when the
patch was written: its `index` lines name those files' blobs.  After an edit
of kunit-tests/, this replays each patch as git does a rebase: the files as
they were (the blobs, from this repository's objects), then kunit-tests/ as
it is now, then `git am -3` of the patch on top, and `git format-patch` of
the result in place of the stored file.  A conflict writes nothing: the
scratch repository is kept, with the conflict, for a hand resolution.
"""

from __future__ import annotations

import argparse
import dataclasses
import enum
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import kernels, series
from .cli import error, run_main
from .exitcodes import Exit, HarnessError
from .paths import REPO, TESTS_DIR
from .tree import BASE_IDENTITY, TESTS_DEST, TEST_FILES

PROG = 'refresh-compat'
COMPAT = series.BY_NAME['tests-compat']
# `diff --git a/F b/F` then `index OLD..NEW`: the file and its blob before the patch
PREIMAGE = re.compile(r'^diff --git a/(\S+) b/\S+\n(?:(?!diff --git)[^\n]*\n)*?'
                      r'index ([0-9a-f]+)\.\.[0-9a-f]+', re.M)


class Refreshed(enum.Enum):
    CURRENT = 'up to date'          # kunit-tests/ is what the patch was written against
    REWRITTEN = 'rewritten'         # replayed on kunit-tests/ as it is now


@dataclasses.dataclass(frozen=True)
class Outcome:
    patch: Path
    refreshed: Refreshed


def _git(cwd: Path, *args: str, stdin: Optional[str] = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(['git', '-C', str(cwd), '-c', 'gc.auto=0', *args], input=stdin,
                          capture_output=True, text=True, env={**os.environ, **BASE_IDENTITY},
                          check=False)
    if check and proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'git {" ".join(args[:2])} failed in {cwd}: '
                           f'{(proc.stderr or proc.stdout).strip()}')
    return proc


def preimages(patch: Path) -> Dict[str, str]:
    """The files @patch changes under the tests' directory, and the blob of each before it."""
    found = {m.group(1): m.group(2) for m in PREIMAGE.finditer(patch.read_text())}
    outside = [f for f in found if not f.startswith(TESTS_DEST + '/')]
    if not found or outside:
        raise HarnessError(Exit.USAGE, f'{patch} is no tests-compat patch: it must change '
                           f'files of {TESTS_DEST}/ only, with git\'s index lines '
                           f'({", ".join(outside) or "no file found"}); write it with '
                           'git format-patch')
    return found


def _blob(repo: Path, blob: str, name: str, patch: Path) -> str:
    proc = _git(repo, 'cat-file', 'blob', blob, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.USAGE, f'{patch.name}: {name} as the patch was written '
                           f'against (blob {blob}) is not among the objects of {repo}; '
                           'fetch the full history (a shallow clone lacks it), or rebase '
                           'the patch by hand')
    return proc.stdout


def _tests(tests_dir: Path) -> Dict[str, str]:
    return {f'{TESTS_DEST}/{f.name}': f.read_text() for f in sorted(tests_dir.iterdir())
            if f.is_file() and TEST_FILES.match(f.name)}


def _commit(scratch: Path, files: Dict[str, str], message: str) -> None:
    for name, text in files.items():
        path = scratch / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(scratch, 'add', '-A')
    _git(scratch, 'commit', '-q', '-m', message)


def refresh(patch: Path, tests_dir: Path = TESTS_DIR, repo: Path = REPO,
            scratch_parent: Optional[Path] = None) -> Outcome:
    """Replay @patch on @tests_dir; rewrite it in place when the tests moved."""
    now = _tests(tests_dir)
    before = {name: _blob(repo, blob, name, patch) for name, blob in preimages(patch).items()}
    missing = [name for name in before if name not in now]
    if missing:
        raise HarnessError(Exit.PATCH, f'{patch.name} changes {", ".join(missing)}, which '
                           f'{tests_dir} no longer has; write that part of the backport again')
    if all(now[name] == text for name, text in before.items()):
        return Outcome(patch, Refreshed.CURRENT)
    # The rewritten patch's index lines name these blobs: the next refresh,
    # before kunit-tests/ is committed, must find them.
    for name in before:
        _git(repo, 'hash-object', '-w', '--stdin', stdin=now[name])
    scratch = Path(tempfile.mkdtemp(prefix='rx-align-compat-', dir=scratch_parent))
    _git(scratch, 'init', '-q')
    _commit(scratch, {**now, **before}, 'kunit-tests/ as the patch knew it')
    _commit(scratch, now, 'kunit-tests/ now')
    proc = _git(scratch, 'am', '-q', '-3', '--committer-date-is-author-date', str(patch),
                check=False)
    if proc.returncode != 0:
        conflicts = _git(scratch, 'diff', '--name-only', '--diff-filter=U',
                         check=False).stdout.split()
        raise HarnessError(Exit.PATCH, f'{patch.name} does not replay on {tests_dir} '
                           f'(conflict in {", ".join(conflicts) or "?"}); nothing written. '
                           f'Resolve it in {scratch} (then git am --continue there) and '
                           f'git format-patch -1 -o {patch.parent} there')
    text = _git(scratch, 'format-patch', '-1', '--stdout', 'HEAD').stdout
    shutil.rmtree(scratch)
    tmp = patch.with_name(f'.{patch.name}.tmp')
    tmp.write_text(text)
    os.replace(tmp, patch)
    return Outcome(patch, Refreshed.REWRITTEN)


def compat_patches() -> List[Path]:
    """Every stored backport of the tests, older kernels first."""
    return [p for k in kernels.KERNELS if k != kernels.NEWEST for p in COMPAT.patches(k)]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split('\n')[0])
    p.add_argument('patches', nargs='*', type=Path,
                   help='tests-compat patches (default: every kernel-patches/for-*/tests-compat/)')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    patches = args.patches or compat_patches()
    for patch in patches:
        if not patch.is_file():
            raise HarnessError(Exit.USAGE, f'{patch}: no such file')
    # each patch on its own: a conflict in one leaves the others replayed
    failed: List[HarnessError] = []
    for patch in patches:
        try:
            print(f'{patch}: {refresh(patch).refreshed.value}', flush=True)
        except HarnessError as e:
            if e.status != Exit.PATCH:
                raise
            error(PROG, e.message)
            failed.append(e)
    if failed:
        raise HarnessError(Exit.PATCH, f'{len(failed)} of {len(patches)} patch(es) did not '
                           'replay (above); the others are written')
    return 0


if __name__ == '__main__':
    sys.exit(run_main(PROG, main))
