"""kunit-tests/ as the KUnit series is mailed: `git format-patch` of its posted commits.

On a worktree of the pristine base (tree.pristine_worktree), the tests are
committed as kunit-tests/commits/ says and the posted commits formatted,
with the cover letter's subject and text from
kunit-tests/commits/0000-cover-letter.msg.  scripts/export-series --refresh
writes them to kernel-patches/net-next/; scripts/upstream-check compares
that copy with a fresh one.
"""

from __future__ import annotations

import datetime
import os
import re
import subprocess
from pathlib import Path
from typing import List

from . import kunit_series, mail, tree
from .exitcodes import Exit, HarnessError

PREFIX = 'PATCH net-next'


def _git(cwd: Path, *args: str, check: bool = True,
         who: str = '') -> 'subprocess.CompletedProcess[str]':
    """git in @cwd, as @who ("Name <address>": the cover letter's sender)."""
    env = {**os.environ, **tree.BASE_IDENTITY}
    m = re.fullmatch(r'(.+?) <(.+)>', who)
    if m:
        env.update(GIT_COMMITTER_NAME=m.group(1), GIT_COMMITTER_EMAIL=m.group(2))
    proc = subprocess.run(['git', '-C', str(cwd), '-c', 'gc.auto=0', *args],
                          capture_output=True, text=True, env=env, check=False)
    if check and proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'git {" ".join(args[:2])} in {cwd}: '
                           f'{(proc.stderr or proc.stdout).strip()}')
    return proc


def reset(worktree: Path) -> None:
    """Back to the pristine base, nothing half-applied."""
    _git(worktree, 'am', '--abort', check=False)
    _git(worktree, 'checkout', '-q', '-f', '--detach', 'pristine')
    _git(worktree, 'clean', '-q', '-fdx')


def fill_cover_letter(path: Path, tests_dir: Path) -> None:
    """format-patch's cover letter with the subject and text we wrote."""
    text = kunit_series.cover_letter(tests_dir).read_text()
    subject, _, body = text.partition('\n\n')
    letter = path.read_text()
    if '*** SUBJECT HERE ***' not in letter or '*** BLURB HERE ***' not in letter:
        raise HarnessError(Exit.INFRA, f'{path}: not git format-patch\'s cover letter')
    letter = letter.replace('*** SUBJECT HERE ***', subject.strip())
    letter = letter.replace('*** BLURB HERE ***', body.strip('\n'))
    path.write_text(letter)


def make(worktree: Path, tests_dir: Path, out: Path) -> List[Path]:
    """The posted commits of @tests_dir as mails in @out, cover letter first."""
    reset(worktree)
    try:
        tree.commit_tests(worktree, tests_dir)
        commits = kunit_series.read(tests_dir)
        local = sum(c.posted is kunit_series.Posted.LOCAL for c in commits)
        tip = f'HEAD~{local}' if local else 'HEAD'
        _git(worktree, 'format-patch', '-q', '--cover-letter', f'--subject-prefix={PREFIX}',
             '-o', str(out), f'pristine..{tip}', who=commits[0].author)
    finally:
        reset(worktree)
    made = sorted(out.glob('*.patch'))
    fill_cover_letter(made[0], tests_dir)
    now = datetime.datetime.now(datetime.timezone.utc)
    for p in made:
        # the commits are dated 2000 so that a tree is the same every time it
        # is made; the mail is dated when it is written (git am needs a date)
        p.write_text(mail.dated(p.read_text(), now))
    return made
