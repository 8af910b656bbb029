"""scripts/refresh-compat: a backport of the tests follows an edit of kunit-tests/,
and a conflict writes nothing."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict

import pytest

from rxalign import refresh_compat
from rxalign.exitcodes import Exit, HarnessError
from rxalign.tree import BASE_IDENTITY, TESTS_DEST

OLD = ''.join(f'line {i}\n' for i in range(1, 21))
ENV = {**os.environ, **BASE_IDENTITY}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(['git', '-C', str(cwd), *args], capture_output=True, text=True,
                          env=ENV, check=True).stdout


def project(tmp_path: Path, text: str = OLD) -> Path:
    """A project repository whose kunit-tests/a.c is @text and b.c is OLD, committed."""
    repo = tmp_path / 'project'
    (repo / 'kunit-tests').mkdir(parents=True)
    (repo / 'kunit-tests/a.c').write_text(text)
    (repo / 'kunit-tests/b.c').write_text(OLD)
    git(repo, 'init', '-q')
    git(repo, 'add', '-A')
    git(repo, 'commit', '-q', '-m', 'tests')
    return repo


def backport(tmp_path: Path, old: str, new: str) -> Path:
    """A format-patch that turns the tests' a.c from @old into @new, and b.c's
    first line into another."""
    k = tmp_path / 'kernel'
    (k / TESTS_DEST).mkdir(parents=True)
    (k / TESTS_DEST / 'a.c').write_text(old)
    (k / TESTS_DEST / 'b.c').write_text(OLD)
    git(k, 'init', '-q')
    git(k, 'add', '-A')
    git(k, 'commit', '-q', '-m', 'base')
    (k / TESTS_DEST / 'a.c').write_text(new)
    (k / TESTS_DEST / 'b.c').write_text(changed(OLD, {1: 'line 1 of 6.12\n'}))
    git(k, 'commit', '-q', '-a', '-m', 'net: rx_align tests: build on 6.12\n\nOlder API.')
    out = tmp_path / 'for-6.12'
    out.mkdir()
    git(k, 'format-patch', '-q', '-1', '-o', str(out))
    return next(out.glob('*.patch'))


def changed(text: str, edits: Dict[int, str]) -> str:
    lines = text.splitlines(keepends=True)
    for i, line in edits.items():
        lines[i - 1] = line
    return ''.join(lines)


def test_an_edit_that_moves_the_context_rewrites_the_patch(tmp_path: Path) -> None:
    repo = project(tmp_path)
    patch = backport(tmp_path, OLD, changed(OLD, {10: 'line 10, as 6.12 has it\n'}))
    tests = repo / 'kunit-tests'
    moved = 'a comment\nanother\n' + OLD     # a.c moves, b.c stays
    (tests / 'a.c').write_text(moved)
    out = refresh_compat.refresh(patch, tests, repo, tmp_path)
    assert out.refreshed == refresh_compat.Refreshed.REWRITTEN
    text = patch.read_text()
    assert 'Subject: [PATCH] net: rx_align tests: build on 6.12' in text
    assert '@@ -9,7 +9,7 @@' in text and '+line 10, as 6.12 has it' in text
    # its pre-image is the tests as they are, and the project has that blob
    blob = git(repo, 'hash-object', str(tests / 'a.c')).strip()
    assert f'index {blob[:7]}..' in text
    git(repo, 'cat-file', '-e', blob)
    # and it applies to them
    k = tmp_path / 'check'
    (k / TESTS_DEST).mkdir(parents=True)
    (k / TESTS_DEST / 'a.c').write_text(moved)
    (k / TESTS_DEST / 'b.c').write_text(OLD)
    subprocess.run(['git', 'apply', '--check', str(patch)], cwd=k, check=True)
    assert not list(tmp_path.glob('rx-align-compat-*'))


def test_tests_as_the_patch_knew_them_leave_it_alone(tmp_path: Path) -> None:
    repo = project(tmp_path)
    patch = backport(tmp_path, OLD, changed(OLD, {10: 'line 10, as 6.12 has it\n'}))
    before = patch.read_bytes()
    out = refresh_compat.refresh(patch, repo / 'kunit-tests', repo, tmp_path)
    assert out.refreshed == refresh_compat.Refreshed.CURRENT and patch.read_bytes() == before


def test_a_conflict_writes_nothing_and_keeps_the_scratch_for_a_hand(tmp_path: Path) -> None:
    repo = project(tmp_path)
    patch = backport(tmp_path, OLD, changed(OLD, {10: 'line 10, as 6.12 has it\n'}))
    before = patch.read_bytes()
    (repo / 'kunit-tests/a.c').write_text(changed(OLD, {10: 'line 10, edited\n'}))
    with pytest.raises(HarnessError) as e:
        refresh_compat.refresh(patch, repo / 'kunit-tests', repo, tmp_path)
    assert e.value.status == Exit.PATCH
    assert f'conflict in {TESTS_DEST}/a.c' in e.value.message
    assert patch.read_bytes() == before
    scratch = list(tmp_path.glob('rx-align-compat-*'))
    assert len(scratch) == 1 and str(scratch[0]) in e.value.message
    assert '<<<<<<<' in (scratch[0] / TESTS_DEST / 'a.c').read_text()


def test_a_pre_image_the_project_never_had_is_named(tmp_path: Path) -> None:
    repo = project(tmp_path)
    never = 'a version never committed\n' + OLD
    patch = backport(tmp_path, never, changed(never, {10: 'line 9, as 6.12 has it\n'}))
    with pytest.raises(HarnessError) as e:
        refresh_compat.refresh(patch, repo / 'kunit-tests', repo, tmp_path)
    assert e.value.status == Exit.USAGE and 'shallow clone' in e.value.message


def test_a_patch_outside_the_tests_is_refused(tmp_path: Path) -> None:
    patch = tmp_path / 'x.patch'
    patch.write_text('diff --git a/net/core/dev.c b/net/core/dev.c\nindex 1234567..89abcde '
                     '100644\n--- a/net/core/dev.c\n+++ b/net/core/dev.c\n')
    with pytest.raises(HarnessError) as e:
        refresh_compat.preimages(patch)
    assert e.value.status == Exit.USAGE and 'net/core/dev.c' in e.value.message


def test_the_stored_backports_are_the_ones_it_refreshes() -> None:
    names = [p.parent.parent.name for p in refresh_compat.compat_patches()]
    assert names and all(n.startswith('for-') for n in names)
