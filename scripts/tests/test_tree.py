"""Tree preparation on a small fake tree: layers, reuse, mtimes, bad patches."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from rxalign import patches, tree
from rxalign.cache import Cache
from rxalign.exitcodes import Exit, HarnessError

PATCH = '''From: Dev <dev@example.org>
Date: Thu, 3 Dec 2026 00:00:00 +0000
Subject: [PATCH] net: pad of 64

---
--- a/net/core/skbuff.c
+++ b/net/core/skbuff.c
@@ -1 +1 @@
-int skb_pad = 32;
+int skb_pad = 64;
-- 
2.39.5
'''


def snapshot(root: Path) -> Dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob('*')}


def make_tests_dir(tmp_path: Path, body: str = 'int x;\n', other: bool = False) -> Path:
    d = tmp_path / 'kunit-tests'
    (d / 'commits').mkdir(parents=True, exist_ok=True)
    (d / 'Kconfig').write_text('config FAKE_KUNIT_TEST\n\ttristate "fake"\n')
    (d / 'Makefile').write_text('obj-$(CONFIG_FAKE_KUNIT_TEST) += fake_kunit.o\n'
                                'obj-$(CONFIG_FAKE_KUNIT_TEST) += other_kunit.o\n')
    (d / 'fake_kunit.c').write_text(body)
    if other:
        (d / 'other_kunit.c').write_text('int other;\n')
    files = 'fake_kunit.c other_kunit.c' if other else 'fake_kunit.c'
    (d / 'commits' / '0001-fake.msg').write_text(
        f'Files: {files}\nPosted: net-next\nFrom: Dev <dev@example.org>\n\n'
        'net: add fake test\n\nSigned-off-by: Dev <dev@example.org>\n')
    (d / 'notes.txt').write_text('not copied\n')
    return d


def layers(series: List[Path], tests: Path) -> List[tree.Layer]:
    return [tree.Layer('series', patches=tuple(series)), tree.Layer('tests', tests_dir=tests)]


def git_log(path: Path) -> List[str]:
    out = subprocess.run(['git', '-C', str(path), 'log', '--format=%s'], capture_output=True,
                         text=True, check=True).stdout
    return out.splitlines()


def test_layers_become_commits_and_the_user_tree_is_untouched(
        fake_tree: Path, tmp_path: Path) -> None:
    patch = tmp_path / '0001-pad.patch'
    patch.write_text(PATCH)
    before = snapshot(fake_tree)
    cache = Cache(tmp_path / 'cache')
    prepared = tree.prepare(cache, tree.user_base(fake_tree),
                            layers([patch], make_tests_dir(tmp_path)), lambda m: None)
    assert snapshot(fake_tree) == before and not (fake_tree / '.git').exists()
    t = prepared.path
    assert git_log(t) == ['net: add fake test', 'net: pad of 64', f'{fake_tree} (as found)']
    assert (t / 'net/core/skbuff.c').read_text() == 'int skb_pad = 64;\n'
    assert (t / 'net/core/tests/fake_kunit.c').exists()
    assert not (t / 'net/core/tests/notes.txt').exists()
    kconfig = (t / 'net/Kconfig').read_text()
    assert kconfig.index(tree.KCONFIG_LINE) < kconfig.index('endif   # if NET')
    assert (t / 'net/core/Makefile').read_text().endswith(tree.MAKEFILE_LINE)


def test_unchanged_inputs_reuse_the_tree_and_keep_mtimes(fake_tree: Path, tmp_path: Path) -> None:
    patch = tmp_path / '0001-pad.patch'
    patch.write_text(PATCH)
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    first = tree.prepare(cache, base, layers([patch], make_tests_dir(tmp_path)), lambda m: None)
    before = snapshot(first.path / 'net')
    again = tree.prepare(cache, base, layers([patch], make_tests_dir(tmp_path)), lambda m: None)
    assert again.reused and again.head == first.head
    assert snapshot(first.path / 'net') == before


def test_a_test_edit_rewrites_only_the_test_layer(fake_tree: Path, tmp_path: Path) -> None:
    patch = tmp_path / '0001-pad.patch'
    patch.write_text(PATCH)
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    first = tree.prepare(cache, base, layers([patch], make_tests_dir(tmp_path)), lambda m: None)
    skbuff = first.path / 'net/core/skbuff.c'
    mtime = skbuff.stat().st_mtime_ns
    second = tree.prepare(cache, base, layers([patch], make_tests_dir(tmp_path, 'int y;\n')),
                          lambda m: None)
    assert not second.reused and second.head != first.head
    assert skbuff.stat().st_mtime_ns == mtime
    assert (second.path / 'net/core/tests/fake_kunit.c').read_text() == 'int y;\n'


def test_a_test_edit_keeps_the_mtime_of_every_file_it_did_not_change(
        fake_tree: Path, tmp_path: Path) -> None:
    """The tests layer is redone whole; make must still see only the edited file as new."""
    patch = tmp_path / '0001-pad.patch'
    patch.write_text(PATCH)
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    tests = make_tests_dir(tmp_path, other=True)
    first = tree.prepare(cache, base, layers([patch], tests), lambda m: None)
    t = first.path
    old = {f: os.stat(t / f).st_mtime_ns - 10**9 for f in
           ('net/Kconfig', 'net/core/Makefile', 'net/core/tests/other_kunit.c',
            'net/core/tests/fake_kunit.c')}
    for f, mtime in old.items():   # as if built a second ago
        os.utime(t / f, ns=(mtime, mtime))
    (tests / 'fake_kunit.c').write_text('int y;\n')
    second = tree.prepare(cache, base, layers([patch], tests), lambda m: None)
    assert not second.reused
    after = {f: os.stat(t / f).st_mtime_ns for f in old}
    assert after['net/core/tests/fake_kunit.c'] > old['net/core/tests/fake_kunit.c']
    del after['net/core/tests/fake_kunit.c'], old['net/core/tests/fake_kunit.c']
    assert after == old


def test_a_changed_user_tree_is_seen(fake_tree: Path, tmp_path: Path) -> None:
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    first = tree.prepare(cache, base, layers([], make_tests_dir(tmp_path)), lambda m: None)
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 128;\n')
    second = tree.prepare(cache, base, layers([], make_tests_dir(tmp_path)), lambda m: None)
    assert second.base_commit != first.base_commit
    assert (second.path / 'net/core/skbuff.c').read_text() == 'int skb_pad = 128;\n'


def test_a_patch_that_does_not_apply_is_named_and_leaves_no_half_tree(
        fake_tree: Path, tmp_path: Path) -> None:
    good = tmp_path / '0001-pad.patch'
    good.write_text(PATCH)
    bad = tmp_path / '0002-stale.patch'
    bad.write_text(PATCH.replace('net: pad of 64', 'net: stale'))  # applies to the old line
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    tests = make_tests_dir(tmp_path)
    ok = tree.prepare(cache, base, layers([good], tests), lambda m: None)
    with pytest.raises(HarnessError) as err:
        tree.prepare(cache, base, [*layers([good], tests),
                                   tree.Layer('extra', extra=patches.read([bad])[0].patches)],
                     lambda m: None)
    assert err.value.status == Exit.PATCH
    assert '0002-stale.patch' in err.value.message and '--patches' in err.value.message
    t = ok.path
    assert not (t / '.git/rebase-apply').exists()
    assert subprocess.run(['git', '-C', str(t), 'status', '--porcelain'], capture_output=True,
                          text=True, check=True).stdout == ''
    assert subprocess.run(['git', '-C', str(t), 'rev-parse', 'HEAD'], capture_output=True,
                          text=True, check=True).stdout.strip() == ok.head
    # and the next run with the good stack reuses the tree as it is
    assert tree.prepare(cache, base, layers([good], tests), lambda m: None).reused


def test_not_a_kernel_tree_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(HarnessError) as err:
        tree.user_base(tmp_path)
    assert err.value.status == Exit.USAGE and 'kunit.py' in err.value.message


def test_a_dirty_test_tree_is_repaired(fake_tree: Path, tmp_path: Path) -> None:
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    first = tree.prepare(cache, base, layers([], make_tests_dir(tmp_path)), lambda m: None)
    (first.path / 'net/core/skbuff.c').write_text('edited by hand\n')
    os.remove(first.path / 'net/core/tests/fake_kunit.c')
    second = tree.prepare(cache, base, layers([], make_tests_dir(tmp_path)), lambda m: None)
    assert not second.reused
    assert (second.path / 'net/core/skbuff.c').read_text() == 'int skb_pad = 32;\n'
    assert (second.path / 'net/core/tests/fake_kunit.c').exists()


SYMLINK_PATCH = '''From: Dev <dev@example.org>
Date: Thu, 3 Dec 2026 00:00:00 +0000
Subject: [PATCH] net: an alias of skbuff.c

---
diff --git a/net/core/skbuff_alias.c b/net/core/skbuff_alias.c
new file mode 120000
--- /dev/null
+++ b/net/core/skbuff_alias.c
@@ -0,0 +1 @@
+skbuff.c
\\ No newline at end of file
-- 
2.39.5
'''


def test_a_symlink_whose_blob_came_back_does_not_date_back_its_changed_target(
        fake_tree: Path, tmp_path: Path) -> None:
    """A layer's symlink is the same after a redo, its target is not: the target
    must keep the new mtime (utime follows the link), or make keeps objects built
    from the target's old content."""
    link = tmp_path / '0001-alias.patch'
    link.write_text(SYMLINK_PATCH)
    pad = tmp_path / '0002-pad.patch'
    pad.write_text(PATCH)
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    tests = make_tests_dir(tmp_path)
    first = tree.prepare(cache, base, layers([link, pad], tests), lambda m: None)
    skbuff = first.path / 'net/core/skbuff.c'
    assert (first.path / 'net/core/skbuff_alias.c').is_symlink()
    old = skbuff.stat().st_mtime_ns - 10**9
    os.utime(skbuff, ns=(old, old))   # skbuff.o built (from pad 64) after this
    pad.write_text(PATCH.replace('64', '128'))
    second = tree.prepare(cache, base, layers([link, pad], tests), lambda m: None)
    assert skbuff.read_text() == 'int skb_pad = 128;\n'
    assert skbuff.stat().st_mtime_ns > old


def test_a_user_tree_that_changed_everywhere_is_prepared(fake_tree: Path, tmp_path: Path) -> None:
    """A --tree checkout moved to another kernel version changes tens of thousands
    of files: more names than one command line holds (ARG_MAX)."""
    cache = Cache(tmp_path / 'cache')
    base = tree.user_base(fake_tree)
    tests = make_tests_dir(tmp_path)
    tree.prepare(cache, base, layers([], tests), lambda m: None)
    deep = fake_tree / 'drivers' / ('d' * 200) / ('e' * 200) / ('f' * 200)
    deep.mkdir(parents=True)
    for i in range(os.sysconf('SC_ARG_MAX') // 800 + 1):   # ~800 bytes a name
        (deep / f'{i:06d}{"g" * 200}.c').write_text(f'int n{i};\n')
    second = tree.prepare(cache, base, layers([], tests), lambda m: None)
    assert not second.reused and (second.path / 'drivers').is_dir()


def snapshot_files(fake_tree: Path, tmp_path: Path) -> List[str]:
    """What a prepared tree of @fake_tree tracks."""
    prepared = tree.prepare(Cache(tmp_path / 'cache'), tree.user_base(fake_tree), [],
                            lambda _: None)
    return subprocess.run(['git', '-C', str(prepared.path), 'ls-files'], capture_output=True,
                          text=True, check=True).stdout.split()


def commit_all(path: Path, force: bool = False) -> None:
    git = ['git', '-C', str(path), '-c', 'user.name=u', '-c', 'user.email=u@e']
    subprocess.run([*git, 'init', '-q'], check=True)
    subprocess.run([*git, 'add', *(['-f'] if force else []), '.'], check=True)
    subprocess.run([*git, 'commit', '-q', '-m', 'kernel'], check=True)


def test_a_tree_that_ignores_everything_is_snapshotted_whole(fake_tree: Path, tmp_path: Path) -> None:
    """Debian's kernel source packages end their top-level .gitignore with
    "/*" and "!/debian/": the snapshot takes the sources all the same, and
    leaves out what an in-place build wrote."""
    (fake_tree / '.gitignore').write_text('*.o\n/*\n!/debian/\n')
    (fake_tree / 'net/core/skbuff.o').write_text('built\n')
    (fake_tree / '.config').write_text('CONFIG_NET=y\n')
    files = snapshot_files(fake_tree, tmp_path)
    assert 'net/core/skbuff.c' in files and 'Makefile' in files
    assert 'tools/testing/kunit/kunit.py' in files and '.gitignore' in files
    assert 'net/core/skbuff.o' not in files and '.config' not in files


def test_a_git_checkout_gives_what_it_tracks_and_its_untracked_sources(
        fake_tree: Path, tmp_path: Path) -> None:
    (fake_tree / '.gitignore').write_text('*.o\n/*\n!/debian/\n')
    commit_all(fake_tree, force=True)
    (fake_tree / 'net/core/new.c').write_text('int n;\n')    # ignored by "/*": not taken
    (fake_tree / 'net/core/skbuff.o').write_text('built\n')
    files = snapshot_files(fake_tree, tmp_path)
    assert 'net/core/skbuff.c' in files and 'tools/testing/kunit/kunit.py' in files
    assert 'net/core/skbuff.o' not in files and 'net/core/new.c' not in files


def test_a_snapshot_without_the_kernel_makefile_is_a_usage_error(
        fake_tree: Path, tmp_path: Path) -> None:
    """A checkout whose git neither tracks nor lets through the Makefile: exit 2
    naming the cause, not a patch that "does not apply"."""
    (fake_tree / '.gitignore').write_text('/Makefile\n')
    commit_all(fake_tree)
    cache = Cache(tmp_path / 'cache')
    with pytest.raises(HarnessError) as err:
        tree.prepare(cache, tree.user_base(fake_tree), [], lambda _: None)
    assert err.value.status == Exit.USAGE and 'has no Makefile' in err.value.message


def test_a_debian_tarball_is_snapshotted_by_the_same_path(fake_tree: Path, tmp_path: Path) -> None:
    (fake_tree / '.gitignore').write_text('/*\n!/debian/\n')
    tarball = tmp_path / 'linux-source-9.9.tar.xz'
    subprocess.run(['tar', '-cJf', str(tarball), '-C', str(fake_tree.parent), fake_tree.name],
                   check=True)
    base = tree.Base(base_id='debian-9.9', label='linux-source-9.9 9.9-1', tarball=tarball)
    prepared = tree.prepare(Cache(tmp_path / 'cache'), base, [], lambda _: None)
    files = subprocess.run(['git', '-C', str(prepared.path), 'ls-files'], capture_output=True,
                           text=True, check=True).stdout.split()
    assert 'net/core/skbuff.c' in files and 'tools/testing/kunit/kunit.py' in files
    assert git_log(prepared.path) == ['linux-source-9.9 9.9-1 (pristine)']


@pytest.mark.skipif(os.geteuid() != 0, reason='needs root to give the checkout another owner')
def test_a_checkout_of_another_owner_is_read(fake_tree: Path, tmp_path: Path) -> None:
    """In a Debian container run by docker (docs/containers.md) the --tree
    checkout belongs to the host's user, not to the container's root: git
    refused it ("detected dubious ownership"), exit 3."""
    commit_all(fake_tree)
    subprocess.run(['chown', '-R', '4242:4242', str(fake_tree)], check=True)
    prepared = tree.prepare(Cache(tmp_path / 'cache'), tree.user_base(fake_tree), [],
                            lambda _: None)
    files = subprocess.run(['git', '-C', str(prepared.path), 'ls-files'], capture_output=True,
                           text=True, check=True).stdout.split()
    assert 'net/core/skbuff.c' in files and 'tools/testing/kunit/kunit.py' in files


# ---- issue 41: each test below failed before its fix (see the docstring) ----

def debian_like(fake_tree: Path, tmp_path: Path, digest: str = 'sha256:one') -> tree.Base:
    tarball = tmp_path / 'linux-source-9.9.tar.xz'
    subprocess.run(['tar', '-cJf', str(tarball), '-C', str(fake_tree.parent), fake_tree.name],
                   check=True)
    return tree.Base(base_id='debian-9.9', label='linux-source-9.9 9.9-1', tarball=tarball,
                     tarball_digest=digest)


@pytest.mark.parametrize('state', ['', '{}', '[]', '{"base_key": 1, "base_commit": "x"}',
                                   '{"base_key": "linux-source-9.9 9.9-1", "base_commit": "x", '
                                   '"layers": [[1, 2]]}'])
def test_a_state_file_that_cannot_be_read_makes_the_tree_again(
        fake_tree: Path, tmp_path: Path, state: str) -> None:
    """Item 12: an empty .git/rxalign-state.json (a disk that filled, a crash
    while it was written) was exit 70 on every run."""
    base = debian_like(fake_tree, tmp_path)
    cache = Cache(tmp_path / 'cache')
    first = tree.prepare(cache, base, [], lambda _: None)
    (first.path / '.git' / tree.STATE).write_text(state)
    again = tree.prepare(cache, base, [], lambda _: None)
    assert (again.path / 'net/core/skbuff.c').read_text() == 'int skb_pad = 32;\n'
    assert git_log(again.path) == ['linux-source-9.9 9.9-1 (pristine)']


def test_a_tree_is_of_the_tarball_checked_now(fake_tree: Path, tmp_path: Path) -> None:
    """Item 12: a tree extracted once was used whatever tarball was there now:
    it records the checksum of the tarball it came from, and another one
    (the tarball fetched anew after a failed check) makes it again."""
    cache = Cache(tmp_path / 'cache')
    tree.prepare(cache, debian_like(fake_tree, tmp_path), [], lambda _: None)
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    said: List[str] = []
    again = tree.prepare(cache, debian_like(fake_tree, tmp_path, 'sha256:two'), [], said.append)
    assert (again.path / 'net/core/skbuff.c').read_text() == 'int skb_pad = 64;\n'
    assert any('extracting' in s for s in said), said


# ---- issue 42 item 1: a user's tree takes each fix only where it is needed ----
# Each test below failed on the old code, but the one that says otherwise:
# tree.Layer had no where_needed (a TypeError), and every patch of every layer
# had to apply (exit 5).

def fix(path: Path, subject: str, old: str, new: str, file: str = 'net/core/skbuff.c') -> Path:
    """git format-patch's mail of a fix that changes @file's one line from @old to @new."""
    path.write_text(f'From 1234abcd Mon Sep 17 00:00:00 2001\nFrom: Dev <dev@example.org>\n'
                    f'Date: Thu, 3 Dec 2026 00:00:00 +0000\nSubject: [PATCH net] {subject}\n\n'
                    f'Why.\n\nSigned-off-by: Dev <dev@example.org>\n---\n'
                    f'diff --git a/{file} b/{file}\n--- a/{file}\n+++ b/{file}\n@@ -1 +1 @@\n'
                    f'-{old}\n+{new}\n-- \n2.39.5\n\n')
    return path


def fixes_then_tests(fixes: List[Path], tests: Path) -> List[tree.Layer]:
    return [tree.Layer('net', patches=tuple(fixes), where_needed=True),
            tree.Layer('tests', tests_dir=tests)]


def outcomes(prepared: tree.PreparedTree) -> List[Tuple[str, tree.Outcome]]:
    return [(o.patch, o.outcome) for o in prepared.outcomes]


def test_a_fix_already_in_the_tree_is_skipped_and_said(fake_tree: Path, tmp_path: Path) -> None:
    """A net-next that has our net fix already: git am failed on it, exit 5
    before any test. It is skipped as already there, named in the log, and the
    fix after it still applies."""
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')    # fix 1 is in
    (fake_tree / 'net/core/dev.c').write_text('int dev_pad = 32;\n')
    one = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
              'int skb_pad = 64;')
    two = fix(tmp_path / '0002-dev.patch', 'net: dev pad of 64', 'int dev_pad = 32;',
              'int dev_pad = 64;', 'net/core/dev.c')
    said: List[str] = []
    prepared = tree.prepare(Cache(tmp_path / 'cache'), tree.user_base(fake_tree),
                            fixes_then_tests([one, two], make_tests_dir(tmp_path)), said.append)
    assert outcomes(prepared) == [('0001-pad.patch', tree.Outcome.ALREADY_IN),
                                  ('0002-dev.patch', tree.Outcome.APPLIED)]
    assert 'skipped net/0001-pad (already in the tree)' in said, said
    assert git_log(prepared.path) == ['net: add fake test', 'net: dev pad of 64',
                                      f'{fake_tree} (as found)']
    assert (prepared.path / 'net/core/dev.c').read_text() == 'int dev_pad = 64;\n'


def test_a_fix_that_does_not_apply_is_skipped_with_gits_error(
        fake_tree: Path, tmp_path: Path) -> None:
    """A tree whose code moved under a fix: skipped, with git's first error
    line, and the tree is left clean for the layers above."""
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 16;\n')    # neither 32 nor 64
    stale = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
                'int skb_pad = 64;')
    said: List[str] = []
    prepared = tree.prepare(Cache(tmp_path / 'cache'), tree.user_base(fake_tree),
                            fixes_then_tests([stale], make_tests_dir(tmp_path)), said.append)
    [skipped] = prepared.skipped
    assert skipped.outcome == tree.Outcome.DOES_NOT_APPLY
    assert 'error' in skipped.detail and 'net/core/skbuff.c' in skipped.detail, skipped
    assert [s for s in said if s.startswith('skipped ')] == \
        [f'skipped net/0001-pad (does not apply to this tree: {skipped.detail})']
    assert git_log(prepared.path) == ['net: add fake test', f'{fake_tree} (as found)']
    assert not (prepared.path / '.git/rebase-apply').exists()


def test_a_strict_layer_still_stops_at_a_patch_that_does_not_apply(
        fake_tree: Path, tmp_path: Path) -> None:
    """Without where_needed (Debian's trees, the tests) nothing changed: exit 5
    (this one passed on the old code too: it holds what must not change)."""
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 16;\n')
    stale = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
                'int skb_pad = 64;')
    with pytest.raises(HarnessError) as err:
        tree.prepare(Cache(tmp_path / 'cache'), tree.user_base(fake_tree),
                     layers([stale], make_tests_dir(tmp_path)), lambda _: None)
    assert err.value.status == Exit.PATCH and '0001-pad.patch' in err.value.message


def test_what_became_of_each_fix_survives_a_reused_tree(fake_tree: Path, tmp_path: Path) -> None:
    """The outcomes are kept in the tree's state with their layer: a second run
    that reuses the tree whole, or keeps the fix layer and redoes the tests
    above it, still knows (and says) what was skipped."""
    (fake_tree / 'net/core/skbuff.c').write_text('int skb_pad = 64;\n')
    one = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
              'int skb_pad = 64;')
    cache, base = Cache(tmp_path / 'cache'), tree.user_base(fake_tree)
    first = tree.prepare(cache, base, fixes_then_tests([one], make_tests_dir(tmp_path)),
                         lambda _: None)
    said: List[str] = []
    again = tree.prepare(cache, base, fixes_then_tests([one], make_tests_dir(tmp_path)),
                         said.append)
    assert again.reused and again.outcomes == first.outcomes
    assert 'skipped net/0001-pad (already in the tree)' in said, said
    redone = tree.prepare(cache, base,
                          fixes_then_tests([one], make_tests_dir(tmp_path, 'int y;\n')),
                          lambda _: None)
    assert not redone.reused and redone.outcomes == first.outcomes


def test_a_where_needed_layer_is_never_a_strict_layers_commit(
        fake_tree: Path, tmp_path: Path) -> None:
    """The same patches taken strictly and where needed are two layers: a tree
    prepared one way is not reused for the other, whose outcomes it lacks."""
    one = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
              'int skb_pad = 64;')
    cache, base = Cache(tmp_path / 'cache'), tree.user_base(fake_tree)
    tree.prepare(cache, base, [tree.Layer('net', patches=(one,))], lambda _: None)
    again = tree.prepare(cache, base, [tree.Layer('net', patches=(one,), where_needed=True)],
                         lambda _: None)
    assert not again.reused
    assert outcomes(again) == [('0001-pad.patch', tree.Outcome.APPLIED)]


def test_a_state_with_an_unknown_outcome_makes_the_tree_again(
        fake_tree: Path, tmp_path: Path) -> None:
    """An outcome this version does not know is not trusted: the layers are redone."""
    one = fix(tmp_path / '0001-pad.patch', 'net: pad of 64', 'int skb_pad = 32;',
              'int skb_pad = 64;')
    cache, base = Cache(tmp_path / 'cache'), tree.user_base(fake_tree)
    wanted = [tree.Layer('net', patches=(one,), where_needed=True)]
    first = tree.prepare(cache, base, wanted, lambda _: None)
    state = first.path / '.git' / tree.STATE
    state.write_text(state.read_text().replace('"APPLIED"', '"MAYBE"'))
    again = tree.prepare(cache, base, wanted, lambda _: None)
    assert not again.reused and outcomes(again) == [('0001-pad.patch', tree.Outcome.APPLIED)]
