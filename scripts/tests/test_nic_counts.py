"""The report's frames-per-NIC table, on a real sparc64 drivers log."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import ModuleType
from typing import List, Optional

import pytest

from rxalign import baseline, report, tables
from rxalign.declared import expected_suites
from rxalign.results import ArchRun, Results, RunMeta, SendOutcome, parse_sent
from rxalign.verdict import judge

HERE = Path(__file__).resolve().parent / 'fixtures'
LOG = HERE / 'drivers' / 'sparc64-tulip-unfixed.ktap'
# what a --drivers kernel declares: the drivers suite alone
DRIVERS_ONLY = {'net_rx_align_drivers': ['rx_drivers_bound', 'rx_driver_frames_case']}


def results(parser: ModuleType) -> Results:
    v = judge(ArchRun(arch='sparc64', ktap_log=LOG), expected_suites(HERE / 'kunit-tests'),
              parser, 300)
    meta = RunMeta(tree='t', head='a' * 40, tree_hash='b' * 40, series='c', run_id='r',
                   arches=('sparc64',), finished='now')
    return Results(runs=[meta], arches={'sparc64': v})


def test_each_nic_counts_what_was_sent_seen_judged_and_lost(parser: ModuleType) -> None:
    counts = {c.nic: c for c in tables.nic_counts(results(parser))}
    tulip, e1000 = counts['tulip'], counts['e1000']
    # the tagged 1518-byte frame came up from the ring, 2 off: the one failure
    assert (tulip.status, tulip.failed, tulip.off, tulip.lost) == ('FAIL', 1, 1, 0)
    assert tulip.sent == 7 and tulip.received >= 7 and tulip.judged == tulip.received
    # virtio_net's frames never reached e1000: six sent, three times each
    assert (e1000.status, e1000.received, e1000.lost, e1000.sent) == ('FAIL', 0, 6, 6)
    assert e1000.resent == 12
    assert counts['hme'].lost == 0 and counts['hme'].status == 'PASS'


def test_the_table_is_in_report_md(parser: ModuleType) -> None:
    md = report.markdown(results(parser))
    assert '### Frames per NIC' in md
    assert '| sparc64 | e1000 | FAIL | 6 | 0 | 0 | 0 | 0 | 6 | 12 | - | - |' in md


def test_fixups_are_summed_per_nic_and_dash_without_a_counter(parser: ModuleType) -> None:
    v = judge(ArchRun(arch='sparc64', ktap_log=HERE / 'drivers' / 'sparc64-tulip-unfixed-fixups.ktap'),
              expected_suites(HERE / 'kunit-tests'), parser, 300)
    meta = RunMeta(tree='t', head='a' * 40, tree_hash='b' * 40, series='c', run_id='r',
                   arches=('sparc64',), finished='now')
    counts = {c.nic: c for c in tables.nic_counts(Results(runs=[meta], arches={'sparc64': v}))}
    assert (counts['tulip'].fixups, counts['tulip'].failed, counts['tulip'].status) == (1, 1, 'FAIL')
    assert (counts['e1000'].fixups, counts['hme'].fixups, counts['hme'].resent) == (0, 0, 4)
    assert counts['hme'].sent == 7 and counts['hme'].lost == 0
    assert tables.fixups_text(None) == '-'


def test_a_resent_frame_that_arrived_twice_counts_its_fixups_once(parser: ModuleType) -> None:
    r = results(parser)
    v = r.arches['sparc64']
    tulip = [f for f in v.frames if f.driver == 'tulip' and f.frame == 'vlan_ipv4']
    assert tulip
    twice = dataclasses.replace(tulip[0], extra=dict(tulip[0].extra, fixups='3'))
    v.frames += [twice, dataclasses.replace(twice)]
    assert {c.nic: c.fixups for c in tables.nic_counts(r)}['tulip'] == 3


def test_a_passing_case_with_a_failed_frame_fails_the_arch(parser: ModuleType,
                                                           tmp_path: Path) -> None:
    """The gate against a log that contradicts itself: tulip's case says ok
    while its tagged frame says fail (as a test whose assertion was lost would)."""
    text = (HERE / 'drivers' / 'sparc64-tulip-unfixed-fixups.ktap').read_text()
    lied = tmp_path / 'ktap.log'
    lied.write_text(text.replace('        not ok 2 tulip', '        ok 2 tulip'))
    assert '        ok 2 tulip' in lied.read_text()
    v = judge(ArchRun(arch='sparc64', ktap_log=lied), DRIVERS_ONLY, parser, 300)
    tulip = next(c for c in v.cases if c.name.endswith('.tulip'))
    assert tulip.status.value == 'PASS'
    assert v.status.value == 'failed' and 'passed but printed a failed frame' in v.cause
    # the fixup count alone contradicts a pass too
    lied.write_text(lied.read_text().replace('fixups=1 verdict=fail', 'fixups=1 verdict=pass'))
    v = judge(ArchRun(arch='sparc64', ktap_log=lied), DRIVERS_ONLY, parser, 300)
    assert v.status.value == 'failed', v.cause
    # and the log as it was: failed for the case, not for a contradiction
    v = judge(ArchRun(arch='sparc64', ktap_log=HERE / 'drivers' / 'sparc64-tulip-unfixed-fixups.ktap'),
              DRIVERS_ONLY, parser, 300)
    assert v.status.value == 'failed' and 'passed but printed' not in v.cause, v.cause


# rx_align_report_frame() names the path by the NIC's case name, the driver by its own
E1000_FRAME = ('driver=e1000 path={nic} frame=ipv4 len=60 class=ip_align band=buffer headroom=64 '
               'mac_line_off=0 nh_mod4=2 want_mod4=2 rule=net_ip_align head_frag=1 pp_recycle=0 '
               'fixups=-1 verdict=pass')


def _drivers_run(parser: ModuleType, tmp_path: Path, nics: List[List[str]]) -> Results:
    """pass.ktap's boot, then a drivers suite whose frames case has one
    parameter per entry of @nics (its lines, then `ok`), judged on x86_64."""
    import faults
    suite = ['    KTAP version 1', '    # Subtest: net_rx_align_drivers',
             '    # module: rx_align_drivers_kunit', '    1..1',
             '        KTAP version 1', '        # Subtest: rx_driver_frames_case']
    for i, (nic, *lines) in enumerate(nics, 1):
        suite += [*lines, f'        ok {i} {nic}']
    suite += ['    ok 1 rx_driver_frames_case', 'ok 1 net_rx_align_drivers']
    boot = faults.pass_log()
    start = faults.at(boot, 'KTAP version 1')
    log = faults.write(boot[:start + 1] + ['1..1'] + suite, tmp_path / 'ktap.log')
    v = judge(ArchRun(arch='x86_64', ktap_log=log), {'net_rx_align_drivers': []}, parser, 300)
    meta = RunMeta(tree='t', head='a' * 40, tree_hash='b' * 40, series='c', run_id='r',
                   arches=('x86_64',), finished='now')
    return Results(runs=[meta], arches={'x86_64': v})


def _frame(nic: str) -> str:
    import faults
    return faults.frame_line('rx_driver_frames_case', E1000_FRAME.format(nic=nic))


def test_the_first_nics_resends_are_counted(parser: ModuleType, tmp_path: Path) -> None:
    """Issue 50 item 8 (in part): kunit_parser files the first parameter's lines
    under its parameterised case, so the first NIC's case had no log and its
    resends showed as 0. Two e1000s, as the drivers suite names them today
    (rx_nic_desc(): `e1000`, `e1000_2`), each with one frame sent again."""
    results = _drivers_run(parser, tmp_path, [
        [nic, f'    # rx_driver_frames_case: {nic}: ipv4 60-byte frame not seen, sent again',
         _frame(nic)] for nic in ('e1000', 'e1000_2')])
    counts = {c.nic: (c.resent, c.received) for c in tables.nic_counts(results)}
    assert counts == {'e1000': (1, 1), 'e1000_2': (1, 1)}, counts
    # the driver grid (and the baseline's cells, keyed by its rows) keeps them apart
    assert tables.drivers(results).rows == [('e1000', 'ipv4'), ('e1000 e1000_2', 'ipv4')]


# ---- a real run with two NICs of one driver (issue 50 item 8) ----

# `run-kunit --drivers --arch x86_64` on 6.12, 2026-12-07, the entry with a
# second e1000 and virtio_net: the console from KTAP's first line on
TWO = HERE / 'drivers' / 'x86_64-two-e1000.ktap'
TWO_DECLARED = {'net_rx_align_drivers': ['rx_drivers_bound', 'rx_driver_frames_case',
                                         'rx_driver_xdp_frames_case'],
                'net_rx_align_drivers_bystanders': ['rx_bystanders_untouched'],
                'net_rx_align_drivers_vhost': ['rx_vhost_tx_frames']}
FRAMES = 'net_rx_align_drivers.rx_driver_frames_case.'


def two_nics(parser: ModuleType, tmp_path: Path, lines: Optional[List[str]] = None,
             name: str = 'ktap.log') -> Results:
    """The real console (or @lines, an edit of it), judged as run-kunit does."""
    import faults
    log = faults.write(lines, tmp_path / name) if lines is not None else TWO
    v = judge(ArchRun(arch='x86_64', ktap_log=log), TWO_DECLARED, parser, 300)
    meta = RunMeta(tree='t', head='a' * 40, tree_hash='b' * 40, series='c', run_id=name,
                   arches=('x86_64',), finished='now')
    return Results(runs=[meta], arches={'x86_64': v})


def test_two_nics_of_one_driver_are_two_nics_on_a_real_run(parser: ModuleType,
                                                           tmp_path: Path) -> None:
    """Each NIC its own case, frames, counts and grid rows: e1000 and e1000_2,
    virtio_net and virtio_net_2 (and their +xdp paths), 9 frames each."""
    r = two_nics(parser, tmp_path)
    v = r.arches['x86_64']
    assert v.exit == 0, v.cause
    counts = {c.nic: (c.sent, c.received, c.judged, c.lost, c.resent)
              for c in tables.nic_counts(r)}
    for nic in ('e1000', 'e1000_2', 'virtio_net', 'virtio_net_2'):
        assert counts[nic] == (9, 9, 9, 0, 0), (nic, counts)
    assert {'virtio_net', 'virtio_net_2'} <= {c.name.rsplit('.', 1)[1] for c in v.cases
                                              if 'xdp_frames' in c.name}
    rows = tables.drivers(r).rows
    assert ('e1000', 'ipv4') in rows and ('e1000 e1000_2', 'ipv4') in rows, rows
    assert ('virtio_net virtio_net_2+xdp', 'ipv4') in rows, rows
    assert {f.driver for f in v.frames_of(FRAMES + 'e1000_2')} == {'e1000'}
    assert len(v.frames_of(FRAMES + 'e1000')) == len(v.frames_of(FRAMES + 'e1000_2')) == 9


def test_each_nic_keeps_its_resends_skip_reason_and_baseline_cells(parser: ModuleType,
                                                                   tmp_path: Path) -> None:
    """The real console with, in the first e1000's window, a frame sent again,
    and the second e1000 skipped with its own reason and one of its frames
    2 bytes off: the first NIC's resend is its own (it was 0: 93e223f), the
    skip reason is e1000_2's alone, and against the real run as baseline only
    e1000_2's case and cell changed."""
    import faults
    lines = TWO.read_text().splitlines()
    first = next(ln for ln in lines if 'path=e1000 frame=ipv4 len=60 ' in ln)
    lines = faults.insert_before(lines, first, [
        '    # rx_driver_frames_case: e1000: ipv4 60-byte frame not seen, sent again'])
    second = next(ln for ln in lines if 'path=e1000_2 frame=ipv4 len=60 ' in ln)
    lines = faults.replace(lines, second, [second.replace('nh_mod4=2', 'nh_mod4=0')])
    lines = faults.replace(lines, '        ok 11 e1000_2',
                           ['        ok 11 e1000_2 # SKIP eth8 (e1000_2): no link'])
    now = two_nics(parser, tmp_path, lines)
    counts = {c.nic: c for c in tables.nic_counts(now)}
    assert (counts['e1000'].resent, counts['e1000_2'].resent) == (1, 0)
    cases = {c.name: c for c in now.arches['x86_64'].cases}
    assert cases[FRAMES + 'e1000_2'].status.value == 'SKIP'
    assert 'no link' in cases[FRAMES + 'e1000_2'].message
    assert cases[FRAMES + 'e1000'].status.value == 'PASS'
    assert 'no link' not in cases[FRAMES + 'e1000'].message
    then = two_nics(parser, tmp_path)
    comp = baseline.compare(now, then)
    assert [c.case for c in comp.cases] == [FRAMES + 'e1000_2'], comp.cases
    assert {c.row for c in comp.cells} == {('e1000 e1000_2', 'ipv4')}, comp.cells


def test_a_real_skip_over_a_failed_expectation_fails(parser: ModuleType) -> None:
    """Issue 50 item 1 on a real console: rx_bystanders_untouched in its order
    before a7e0486 (expect, then skip when no bystander was found) on x86_64
    --drivers with the bystander's virtio_net refused (mutation
    drivers-bystander-gone): `ok 1 rx_bystanders_untouched # SKIP ...` after
    `EXPECTATION FAILED`. Before a7e0486's verdict this was exit 0."""
    log = HERE / 'drivers' / 'x86_64-bystander-gone-skip.ktap'
    assert 'ok 1 rx_bystanders_untouched # SKIP no Ethernet device' in log.read_text()
    v = judge(ArchRun(arch='x86_64', ktap_log=log), TWO_DECLARED, parser, 300)
    assert v.exit == 1 and 'skipped after a failure of their own' in v.cause, v.cause
    case = next(c for c in v.cases if c.name.endswith('rx_bystanders_untouched'))
    assert case.shown == 'FAIL' and 'was not a bystander found up' in case.message, case


def _sent_line(nic: str, frame: str, length: int, sends: int, outcome: str) -> str:
    return (f'    # rx_driver_frames_case: rx_align_sent: nic={nic} frame={frame} len={length} '
            f'sends={sends} outcome={outcome}')


def test_sent_lost_and_resent_come_from_the_sent_lines(parser: ModuleType,
                                                       tmp_path: Path) -> None:
    """rx_align_sent: lines, one per frame sent: sent counts them, lost the
    outcome=lost ones, resent every send after the first; the English
    lines of older builds count no more once a case printed them."""
    results = _drivers_run(parser, tmp_path, [[
        'e1000', _frame('e1000'),
        _sent_line('e1000', 'ipv4', 60, 3, 'seen'),
        _sent_line('e1000', 'ipv6', 150, 3, 'lost'),
        _sent_line('e1000', 'ipv6', 1514, 0, 'seen'),
        '    # rx_driver_frames_case: rx_align_sent: nic=e1000 frame=ipv6 len=9 sends=x',
        '    # rx_driver_frames_case: e1000: ipv4 60-byte frame not seen, sent again']])
    [e1000] = tables.nic_counts(results)
    assert (e1000.sent, e1000.received, e1000.lost, e1000.resent) == (3, 1, 1, 4), e1000


def test_a_sent_line_says_what_is_wrong_with_it() -> None:
    s = parse_sent('nic=e1000 frame=ipv4 len=60 sends=1 outcome=seen')
    assert (s.frame, s.length, s.sends, s.outcome, s.resent) == \
        ('ipv4', 60, 1, SendOutcome.SEEN, 0)
    for text, why in (('nic=e1000 frame=ipv4 len=60 sends=1', 'no outcome'),
                      ('frame=ipv4 len=60 sends=-1 outcome=seen', "sends='-1' is not a count"),
                      ('frame=ipv4 len=60 sends=1 outcome=late', 'not one of seen|lost'),
                      ('frame=ipv4 len=6O sends=1 outcome=seen', 'not a number')):
        with pytest.raises(ValueError, match=why):
            parse_sent(text)


def test_the_docs_sample_sent_line_is_read() -> None:
    """docs/drivers.md shows the line the C prints: the parser reads it."""
    doc = (Path(__file__).resolve().parents[2] / 'docs' / 'drivers.md').read_text()
    doc = ' '.join(doc.split())
    samples = [m.group(1) for m in map(tables.SENT.search, re.findall(r'`([^`]*)`', doc)) if m]
    assert samples and parse_sent(samples[0]).outcome == SendOutcome.SEEN
