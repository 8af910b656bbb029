"""The prose and the report legends name only what the code has
(scripts/docs --check, doccheck.py), and their sample console lines are
lines the harness reads."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import List, Tuple

import pytest

from rxalign import console, doccheck, docgen, tables
from rxalign.declared import expected_suites
from rxalign.paths import REPO, TESTS_DIR
from rxalign.results import DriverClass, Frame, FrameVerdict


@pytest.fixture(scope='module')
def code() -> doccheck.Code:
    return doccheck.read_code(REPO, docgen.command_options())


def test_the_prose_and_the_legends_name_only_what_the_code_has() -> None:
    found = docgen.stale_names()
    assert not found, '\n'.join(str(s) for s in found)


# Each name the prose once kept after the code had dropped it (issue 51), put
# back into a sentence of its kind, and what the check then says.
PUT_BACK = [
    ('`rx_policies[]` in `rx_align_kunit_helpers.c`', 'rx_policies', 'not a name'),
    ('| `net_rx_align_policy` (`rx_align_kunit.c`) |', 'rx_align_kunit.c', 'kunit-tests/'),
    ('(message: `kunit-tests/commit-message`)', 'kunit-tests/commit-message', 'no such file'),
    ('with `kernel-patches/net-sonic/`', 'kernel-patches/net-sonic/', 'no such file'),
    ('counted (`verdict=pass-cost`)', 'verdict=pass-cost', 'prints verdict='),
    ('stopped after `net_rx_align_policy.rx_policy_table`', 'net_rx_align_policy.rx_policy_table',
     'declares no case'),
    ('`class=copy`', 'class=copy', 'prints class='),
    ('`rule=ip_align`', 'rule=ip_align', 'prints rule='),
    ('`scripts/run-kunit --no-such-option`', '--no-such-option', 'scripts/run-kunit has no'),
    ('`scripts/report --drivers`', '--drivers', 'scripts/report has no'),
    ('```\nscripts/test --quick --slow\n```', '--slow', 'scripts/test has no'),
    ('a bare `--list-drivers`', '--list-drivers', 'no command of scripts/'),
    ('```\n    # rx_policy_table: rx_align_facts: arch=x86_64 net_ip_align=0\n```',
     '# rx_policy_table', 'no case rx_policy_table'),
    ('```\n    # rx_ipv4_header: rx_align_frame: driver=virtio_net path=virtio_net frame=ipv4\n```',
     '# rx_ipv4_header', 'in this order'),
    ('```\n    # rx_policy_facts: rx_align_facts: arch=x86_64 policy=x86 net_ip_align=0\n```',
     '# rx_policy_facts', 'prints no policy'),
]


@pytest.mark.parametrize('stale,name,why', PUT_BACK)
def test_a_stale_name_put_back_is_found(code: doccheck.Code, stale: str, name: str,
                                        why: str) -> None:
    text = (REPO / 'docs/suites.md').read_text()
    assert doccheck.check_text(text, 'docs/suites.md', code) == []
    broken = text.replace('\n## The suites\n', f'\n{stale}\n\n## The suites\n', 1)
    line = broken[:broken.index(name, broken.index(stale))].count('\n') + 1
    found = doccheck.check_text(broken, 'docs/suites.md', code)
    assert found and {(s.where, s.name.startswith(name)) for s in found} == \
        {(f'docs/suites.md:{line}', True)}, found
    assert any(why in s.why for s in found), found


def test_what_is_named_and_is_there_passes(code: doccheck.Code) -> None:
    good = ('`rx_align_want()`, `net_rx_align_xdp.rx_generic_xdp.frags_prog_l3_linear_ipv4`, '
            '`kunit-tests/rx_align.h`, `kernel-patches/tree-fixes/0003`, '
            '`kunit-results/<UTC time>/report.md`, `scripts/mutations/*.patch`, '
            '`kernel-patches/for-<kernel>`, `scripts/get_maintainer.pl --no-git`, '
            '`git am --abort`, `RXALIGN_CACHE=x scripts/run-kunit --arch=x86_64 --drivers`, '
            '`class=copy_pad2`, `rule=word_aligned`, `verdict=cost`, `rx_copybreak`')
    assert doccheck.check_text(good, 'x.md', code) == []


def test_a_stale_doc_fails_scripts_docs_check(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """End to end, on a copy of the repository whose docs name a file that is gone."""
    for name in ('kunit-tests', 'scripts', 'kernel-patches', 'ci-templates', 'expected'):
        (tmp_path / name).symlink_to(REPO / name)
    shutil.copytree(REPO / 'docs', tmp_path / 'docs')
    (tmp_path / 'docs/x.md').write_text('# x\n\nSee `kunit-tests/rx_align_kunit.c`.\n')
    found = docgen.stale_names(tmp_path)
    assert [str(s) for s in found] == [
        'docs/x.md:3: kunit-tests/rx_align_kunit.c: no such file or directory in the repository']


def test_scripts_docs_check_exits_1_naming_each_stale_name(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert docgen.main(['--check']) == 0
    monkeypatch.setattr(docgen, 'stale_names', lambda repo=REPO: [
        doccheck.Stale('docs/x.md:3', 'rx_policies', 'not a name of kunit-tests/')])
    assert docgen.main(['--check']) == 1
    assert 'docs: error: docs/x.md:3: rx_policies: not a name of kunit-tests/' \
        in capsys.readouterr().err


def test_a_report_legend_is_checked_at_its_line(tmp_path: Path, code: doccheck.Code) -> None:
    module = tmp_path / 'report.py'
    module.write_text("X = 1\nLEGEND = ('see the policy table '\n          '`rx_policies[]`')\n")
    [(line, text)] = doccheck.legend_texts(module)
    assert [str(s) for s in doccheck.check_text(text, 'report.py', code, line)] == [
        'report.py:2: rx_policies: not a name of kunit-tests/ or scripts/initramfs/']


# --- the legends' classes, rules and verdicts are the C's ---------------------------------

def test_the_legends_name_every_class_rule_and_verdict_the_c_prints(
        code: doccheck.Code) -> None:
    assert set(tables.CLASS_MEANINGS) == set(DriverClass)
    assert set(tables.RULE_MEANINGS) == code.values['rule'] == \
        {'net_ip_align', 'word_aligned', 'kept', 'none'}
    assert set(tables.VERDICT_MEANINGS) == set(FrameVerdict)


def test_the_rule_legend_is_what_rx_align_want_returns() -> None:
    """net_ip_align (NET_IP_ALIGN + ETH_HLEN) % 4, word_aligned 0, kept the
    offset before, none -1: the legend says what the C's switch does."""
    c = (TESTS_DIR / 'rx_align_kunit_helpers.c').read_text()
    body = re.search(r'int rx_align_want\(.*?\n\{(.*?)\n\}', c, re.S)
    assert body
    returns = dict(re.findall(r'case (RX_RULE_\w+):\s*return (.*?);', body.group(1)))
    assert returns == {'RX_RULE_IP_ALIGN': '(NET_IP_ALIGN + ETH_HLEN) % 4',
                       'RX_RULE_WORD': '0', 'RX_RULE_KEPT': 'kept % 4'}
    assert tables.RULE_MEANINGS['net_ip_align'].startswith('(NET_IP_ALIGN + 14) % 4')
    assert '4-byte boundary' in tables.RULE_MEANINGS['word_aligned']
    assert 'before' in tables.RULE_MEANINGS['kept']


def test_the_reports_legends_come_from_the_tables() -> None:
    from rxalign import report, report_html
    from rxalign.results import Results, RunMeta, Verdict
    v = Verdict(arch='x86_64', facts={'net_ip_align': '0'}, frames=[
        Frame(case='s.c', path='e1000', frame='ipv4', driver='e1000', headroom=64, nh_mod4=2,
              mac_line_off=0, want_mod4=2, driver_class=DriverClass.IP_ALIGN,
              verdict=FrameVerdict.PASS)])
    meta = RunMeta(tree='t', head='', tree_hash='', series='', run_id='r', arches=('x86_64',),
                   finished='')
    results = Results(runs=[meta], arches={'x86_64': v})
    md = report.markdown(results)
    assert tables.legend(tables.CLASS_MEANINGS) in md
    assert tables.legend(tables.RULE_MEANINGS) in md
    assert tables.legend(tables.VERDICT_MEANINGS) in md
    assert 'copy_pad2: a CPU copy behind a literal 2' in report_html.page(results)


# --- sample console lines -----------------------------------------------------------

def samples() -> List[Tuple[str, str]]:
    """(file, line) of every console line of a fenced block of the prose."""
    return [(str(f.relative_to(REPO)), line)
            for f in doccheck.prose(REPO)
            for block in doccheck.FENCE.findall(f.read_text())
            for line in block.split('\n') if doccheck.SAMPLE.match(line)]


def as_ktap(line: str) -> List[str]:
    """The line where the C prints it: inside its case, inside its suite."""
    m = doccheck.SAMPLE.match(line)
    assert m
    suite = next(s for s, cases in expected_suites(TESTS_DIR).items() if m.group(1) in cases)
    return ['KTAP version 1', '1..1', '    KTAP version 1', f'    # Subtest: {suite}', '    1..1',
            line, f'    ok 1 {m.group(1)}', f'ok 1 {suite}']


def test_the_prose_has_sample_lines_of_facts_and_frames() -> None:
    kinds = {doccheck.SAMPLE.match(line).group(2) for _, line in samples()}  # type: ignore
    assert kinds == {'rx_align_facts', 'rx_align_frame'}


@pytest.mark.parametrize('where,line', samples())
def test_a_sample_line_is_read_by_the_harness(parser: ModuleType, where: str,
                                              line: str) -> None:
    """kunit_parser files it under its case, and console.read (what the
    reports read) takes every key of it: facts, or a frame with its verdict."""
    lines = as_ktap(line)
    root = parser.parse_run_tests(lines)
    case = root.subtests[0].subtests[0]
    assert case.status.name == 'SUCCESS' and any(line.strip() in ln for ln in case.log), where
    con = console.read(lines)
    assert not con.malformed_frames, (where, con.malformed_frames)
    fields = dict(t.split('=', 1) for t in line.split(': ', 2)[2].split())
    if 'rx_align_facts' in line:
        assert con.facts == fields
    else:
        [frame] = con.frames
        assert frame.verdict is not None and frame.rule == fields['rule']
        assert set(frame.extra) <= set(fields)


def test_a_sample_the_harness_cannot_read_fails(parser: ModuleType) -> None:
    """The verdict the C printed before it had `cost`, in a sample."""
    line = ('    # rx_driver_frames_case: rx_align_frame: path=tulip frame=ipv4 len=60 '
            'headroom=34 mac_line_off=2 nh_mod4=2 want_mod4=-1 rule=none head_frag=0 '
            'pp_recycle=0 driver=tulip class=device band=buffer fixups=-1 verdict=pass-cost')
    con = console.read(as_ktap(line))
    assert [m.why for m in con.malformed_frames] == \
        ["verdict='pass-cost' is not one of pass|fail|cost|recorded"]
