"""scripts/upstream-check: each check fails on the defect issue 39 found,
put back into a copy of the series as it is mailed."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from rxalign import mail, upstream_check as uc
from rxalign.kbuild import BUILTIN
from rxalign.paths import SERIES_DIR
from rxalign.upstream_check import Status

NET = SERIES_DIR / 'net'
VETH = '0002-veth-keep-NET_IP_ALIGN-in-front-of-frames-copied-for.patch'
SAMPLE = ('A. U. Thor', 'a.u.thor@kernel.org')
XDP = '0003-xdp-keep-the-network-header-aligned-when-generic-XDP.patch'


def _texts() -> Dict[str, str]:
    return {p.name: p.read_text() for p in sorted(NET.glob('0*.patch'))
            if not p.name.startswith('0000-')}


def _failed(findings: List[uc.Finding]) -> List[uc.Finding]:
    return [f for f in findings if f.status is Status.FAIL]


def test_fixes_as_mailed_pass() -> None:
    findings = uc.check_fixes('net', mail.read(NET), _texts())
    assert not _failed(findings)
    assert {f.detail.split()[0] for f in findings} == {'27accb3cc08a', 'e6d5dbdd20aa'}


def test_fixes_wrong_subject() -> None:
    texts = _texts()
    texts[VETH] = texts[VETH].replace('("veth: rely on skb_pp_cow_data utility routine")',
                                      '("veth: rely on skb_pp_cow_data")')
    bad = _failed(uc.check_fixes('net', mail.read(NET), texts))
    assert bad[0].patch == VETH and 'records "veth: rely on' in bad[0].detail


def test_fixes_unrecorded_and_unused() -> None:
    texts = _texts()
    texts = {n: t.replace('Fixes: e6d5dbdd20aa', 'Fixes: 0123456789ab') for n, t in texts.items()}
    bad = _failed(uc.check_fixes('net', mail.read(NET), texts))
    assert any(f.patch == XDP and 'not in' in f.detail for f in bad)
    assert any(f.patch == '' and 'e6d5dbdd20aa, which no patch names' in f.detail for f in bad)


def _mail(to: List[str], sender: str = 'A. U. Thor <a.u.thor@kernel.org>') -> str:
    text = _texts()[VETH]
    text = mail.resign(text, mail.Identity(*sender[:-1].split(' <')))
    return mail.add_recipients(text, to, ['netdev@vger.kernel.org'])


def test_cc_needs_the_fixes_people(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39.9: get_maintainer.pl --no-fixes left Toke off every mail."""
    monkeypatch.setattr(mail, 'get_maintainer', lambda tree, patches: [
        mail.Named('Jakub Kicinski <kuba@kernel.org>', 'maintainer:NETWORKING DRIVERS')])
    plan = mail.read(NET)
    people = list(plan.fixes[0].people)
    everyone = ['Jakub Kicinski <kuba@kernel.org>', *people]
    ok = uc.check_cc(Path('.'), 'net', plan, {VETH: _mail(everyone)}, {VETH: NET / VETH})
    assert not _failed(ok)
    without = [p for p in everyone if 'toke' not in p]
    bad = _failed(uc.check_cc(Path('.'), 'net', plan, {VETH: _mail(without)},
                              {VETH: NET / VETH}))
    assert bad and 'Toke' in bad[0].detail and 'Fixes: 27accb3cc08a' in bad[0].detail


def test_cc_needs_what_get_maintainer_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mail, 'get_maintainer', lambda tree, patches: [
        mail.Named('Jakub Kicinski <kuba@kernel.org>', 'maintainer:NETWORKING DRIVERS'),
        mail.Named('Some One <some@one.org>', 'reviewer:VETH DRIVER')])
    plan = mail.read(NET)
    to = ['Jakub Kicinski <kuba@kernel.org>', *plan.fixes[0].people]
    bad = _failed(uc.check_cc(Path('.'), 'net', plan, {VETH: _mail(to)}, {VETH: NET / VETH}))
    assert bad and 'some@one.org' in bad[0].detail.lower() and 'reviewer' in bad[0].detail


def test_cc_refuses_a_placeholder_sender(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 39.15: you@your.domain and friends reach nobody; issue 49: nor
    GitHub's hidden address.  The mail is otherwise a real sender's, so only
    the placeholder's Signed-off-by can fail it."""
    monkeypatch.setattr(mail, 'get_maintainer', lambda tree, patches: [])
    plan = mail.read(NET)
    people = list(plan.fixes[0].people)
    assert not _failed(uc.check_cc(Path('.'), 'net', plan, {VETH: _mail(people)},
                                   {VETH: NET / VETH}))
    for sender in ('You <you@your.domain>', 'root <root@localhost.localdomain>',
                   'Dev <dev@mail.example.com>', 'A <a@example>',
                   'Ada <12345+ada@users.noreply.github.com>'):
        text = _mail(people).replace('\n---\n', f'\nSigned-off-by: {sender}\n---\n', 1)
        bad = _failed(uc.check_cc(Path('.'), 'net', plan, {VETH: text}, {VETH: NET / VETH}))
        assert bad and f'placeholder sender: {sender}' in bad[0].detail, sender


TREE_FIXES = SERIES_DIR / 'tree-fixes'


def _by_patch(tree: Path, patches: List[Path]) -> List[mail.Named]:
    """get_maintainer.pl's answer per tree fix: each its own port's people."""
    port = {'0001': ('Alpha Maint <alpha@kernel-dev.org>', 'linux-alpha@vger.kernel.org'),
            '0002': ('Parisc Maint <parisc@kernel-dev.org>', 'linux-parisc@vger.kernel.org'),
            '0003': ('Net Maint <net@kernel-dev.org>', 'netdev@vger.kernel.org')}
    return [mail.Named(who, 'maintainer:X' if '<' in who else 'open list:X')
            for p in patches for who in port[p.name[:4]]]


def test_cc_of_a_separate_series_fails_a_union_or_a_thread(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: export-series gave the three tree fixes one union To/Cc."""
    monkeypatch.setattr(mail, 'get_maintainer', _by_patch)
    plan = mail.read(TREE_FIXES)
    assert plan.separate
    patches = {p.name: p for p in sorted(TREE_FIXES.glob('0*.patch'))}
    own = mail.mails_for(plan, list(patches.values()), Path('.'), *SAMPLE)
    assert not _failed(uc.check_cc(Path('.'), 'tree-fixes', plan, own, patches))
    # as export-series wrote them before: the union on each, and a thread
    union = mail.mails_for(dataclasses.replace(plan, separate=False), list(patches.values()),
                           Path('.'), *SAMPLE)
    bad = _failed(uc.check_cc(Path('.'), 'tree-fixes', plan, union, patches))
    assert [f.patch for f in bad] == list(patches)
    assert 'parisc@kernel-dev.org' in bad[0].detail and 'another patch' in bad[0].detail
    first = next(iter(patches))
    threaded = {first: own[first].replace('\nSubject: ', '\nIn-Reply-To: <0@x>\nSubject: ', 1)}
    bad = _failed(uc.check_cc(Path('.'), 'tree-fixes', plan, threaded, patches))
    assert bad and 'is a reply (In-Reply-To)' in bad[0].detail


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / 'tree'
    repo.mkdir()
    (repo / 'a.c').write_text('int a;\n')
    for cmd in (['init', '-q'], ['add', '.'],
                ['-c', 'user.name=x', '-c', 'user.email=x@y', 'commit', '-qm', 'base']):
        subprocess.run(['git', *cmd], cwd=repo, check=True)
    return repo


def test_applies_fails_on_a_patch_for_another_base(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    bad = tmp_path / '0001-x.patch'
    bad.write_text('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.org>\nDate: Mon, 7 Dec 2026 '
                   '00:00:00 +0000\nSubject: [PATCH] x\n\nx\n---\n a.c | 2 +-\n\ndiff --git '
                   'a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-int b;\n+int c;\n')
    found = uc.check_applies(repo, 'net', bad)
    assert found.status is Status.FAIL
    # and the worktree is left as it was, for the next series
    assert not (repo / '.git' / 'rebase-apply').exists()
    assert uc.touched(bad.read_text()) == ['a.c']


class _CannedBuilder(uc.Builder):
    """make as a W=1 build of a patch that adds a warning answers."""
    output = ''

    def configure(self, symbols):  # type: ignore[no-untyped-def]
        (self.build / '.config').write_text('CONFIG_NET=y\n')
        return None

    def make(self, *args: str) -> 'subprocess.CompletedProcess[str]':
        return subprocess.CompletedProcess(['make'], 0, self.output, '')


def test_builds_fails_on_a_w1_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(uc, 'kconfig_symbol', lambda src, f: BUILTIN)
    from rxalign import arches
    b = _CannedBuilder(arches.select('x86_64')[0], tmp_path, tmp_path, tmp_path / 'log', 1, {})
    patch = tmp_path / '0001-x.patch'
    b.output = '  CC      net/core/skbuff.o\n'
    assert uc.check_builds(b, 'net', patch, ['net/core/skbuff.c'], []).status is Status.PASS
    b.output = ('net/core/skbuff.c:12:5: warning: no previous prototype for \'f\' '
                '[-Wmissing-prototypes]\n')
    found = uc.check_builds(b, 'net', patch, ['net/core/skbuff.c'], [])
    assert found.status is Status.FAIL and 'missing-prototypes' in found.detail


def test_a_stored_patch_git_am_cannot_date_is_caught(tmp_path: Path) -> None:
    """kernel-patches/net-next/ once said "Date: (set when exported)": git am
    refused every patch ("invalid date format") while the bodies matched."""
    good = tmp_path / 'good.patch'
    good.write_text('From 0 Mon Sep 17 00:00:00 2001\nDate: Mon, 7 Dec 2026 04:36:12 +0000\n')
    bad = tmp_path / 'bad.patch'
    bad.write_text('From 0 Mon Sep 17 00:00:00 2001\nDate: (set when exported)\n')
    assert uc._dated(good) and not uc._dated(bad)


def _kernel_doc_says(tree: Path, *lines: str) -> None:
    script = tree / 'scripts' / 'kernel-doc'
    script.parent.mkdir(exist_ok=True)
    script.write_text('#!/bin/sh\ncat >&2 <<"EOF"\n' + ''.join(f'{ln}\n' for ln in lines) + 'EOF\n')
    script.chmod(0o755)


def test_kernel_doc_fails_only_what_the_patch_adds(tmp_path: Path) -> None:
    """net/0001 touches net/core/skbuff.c, whose __build_skb has lacked a
    return description since before the series: that failed the patch.
    netdev's kdoc check counts the warnings a patch adds."""
    (tmp_path / 'net').mkdir()
    (tmp_path / 'net' / 'x.c').write_text('int x;\n')
    patch = tmp_path / '0001-x.patch'
    _kernel_doc_says(tmp_path, "Warning: net/x.c:490 No description found for return value of 'f'")
    before = uc.kernel_doc_warnings(tmp_path, ['net/x.c'])
    # the patch moved the old warning down by 12 lines
    _kernel_doc_says(tmp_path, "Warning: net/x.c:502 No description found for return value of 'f'")
    assert uc.check_kernel_doc(tmp_path, 'net', patch, ['net/x.c'], before).status is Status.PASS
    _kernel_doc_says(tmp_path, "Warning: net/x.c:502 No description found for return value of 'f'",
                     "Warning: net/x.c:530 function parameter 'pool' not described in 'g'")
    found = uc.check_kernel_doc(tmp_path, 'net', patch, ['net/x.c'], before)
    assert found.status is Status.FAIL and "'pool' not described" in found.detail


def test_a_file_of_another_arch_is_a_skip_not_a_build(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """tree-fixes/0001 touches arch/alpha/mm/fault.c, an obj-y file: the x86_64
    build dir was asked to build it and failed the patch."""
    monkeypatch.setattr(uc, 'kconfig_symbol', lambda src, f: BUILTIN)
    from rxalign import arches
    b = _CannedBuilder(arches.select('x86_64')[0], tmp_path, tmp_path, tmp_path / 'log', 1, {})
    b.output = 'arch/alpha/mm/fault.c:43:1: error: no previous prototype\n'
    found = uc.check_builds(b, 'tree-fixes', tmp_path / '0001-x.patch',
                            ['arch/alpha/mm/fault.c'], [])
    assert found.status is Status.SKIP and "alpha's, not x86_64's" in found.detail
    b.output = ''
    assert uc.check_builds(b, 'x', tmp_path / '0001-x.patch', ['arch/x86/kernel/x.c'],
                           []).status is Status.PASS


# ---- a header's includers are built (issue 49) ----

class _MakeByTarget(uc.Builder):
    """make that builds each object it is asked for, and fails the ones in
    @broken as gcc would when a header they include changed under them."""
    broken: Dict[str, str] = {}
    built: List[str] = []
    enabled: List[str] = []

    def configure(self, symbols):  # type: ignore[no-untyped-def]
        self.enabled = list(symbols)
        (self.build / '.config').write_text(''.join(f'CONFIG_{s}=m\n' for s in symbols))
        return None

    def make(self, *args: str) -> 'subprocess.CompletedProcess[str]':
        target = args[-1]
        self.built.append(target)
        return subprocess.CompletedProcess(['make'], 1 if target in self.broken else 0,
                                           self.broken.get(target, f'  CC [M]  {target}\n'),
                                           '')


def _fec_tree(tmp_path: Path) -> Path:
    """drivers/net/ethernet/freescale/ as 7.3 has it, in small: fec.h is
    included by fec_main.c and fec_ptp.c (one module), by a subdirectory's
    file through "../", and a header of the same name elsewhere is not it."""
    src = tmp_path / 'src'
    fsl = src / 'drivers/net/ethernet/freescale'
    (fsl / 'sub').mkdir(parents=True)
    (src / 'include/linux').mkdir(parents=True)
    (fsl / 'Makefile').write_text('obj-$(CONFIG_FEC) += fec.o\nfec-objs := fec_main.o '
                                  'fec_ptp.o\nobj-$(CONFIG_GIANFAR) += gianfar.o\n')
    (fsl / 'sub' / 'Makefile').write_text('obj-$(CONFIG_FS_ENET) += mac-fec.o\n')
    (fsl / 'fec.h').write_text('struct fec_enet_private { int x; };\n')
    (fsl / 'fec_main.c').write_text('#include <linux/module.h>\n#include "fec.h"\n')
    (fsl / 'fec_ptp.c').write_text('#include "fec.h"\n')
    (fsl / 'sub' / 'mac-fec.c').write_text('#include "../fec.h"\n')
    (fsl / 'gianfar.c').write_text('#include <linux/fec.h>\n')    # another fec.h
    (src / 'include/linux/fec.h').write_text('')
    return src


FEC_H = 'drivers/net/ethernet/freescale/fec.h'
FEC_DIR = 'drivers/net/ethernet/freescale/'


def test_includers_of_a_header(tmp_path: Path) -> None:
    src = _fec_tree(tmp_path)
    assert uc.includers(src, FEC_H, 'x86') == [
        FEC_DIR + 'fec_main.c', FEC_DIR + 'fec_ptp.c', FEC_DIR + 'sub/mac-fec.c']
    assert uc.includers(src, 'include/linux/fec.h', 'x86') == [FEC_DIR + 'gianfar.c']


def test_a_header_only_break_fails_the_build_check(tmp_path: Path) -> None:
    """A patch that changes fec.h alone was a skip ("no C file"), and one
    that broke fec_ptp.c, which it does not touch, passed."""
    from rxalign import arches
    src = _fec_tree(tmp_path)
    b = _MakeByTarget(arches.select('x86_64')[0], src, tmp_path, tmp_path / 'log', 1, {})
    b.built, b.broken = [], {}
    patch = tmp_path / '0001-fec.patch'
    ok = uc.check_builds(b, 'net-next-fec', patch, [FEC_H], [])
    assert ok.status is Status.PASS, ok.detail
    assert b.built == [FEC_DIR + 'fec_main.o', FEC_DIR + 'fec_ptp.o',
                       FEC_DIR + 'sub/mac-fec.o']
    assert {'FEC', 'FS_ENET'} <= set(b.enabled) and 'GIANFAR' not in b.enabled
    assert 'fec_ptp.c (includes fec.h)' in ok.detail
    b.broken = {FEC_DIR + 'fec_ptp.o': f"{FEC_DIR}fec_ptp.c:9:17: error: 'struct "
                "fec_enet_private' has no member named 'hwts_rx_en'\n"}
    bad = uc.check_builds(b, 'net-next-fec', patch, [FEC_H], [])
    assert bad.status is Status.FAIL and 'fec_ptp.c' in bad.detail


def test_a_header_no_object_here_includes_is_a_skip_that_says_so(tmp_path: Path) -> None:
    from rxalign import arches
    src = _fec_tree(tmp_path)
    (src / 'drivers/net/lonely.h').write_text('')
    b = _MakeByTarget(arches.select('x86_64')[0], src, tmp_path, tmp_path / 'log', 1, {})
    b.built = []
    found = uc.check_builds(b, 'x', tmp_path / '0001-x.patch', ['drivers/net/lonely.h'], [])
    assert found.status is Status.SKIP and 'no file includes drivers/net/lonely.h' in \
        found.detail and not b.built


def test_a_series_is_applied_on_the_series_it_is_made_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """net-next-tulip is made on net-tulip: alone on the base it does not
    apply, after it it does; a base that does not apply is named."""
    from rxalign import series
    repo = _repo(tmp_path)
    head = ('From 0 Mon Sep 17 00:00:00 2001\nFrom: A <a@b.org>\nDate: Mon, 7 Dec 2026 '
            '00:00:00 +0000\nSubject: [PATCH] {s}\n\n{s}\n---\n a.c | 2 +-\n\ndiff --git '
            'a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n@@ -1 +1 @@\n-{old}\n+{new}\n')
    top = tmp_path / 'kp'
    for name, old, new in (('net-fix', 'int a;', 'int b;'), ('next', 'int b;', 'int c;')):
        (top / name).mkdir(parents=True)
        (top / name / '0001-x.patch').write_text(head.format(s=name, old=old, new=new))
    fix = series.Series('net-fix', 'net')
    nxt = series.Series('next', 'net-next', after=('net-fix',))
    monkeypatch.setitem(series.BY_NAME, 'net-fix', fix)
    alone = uc.check_applies(repo, 'next', top / 'next' / '0001-x.patch')
    assert alone.status is Status.FAIL
    assert uc.apply_base(repo, nxt, top) is None
    assert uc.check_applies(repo, 'next', top / 'next' / '0001-x.patch').status is Status.PASS
    # a base that no longer applies stops the check, named
    (top / 'net-fix' / '0001-x.patch').write_text(head.format(s='f', old='int z;', new='int y;'))
    (tmp_path / 'again').mkdir()
    bad = uc.apply_base(_repo(tmp_path / 'again'), nxt, top)
    assert bad is not None and bad.status is Status.FAIL and 'net-fix/0001-x.patch' in bad.detail
