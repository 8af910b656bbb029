"""Who a series goes to and how its mails look (mail.py, scripts/export-series)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rxalign import kernels, mail, series
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
