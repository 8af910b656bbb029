"""Who a series goes to and how its mails look (mail.py, scripts/export-series)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import List, Tuple

import pytest

from rxalign import export_series, kernels, mail, series
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import SERIES_DIR

WHO = mail.Identity('Ada Lovelace', 'ada@kernel-dev.org')
FIX = mail.FixesRef('27accb3cc08a', 'veth: rely on skb_pp_cow_data utility routine',
                    ('Lorenzo Bianconi <lorenzo@kernel.org>',
                     'Toke Hoiland-Jorgensen <toke@redhat.com>'), 'a posting')


def git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **values: str) -> Path:
    home = tmp_path / 'home'
    home.mkdir()
    monkeypatch.setenv('HOME', str(home))
    monkeypatch.setenv('GIT_CONFIG_NOSYSTEM', '1')
    for key, value in values.items():
        subprocess.run(['git', 'config', '--global', f'user.{key}', value], check=True)
    return home


# the project's own placeholder, the sample its refusal once suggested, and
# what tools and distributions fill in when nobody set one
@pytest.mark.parametrize('email', ['maintainers@users.noreply.a-seed-46f523d0.example',
                                   'me@localhost', 'dev@example.org', 'root',
                                   'you@your.domain', 'root@localhost.localdomain',
                                   'dev@mail.example.com', 'a@example',
                                   # GitHub's hidden address (issue 49): a placeholder too
                                   '12345+ada@users.noreply.github.com',
                                   'ada@users.noreply.github.com', 'noreply@github.com',
                                   'no-reply@kernel-dev.org', 'do-not-reply@kernel-dev.org'])
def test_a_placeholder_identity_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           email: str) -> None:
    home = git_config(tmp_path, monkeypatch, name='Some One', email=email)
    with pytest.raises(HarnessError) as err:
        mail.git_identity(home)
    assert err.value.status == Exit.USAGE and 'git config --global' in err.value.message
    # no sample address it would refuse itself
    assert 'your.domain' not in err.value.message.split('set your own')[1]


@pytest.mark.parametrize('email', ['ada@kernel-dev.org', 'replyto@kernel-dev.org',
                                   'noreplyhere@kernel-dev.org', 'ada@noreplies.org'])
def test_an_address_that_only_looks_like_noreply_is_taken(email: str) -> None:
    assert mail.reachable(f'Ada <{email}>')


def test_no_identity_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = git_config(tmp_path, monkeypatch)
    with pytest.raises(HarnessError) as err:
        mail.git_identity(home)
    assert err.value.status == Exit.USAGE and 'no git identity' in err.value.message


def test_a_real_identity_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = git_config(tmp_path, monkeypatch, name=WHO.name, email=WHO.email)
    assert mail.git_identity(home) == WHO


def test_every_patch_of_the_net_series_is_signed_by_the_sender() -> None:
    net = series.BY_NAME['net'].directory(kernels.NEWEST, SERIES_DIR)
    files = sorted(net.glob('*.patch'))
    assert files
    for f in files:
        text = mail.resign(f.read_text(), WHO)
        assert '.example' not in text, f.name
        assert text.count(f'From: {WHO}\n') == 1, f.name
        if f.name != mail.COVER_LETTER:
            assert f'\nSigned-off-by: {WHO}\n' in text, f.name
        else:
            assert f'\n{WHO.name} (' in text


def test_someone_elses_patch_keeps_its_author_and_loses_our_placeholder() -> None:
    """A backport: its author signs, then the project's placeholder did; the
    sender's sign-off replaces the placeholder's."""
    text = ('From 1 Mon Sep 17 00:00:00 2001\nFrom: Real Author <real@kernel.org>\n'
            'Subject: [PATCH] x\n\nwhy\n\nSigned-off-by: Real Author <real@kernel.org>\n'
            'Signed-off-by: Seed maintainers <m@users.noreply.seed.example>\n'
            '---\n x | 1 +\n')
    out = mail.resign(text, WHO)
    assert 'From: Real Author <real@kernel.org>' in out
    assert ('Signed-off-by: Real Author <real@kernel.org>\n'
            f'Signed-off-by: {WHO}\n---\n') in out
    assert '.example' not in out


def test_recipients_follow_the_subject() -> None:
    text = 'From: a <a@b.org>\nSubject: [PATCH net] a long\n subject\n\nbody\n'
    out = mail.add_recipients(text, ['netdev@vger.kernel.org'], ['X <x@y.org>'])
    assert out == ('From: a <a@b.org>\nSubject: [PATCH net] a long\n subject\n'
                   'To: netdev@vger.kernel.org\nCc: X <x@y.org>\n\nbody\n')


NAMED = [
    mail.Named('"David S. Miller" <davem@davemloft.net>',
               'maintainer:NETWORKING [GENERAL]'),
    mail.Named('Sebastian Andrzej Siewior <bigeasy@linutronix.de>',
               'maintainer:Real-time Linux (PREEMPT_RT):Keyword:\\b(?:CONFIG_PREEMPT_RT)\\b'),
    mail.Named('netdev@vger.kernel.org', 'open list:NETWORKING [GENERAL]'),
]


def test_fixes_people_are_on_the_mail() -> None:
    """get_maintainer.pl without history cannot name them (--no-fixes was the
    bug): they come from mail.toml, for the Fixes: tags the patches carry."""
    plan = mail.MailPlan(Path('mail.toml'), '7.3', fixes=(FIX,))
    text = f'Subject: x\n\nFixes: {FIX.id} ("{FIX.subject}")\n'
    r = mail.recipients(plan, NAMED, [text], ['0002-x.patch'])
    assert set(FIX.people) <= set(r.to)
    assert 'netdev@vger.kernel.org' in r.cc
    assert not set(FIX.people) & set(mail.recipients(plan, NAMED, ['no tag'], ['x']).to)


def test_a_keyword_hit_stays_off_only_where_mail_toml_says_why() -> None:
    keep = mail.recipients(mail.MailPlan(Path('m'), ''), NAMED, [''], ['x'])
    assert any('bigeasy' in t for t in keep.to)
    plan = mail.MailPlan(Path('m'), '', drop=(mail.Drop('Real-time Linux (PREEMPT_RT)', 'r'),))
    dropped = mail.recipients(plan, NAMED, [''], ['x'])
    assert not any('bigeasy' in t for t in dropped.to)
    assert dropped.dropped and dropped.dropped[0][1] == 'r'


def test_a_hand_cc_for_one_patch_goes_on_that_patch_only() -> None:
    plan = mail.MailPlan(Path('m'), '', cc=(mail.HandCc('linux-m68k@lists.linux-m68k.org',
                                                        'why', '0003'),))
    assert 'linux-m68k@lists.linux-m68k.org' in mail.recipients(plan, [], [''], ['0003-a']).cc
    assert not mail.recipients(plan, [], [''], ['0001-a']).cc


def test_every_series_mail_toml_reads_and_names_its_fixes() -> None:
    """Every Fixes: tag of a stored patch has its record, and every record a tag."""
    for s in series.SERIES:
        directory = s.directory(kernels.NEWEST, SERIES_DIR)
        plan = mail.read(directory)
        tags = {fid for p in directory.glob('0*.patch')
                for fid, _ in mail.fixes_lines(p.read_text())}
        assert tags == {f.id for f in plan.fixes}, s.name
        for f in plan.fixes:
            # the start of git history: nobody to ask, and the record says so
            assert f.people or f.id == mail.GIT_HISTORY_START, f.id
            assert f.source and all(mail.reachable(p) for p in f.people), f.id


# ---- a series whose patches go separately (tree-fixes: issue 49) ----

FAKE_GET_MAINTAINER = r'''#!/usr/bin/perl
# get_maintainer.pl as a tree whose MAINTAINERS has three sections answers
my %by = (
    'arch/alpha/' => ['Alpha Maint <alpha@kernel-dev.org> (maintainer:ALPHA PORT)',
                      'linux-alpha@vger.kernel.org (open list:ALPHA PORT)'],
    'arch/parisc/' => ['Parisc Maint <parisc@kernel-dev.org> (maintainer:PARISC ARCHITECTURE)',
                       'linux-parisc@vger.kernel.org (open list:PARISC ARCHITECTURE)'],
    'drivers/net/' => ['Net Maint <net@kernel-dev.org> (maintainer:NETWORKING DRIVERS)',
                       'netdev@vger.kernel.org (open list:NETWORKING DRIVERS)'],
);
my (@out, %seen);
for my $file (grep { !/^--/ } @ARGV) {
    open(my $fh, '<', $file) or die "$file: $!";
    while (<$fh>) {
        next unless m{^\+\+\+ b/(\S+)};
        my $path = $1;
        for my $dir (sort keys %by) {
            push @out, grep { !$seen{$_}++ } @{$by{$dir}} if index($path, $dir) == 0;
        }
    }
}
push @out, 'linux-kernel@vger.kernel.org (open list)';
print "$_\n" for @out;
'''

SEPARATE_FIX = mail.FixesRef('9ad19171b6d6', 'lib/crc: drop the prompt',
                             ('Crc Author <crc@kernel-dev.org>',), 'a posting')


def _patch(subject: str, path: str, trailer: str = '', head: str = '') -> str:
    return (f'From 0 Mon Sep 17 00:00:00 2001\nFrom: Seed <m@users.noreply.seed.example>\n'
            f'Date: Sun, 6 Dec 2026 19:33:16 +0000\nSubject: [PATCH] {subject}\n{head}\n'
            f'why\n\n{trailer}Signed-off-by: Seed <m@users.noreply.seed.example>\n---\n'
            f' {path} | 2 +-\n\ndiff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n'
            '@@ -1 +1 @@\n-a\n+b\n')


def _separate_series(tmp_path: Path, toml: str = 'separate = true\n') -> Tuple[Path, Path]:
    """A fake tree (its get_maintainer.pl) and a series of three unrelated
    patches, as kernel-patches/tree-fixes/ is; the third carries a Fixes:
    and a hand Cc, and git format-patch --thread's headers."""
    tree = tmp_path / 'tree'
    (tree / 'scripts').mkdir(parents=True)
    (tree / 'scripts' / 'get_maintainer.pl').write_text(FAKE_GET_MAINTAINER)
    directory = tmp_path / 'tree-fixes'
    directory.mkdir()
    (directory / '0001-alpha.patch').write_text(_patch('alpha: x', 'arch/alpha/mm/fault.c'))
    (directory / '0002-parisc.patch').write_text(_patch('parisc: x',
                                                        'arch/parisc/kernel/cache.c'))
    (directory / '0003-macsonic.patch').write_text(_patch(
        'net: macsonic: x', 'drivers/net/ethernet/natsemi/Kconfig',
        f'Fixes: {SEPARATE_FIX.id} ("{SEPARATE_FIX.subject}")\n',
        'In-Reply-To: <1.git-send-email@x>\nReferences: <0.git-send-email@x>\n'
        ' <1.git-send-email@x>\n'))
    (directory / mail.MAIL_TOML).write_text(
        toml + 'base = "7.3"\n[[fixes]]\n'
        f'id = "{SEPARATE_FIX.id}"\nsubject = "{SEPARATE_FIX.subject}"\n'
        f'people = ["{SEPARATE_FIX.people[0]}"]\nsource = "a posting"\n'
        '[[cc]]\nwho = "linux-m68k@lists.linux-m68k.org"\nwhy = "68k Macs"\n'
        'patch = "0003"\n')
    return tree, directory


def _on(text: str, header: str) -> List[str]:
    head = text.split('\n\n', 1)[0]
    return mail.addresses(re.findall(rf'^{header}: (.*)$', head, re.M))


def test_a_separate_series_mails_each_patch_to_its_own_people(tmp_path: Path) -> None:
    tree, directory = _separate_series(tmp_path)
    plan = mail.read(directory)
    assert plan.separate
    mails = mail.mails_for(plan, sorted(directory.glob('*.patch')), tree, WHO.name, WHO.email)
    alpha, parisc, sonic = (mails[n] for n in sorted(mails))
    assert _on(alpha, 'To') == ['alpha@kernel-dev.org']
    assert _on(alpha, 'Cc') == ['linux-alpha@vger.kernel.org', 'linux-kernel@vger.kernel.org']
    assert _on(parisc, 'To') == ['parisc@kernel-dev.org']
    assert _on(parisc, 'Cc') == ['linux-parisc@vger.kernel.org',
                                 'linux-kernel@vger.kernel.org']
    # the Fixes: people and the hand Cc of 0003 on its mail only
    assert _on(sonic, 'To') == ['net@kernel-dev.org', 'crc@kernel-dev.org']
    assert _on(sonic, 'Cc') == ['netdev@vger.kernel.org', 'linux-kernel@vger.kernel.org',
                                'linux-m68k@lists.linux-m68k.org']
    for text in mails.values():
        head = text.split('\n\n', 1)[0]
        assert not re.search(r'^(In-Reply-To|References):', head, re.M | re.I), head
        assert f'Signed-off-by: {WHO}\n' in text


def test_a_series_sent_together_still_goes_to_the_union(tmp_path: Path) -> None:
    tree, directory = _separate_series(tmp_path, toml='')
    plan = mail.read(directory)
    assert not plan.separate
    mails = mail.mails_for(plan, sorted(directory.glob('*.patch')), tree, WHO.name, WHO.email)
    for text in mails.values():
        assert _on(text, 'To') == ['alpha@kernel-dev.org', 'parisc@kernel-dev.org',
                                   'net@kernel-dev.org', 'crc@kernel-dev.org']


def test_a_separate_series_with_a_cover_letter_is_refused(tmp_path: Path) -> None:
    tree, directory = _separate_series(tmp_path)
    (directory / mail.COVER_LETTER).write_text(_patch('cover', 'x'))
    with pytest.raises(HarnessError) as err:
        mail.mails_for(mail.read(directory), sorted(directory.glob('*.patch')), tree,
                       WHO.name, WHO.email)
    assert err.value.status == Exit.USAGE and 'separate' in err.value.message


def test_separate_must_be_true_or_false(tmp_path: Path) -> None:
    _tree, directory = _separate_series(tmp_path, toml='separate = "yes"\n')
    with pytest.raises(HarnessError) as err:
        mail.read(directory)
    assert err.value.status == Exit.USAGE and '"separate"' in err.value.message


def test_the_tree_fixes_go_separately_and_the_other_series_together() -> None:
    """Decided by each directory's mail.toml, not by its name."""
    for s in series.SERIES:
        directory = s.directory(kernels.NEWEST, SERIES_DIR)
        assert mail.read(directory).separate == (s.name == 'tree-fixes'), s.name


def test_export_says_to_send_each_separate_mail_alone(tmp_path: Path) -> None:
    _tree, directory = _separate_series(tmp_path)
    names = sorted(p.name for p in directory.glob('*.patch'))
    out = Path('/out')
    alone = export_series.send_commands(mail.read(directory), out, names)
    assert alone == [f'git send-email --no-thread /out/{n}' for n in names]
    (directory / mail.MAIL_TOML).write_text('')
    assert export_series.send_commands(mail.read(directory), out, names) == [
        'git send-email /out/*.patch']
