"""console.read on pass.ktap with a few lines put in: the branches no
verdict test reaches (the log stops on a rule, inside a message or inside a
case; two rules in a row; the kmemleak scan's lines before its first object)."""

from __future__ import annotations

from rxalign import console

import faults

RULE = '=' * 66
KASAN = 'BUG: KASAN: slab-use-after-free in skb_release_data+0x4a/0x3c0'
CASE = 'net_rx_align_alloc.rx_napi_alloc'
IN_CASE = '        ok 2 napi_alloc_skb len=1'   # the second parameter of rx_napi_alloc


def test_a_log_that_stops_on_a_rule_names_it() -> None:
    lines = faults.cut_before(faults.pass_log(), IN_CASE)
    con = console.read(lines + [RULE])
    assert con.unknown == [f'the last line: "{RULE}" (in {CASE} after "napi_alloc_skb len=0")']


def test_a_second_rule_before_the_title_keeps_the_first() -> None:
    """Two rules in a row, then a title no table knows: the report began at the first."""
    short = '=' * 20
    lines = faults.insert_before(faults.pass_log(), IN_CASE,
                                 [f'    {short}', f'    {RULE}', '    BAD: something new'])
    con = console.read(lines)
    assert len(con.unknown) == 1 and con.unknown[0].startswith(f'line ')
    assert f'"{short}" then "BAD: something new"' in con.unknown[0], con.unknown


def test_a_log_that_stops_inside_a_message_tells_what_it_held() -> None:
    """The message never ended: its report and banner were the kernel's,
    pinned on the case that never finished."""
    lines = faults.cut_before(faults.pass_log(), IN_CASE)
    con = console.read(lines + faults.headroom_failure(1, 210)[:2]
                       + [KASAN, 'WARNING: something no table knows'])
    assert con.stray == {f'{console.OUTSIDE_CASES}.in_net_rx_align_alloc_rx_napi_alloc': KASAN}
    assert con.unknown == ['line %d: "WARNING: something no table knows" (in %s after '
                           '"napi_alloc_skb len=0")' % (len(lines) + 4, CASE)]


def test_a_report_in_a_case_that_never_finished_is_that_cases() -> None:
    lines = faults.cut_before(faults.pass_log(), IN_CASE)
    con = console.read(lines + [KASAN])
    assert con.stray == {f'{console.OUTSIDE_CASES}.in_net_rx_align_alloc_rx_napi_alloc': KASAN}
    assert con.reports == {} and con.where == f'{CASE} after "napi_alloc_skb len=0"'


def test_the_scans_lines_before_its_first_object_are_no_objects() -> None:
    lines = faults.insert_before(faults.pass_log(), 'reboot: Restarting system',
                                 ['rx_align_kmemleak: begin', 'kmemleak: scanning',
                                  *faults.KMEMLEAK_NOT_OURS, 'rx_align_kmemleak: end'])
    con = console.read(lines)
    assert con.kmemleak.state == 'end'
    assert con.kmemleak.objects == [faults.KMEMLEAK_NOT_OURS]
