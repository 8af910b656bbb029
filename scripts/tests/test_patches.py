"""Issue 42 item 2: --patches takes a mail, an mbox, a directory or a plain diff,
says what it applies on, and checks every patch before any build."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import List

import pytest

from rxalign import kernels, patches, run_kunit, series, tree
from rxalign.cache import Cache
from rxalign.exitcodes import Exit, HarnessError

import faults


def mail(n: int, of: int, subject: str, old: str, new: str, sep: str = 'From 1234abcd Mon '
         'Sep 17 00:00:00 2001') -> str:
    """git format-patch's mail of a patch that changes skb_pad from @old to @new."""
    return (f'{sep}\nFrom: Dev <dev@example.org>\nDate: Thu, 3 Dec 2026 00:00:00 +0000\n'
            f'Subject: [PATCH net-next {n}/{of}] {subject}\n\nWhy.\n\n'
            'Signed-off-by: Dev <dev@example.org>\n---\n'
            'diff --git a/net/core/skbuff.c b/net/core/skbuff.c\n'
            '--- a/net/core/skbuff.c\n+++ b/net/core/skbuff.c\n@@ -1 +1 @@\n'
            f'-int skb_pad = {old};\n+int skb_pad = {new};\n-- \n2.39.5\n\n')


def cover(of: int, subject: str, sep: str = 'From 0000 Mon Sep 17 00:00:00 2001') -> str:
    return (f'{sep}\nFrom: Dev <dev@example.org>\nSubject: [PATCH net-next 0/{of}] {subject}\n'
            '\nThe series.\n\n')


PLAIN = ('diff --git a/net/core/skbuff.c b/net/core/skbuff.c\nindex 1..2 100644\n'
         '--- a/net/core/skbuff.c\n+++ b/net/core/skbuff.c\n@@ -1 +1 @@\n'
         '-int skb_pad = 32;\n+int skb_pad = 64;\n')
DIFF_U = ('diff -u linux.orig/net/core/skbuff.c linux/net/core/skbuff.c\n'
          '--- linux.orig/net/core/skbuff.c\t2026-12-03 00:00:00.000000000 +0000\n'
          '+++ linux/net/core/skbuff.c\t2026-12-03 00:00:01.000000000 +0000\n@@ -1 +1 @@\n'
          '-int skb_pad = 32;\n+int skb_pad = 64;\n')
B4 = 'From git@z Thu Jan  1 00:00:00 1970'


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# ---- reading what --patches names: before any work ----

def test_a_mail_an_mbox_a_directory_and_a_plain_diff(tmp_path: Path) -> None:
    """A plain git diff was refused by git am (exit 5, after the tree was set
    up); a directory of git format-patch output was "no such file"; an mbox
    went to git am whole, a cover letter in it failing as an empty patch."""
    one = write(tmp_path / '0001-pad.patch', mail(1, 1, 'net: pad', '32', '64'))
    mbox = write(tmp_path / 'series.mbx', cover(2, 'net: pads', B4)
                 + mail(1, 2, 'net: pad 64', '32', '64', B4)
                 + f'{B4}\nFrom: Rev <r@example.org>\nSubject: Re: [PATCH net-next 1/2] x\n\n'
                   'Looks good.\n\n'
                 + mail(2, 2, 'net: pad 128', '64', '128', B4))
    d = tmp_path / 'outgoing'
    d.mkdir()
    write(d / '0000-cover-letter.patch', cover(2, 'net: two pads'))
    write(d / '0001-a.patch', mail(1, 2, 'net: pad 64', '32', '64'))
    write(d / '0002-b.patch', mail(2, 2, 'net: pad 128', '64', '128'))
    plain = write(tmp_path / 'fix.diff', PLAIN)
    diff_u = write(tmp_path / 'fix-u.diff', DIFF_U)
    got = patches.read([one, mbox, d, plain, diff_u])
    assert [len(g.patches) for g in got] == [1, 2, 2, 1, 1]
    assert got[0].patches[0].subject == '[PATCH net-next 1/1] net: pad'
    assert not got[0].patches[0].plain and got[0].title() == \
        '0001-pad.patch: "[PATCH net-next 1/1] net: pad" (1 patch)'
    assert got[1].cover == '[PATCH net-next 0/2] net: pads'
    assert got[1].left_out == ('Re: [PATCH net-next 1/2] x',)
    assert [p.name for p in got[1].patches] == ['series.mbx [1/2]', 'series.mbx [2/2]']
    assert got[2].title() == 'outgoing: "[PATCH net-next 0/2] net: two pads" (2 patches)'
    for g in got[3:]:
        p = g.patches[0]
        assert p.plain and p.subject == f'--patches {g.path.name}: net/core/skbuff.c'


@pytest.mark.parametrize('what, said', [
    ('missing', 'no such file or directory'),
    ('empty-dir', 'a directory without patches'),
    ('empty', 'the file is empty'),
    ('notes', 'not a patch'),
    ('cover-only', 'not a patch'),
    ('binary', 'a binary file'),
])
def test_what_holds_no_patch_is_refused_naming_it(tmp_path: Path, what: str, said: str) -> None:
    path = tmp_path / what
    if what == 'empty-dir':
        path.mkdir()
    elif what == 'empty':
        path.write_text('')
    elif what == 'notes':
        path.write_text('just some notes\n')
    elif what == 'cover-only':
        path.write_text(cover(2, 'a series without its patches'))
    elif what == 'binary':
        path.write_bytes(b'\x89PNG\r\n\x1a\n\0\0')
    with pytest.raises(HarnessError) as err:
        patches.read([path])
    assert err.value.status == Exit.USAGE
    assert f'--patches {path}: {said}' in err.value.message


# ---- run-kunit on the fake tree ----

def subjects(cache_root: Path) -> List[str]:
    t = next(cache_root.glob('trees/*'))
    return subprocess.run(['git', '-C', str(t), 'log', '--format=%s', 'pristine..'],
                          capture_output=True, text=True, check=True).stdout.splitlines()


def run(fake_tree: Path, out: Path, *given: Path) -> int:
    return run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                           '--out', str(out), '--patches', *map(str, given)])


def test_a_plain_diff_is_committed_with_a_subject_naming_it(
        fake_tree: Path, cache_root: Path, tmp_path: Path,
        package_checks: List[str]) -> None:
    out = tmp_path / 'out'
    assert run(fake_tree, out, write(tmp_path / 'fix.diff', PLAIN)) == Exit.OK
    assert subjects(cache_root)[0] == '--patches fix.diff: net/core/skbuff.c'
    meta = json.loads((out / 'results.json').read_text())['meta']
    assert meta['tree'].endswith(' + series net-next (tests) + --patches fix.diff: '
                                 '"--patches fix.diff: net/core/skbuff.c" (1 patch)')
    assert '--patches fix.diff' in (out / 'report.md').read_text()


def test_a_directory_and_an_mbox(fake_tree: Path, cache_root: Path, tmp_path: Path,
                                 package_checks: List[str]) -> None:
    d = tmp_path / 'outgoing'
    d.mkdir()
    write(d / '0000-cover-letter.patch', cover(2, 'net: two pads'))
    write(d / '0001-a.patch', mail(1, 2, 'net: pad 64', '32', '64'))
    write(d / '0002-b.patch', mail(2, 2, 'net: pad 128', '64', '128'))
    mbox = write(tmp_path / 'more.mbx', mail(1, 1, 'net: pad 256', '128', '256', B4))
    out = tmp_path / 'out'
    assert run(fake_tree, out, d, mbox) == Exit.OK
    assert subjects(cache_root)[:3] == ['net: pad 256', 'net: pad 128', 'net: pad 64']
    tested = json.loads((out / 'results.json').read_text())['meta']['tree']
    assert '--patches outgoing: "[PATCH net-next 0/2] net: two pads" (2 patches); more.mbx' \
        in tested


def test_every_patch_is_checked_before_any_build(
        fake_tree: Path, cache_root: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], package_checks: List[str]) -> None:
    """The second patch of an mbox does not apply: exit 5 naming it and the
    tree it must apply on, nothing built, the tree at its last whole layer."""
    mbox = write(tmp_path / 'series.mbox', mail(1, 2, 'net: pad 64', '32', '64')
                 + mail(2, 2, 'net: pad 128', '32', '128'))
    out = tmp_path / 'out'
    assert run(fake_tree, out, mbox) == Exit.PATCH
    err = capsys.readouterr().err
    assert '--patches series.mbox [2/2] ("[PATCH net-next 2/2] net: pad 128") does not apply' \
        in err
    assert '1 patch(es) of --patches before it applied' in err
    assert f'it must apply on {fake_tree} + series net-next (tests)' in err
    assert not (cache_root / 'build').exists() and not out.exists()
    assert subjects(cache_root)[0] != 'net: pad 64'


# ---- up front, on the tree an earlier run prepared ----

@pytest.fixture
def debian_tree(fake_tree: Path, tmp_path: Path, cache_root: Path,
                package_checks: List[str]) -> tree.PreparedTree:
    # what package_checks gave run-kunit
    """The cache as a run on Debian's 6.12 left it: the pristine tree and the series."""
    tarball = tmp_path / 'linux-source-6.12.tar.xz'
    subprocess.run(['tar', '-cJf', str(tarball), '-C', str(fake_tree.parent), fake_tree.name],
                   check=True)
    base = tree.Base(base_id='debian-6.12.118-1', label='linux-source-6.12 6.12.118-1',
                     tarball=tarball)
    layers = series.layers(kernels.DEFAULT, faults.FIXTURES / 'kunit-tests',
                           tmp_path / 'no-series')
    return tree.prepare(Cache(cache_root), base, layers, lambda m: None)


def test_a_patch_is_refused_before_any_package_is_checked(
        debian_tree: tree.PreparedTree, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch, package_checks: List[str]) -> None:
    """With the tree of an earlier run in the cache, a patch that does not
    apply on it was found only after the packages (each arch's compilers and
    QEMU, installed if missing) and the tree's preparation."""
    def no_debian(*args: object) -> None:
        raise AssertionError('the run went on to prepare its tree')
    monkeypatch.setattr(tree, 'debian_base', no_debian)
    bad = write(tmp_path / 'bad.patch', mail(1, 1, 'net: stale', '16', '64'))
    assert run_kunit.main(['--arch', 'x86_64', '--out', str(tmp_path / 'out'),
                           '--patches', str(bad)]) == Exit.PATCH
    err = capsys.readouterr().err
    assert 'bad.patch ("[PATCH net-next 1/1] net: stale") does not apply' in err
    assert 'it must apply on linux-source-6.12 6.12.118-1 + the series net-next (tests)' in err
    assert not package_checks


def test_a_patch_that_applies_there_goes_on(
        debian_tree: tree.PreparedTree, tmp_path: Path,
        package_checks: List[str]) -> None:
    good = write(tmp_path / 'good.patch', mail(1, 1, 'net: pad', '32', '64'))
    plan = run_kunit.check_args(run_kunit.parse_args(
        ['--arch', 'x86_64', '--out', str(tmp_path / 'out'), '--patches', str(good)]))
    run_kunit.check_patches_early(plan)
    # written nowhere in the cached tree: no object, no index
    status = subprocess.run(['git', '-C', str(debian_tree.path), 'count-objects'],
                            capture_output=True, text=True, check=True).stdout
    assert tree.applies(debian_tree.path, debian_tree.head, plan.patches[0].patches) is None
    assert subprocess.run(['git', '-C', str(debian_tree.path), 'count-objects'],
                          capture_output=True, text=True, check=True).stdout == status


def test_another_series_is_not_checked_early(
        debian_tree: tree.PreparedTree, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        package_checks: List[str]) -> None:
    """A cached tree of other series layers is not the tree this run tests:
    no verdict from it (the check comes with the tree's preparation)."""
    bad = write(tmp_path / 'bad.patch', mail(1, 1, 'net: stale', '16', '64'))
    other = tmp_path / 'other-tests'
    subprocess.run(['cp', '-r', str(faults.FIXTURES / 'kunit-tests'), str(other)], check=True)
    (other / 'Kconfig').write_text((other / 'Kconfig').read_text() + '# edited\n')
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', other)
    plan = run_kunit.check_args(run_kunit.parse_args(
        ['--arch', 'x86_64', '--out', str(tmp_path / 'out'), '--patches', str(bad)]))
    run_kunit.check_patches_early(plan)


# ---- issue 50: each test below failed before its fix (see the docstring) ----

def base64_mail(n: int, of: int, subject: str, old: str, new: str, sep: str = B4) -> str:
    """mail()'s patch as a mailer that base64-encodes the body sends it (lore keeps it so)."""
    import base64
    head, body = mail(n, of, subject, old, new, sep).split('\n\n', 1)
    encoded = base64.encodebytes(body.encode()).decode()
    return (f'{head}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n'
            f'Content-Transfer-Encoding: base64\n\n{encoded}\n')


def reply(subject: str, text: str, sep: str = B4) -> str:
    return f'{sep}\nFrom: Rev <r@example.org>\nSubject: {subject}\n\n{text}\n'


PROPOSED = ('How about this instead?\n\n'
            'diff --git a/net/core/skbuff.c b/net/core/skbuff.c\n'
            '--- a/net/core/skbuff.c\n+++ b/net/core/skbuff.c\n@@ -1 +1 @@\n'
            '-int skb_pad = 64;\n+int skb_pad = 96;\n')


def test_a_reply_in_a_thread_mbox_is_left_out_and_named(tmp_path: Path) -> None:
    """Item 6: `b4 mbox` and lore's thread mbox hold the reviewers' mails; a
    reply proposing a diff became patch 2 of 3, and every report said "(3
    patches)" under the posted subject. Replies are left out, and the title
    every report shows names them."""
    thread = write(tmp_path / 'thread.mbx', cover(2, 'net: pads', B4)
                   + mail(1, 2, 'net: pad 64', '32', '64', B4)
                   + reply('Re: [PATCH net-next 1/2] net: pad 64', PROPOSED)
                   + reply('RE: [PATCH net-next 1/2] net: pad 64', '> quoted\nAgreed.\n')
                   + mail(2, 2, 'net: pad 128', '64', '128', B4))
    got = patches.read([thread])[0]
    assert [p.subject for p in got.patches] == ['[PATCH net-next 1/2] net: pad 64',
                                                '[PATCH net-next 2/2] net: pad 128']
    assert got.left_out == ('Re: [PATCH net-next 1/2] net: pad 64',
                            'RE: [PATCH net-next 1/2] net: pad 64')
    assert got.title() == ('thread.mbx: "[PATCH net-next 0/2] net: pads" (2 patches; left out, '
                           'no patch of the series: "Re: [PATCH net-next 1/2] net: pad 64"; '
                           '"RE: [PATCH net-next 1/2] net: pad 64")')


def test_a_base64_mail_is_read_as_git_am_reads_it(tmp_path: Path) -> None:
    """Item 7: a base64-encoded mail (as some mailers send it and lore keeps it)
    was read as having no diff: alone, "not a patch" (exit 2); in an mbox,
    dropped from the series without a word. Its body is decoded as git am
    decodes it, and git am applies it."""
    one = write(tmp_path / 'b64.patch', base64_mail(1, 1, 'net: pad', '32', '64'))
    mbox = write(tmp_path / 'series.mbx', base64_mail(1, 2, 'net: pad 64', '32', '64')
                 + mail(2, 2, 'net: pad 128', '64', '128', B4))
    got = patches.read([one, mbox])
    assert [len(g.patches) for g in got] == [1, 2]
    assert got[0].patches[0].files == ['net/core/skbuff.c'] and not got[0].patches[0].plain
    # git am applies what was read, as it was sent
    repo = tmp_path / 'repo'
    (repo / 'net/core').mkdir(parents=True)
    (repo / 'net/core/skbuff.c').write_text('int skb_pad = 32;\n')
    env = {'GIT_AUTHOR_NAME': 't', 'GIT_AUTHOR_EMAIL': 't@example.org',
           'GIT_COMMITTER_NAME': 't', 'GIT_COMMITTER_EMAIL': 't@example.org', 'HOME': str(repo)}
    for cmd in (['init', '-q'], ['add', '.'], ['commit', '-qm', 'base']):
        subprocess.run(['git', '-C', str(repo), *cmd], check=True, env=env)
    for p in got[1].patches:
        subprocess.run(['git', '-C', str(repo), 'am', '-q'], input=p.text, check=True, env=env)
    assert (repo / 'net/core/skbuff.c').read_text() == 'int skb_pad = 128;\n'


@pytest.mark.parametrize('what', ['a patch without its diff', 'a file not read'])
def test_a_patch_that_would_be_dropped_is_refused_naming_it(tmp_path: Path, what: str) -> None:
    """Item 7: a `[PATCH n/m]` whose diff is gone, and a `.txt` file in a
    --patches directory, were dropped without a word: the run tested the
    series without them. Each is exit 2, naming it."""
    d = tmp_path / 'outgoing'
    d.mkdir()
    write(d / '0001-a.patch', mail(1, 3, 'net: pad 64', '32', '64'))
    write(d / '0003-c.patch', mail(3, 3, 'net: pad 128', '64', '128'))
    if what == 'a file not read':
        write(d / '0002-b.txt', mail(2, 3, 'net: pad 96', '64', '96'))
        said = f'--patches {d}: 0002-b.txt would not be read'
    else:
        write(d / '0002-b.patch', mail(2, 3, 'net: pad 96', '64', '96').split('---\n')[0])
        said = (f'--patches {d / "0002-b.patch"}: "[PATCH net-next 2/3] net: pad 96" has no '
                'diff that git am would apply')
    with pytest.raises(HarnessError) as err:
        patches.read([d])
    assert err.value.status == Exit.USAGE and said in err.value.message, err.value.message
