"""rx_align_frame: lines: read once by the console walk, typed, kept in results.json."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from rxalign import console
from rxalign.declared import expected_suites
from rxalign.arch_plan import FRAME_LINES_ARG
from rxalign.results import (ArchRun, DriverClass, Frame, FrameVerdict, MalformedFrame, Results,
                             RunMeta, Verdict, parse_frame)
from rxalign.verdict import judge

import faults

TESTS_DIR = Path(__file__).resolve().parent / 'fixtures' / 'kunit-tests'
E1000 = ('driver=e1000 path=e1000 frame=ipv4 len=60 class=ip_align headroom=66 mac_line_off=2 '
         'nh_mod4=0 head_frag=1 pp_recycle=0 verdict=pass')


def judged(parser: ModuleType, fault: str, arch: str = 'x86_64') -> Verdict:
    return judge(ArchRun(arch=arch, ktap_log=faults.path(fault)), expected_suites(TESTS_DIR),
                 parser, 300)


def test_a_driver_line_is_read_into_its_fields() -> None:
    f = parse_frame('s.c.p', E1000)
    assert f == Frame(case='s.c.p', path='e1000', frame='ipv4', length=60, headroom=66,
                      mac_line_off=2, nh_mod4=0, head_frag=True, pp_recycle=False,
                      driver='e1000', driver_class=DriverClass.IP_ALIGN,
                      verdict=FrameVerdict.PASS)


def test_unknown_keys_are_extra_and_missing_keys_absent() -> None:
    f = parse_frame('s.c', 'path=build_skb frame=ipv4 headroom=64 cpu=0 queue=rx-0')
    assert isinstance(f, Frame)
    assert f.extra == {'cpu': '0', 'queue': 'rx-0'}
    assert (f.length, f.nh_mod4, f.mac_line_off, f.head_frag, f.driver_class, f.verdict) == \
        (None, None, None, None, None, None)


@pytest.mark.parametrize('text, why', [
    ('path=x len=sixty', "len='sixty'"),
    ('path=x headroom=-2', "headroom='-2'"),
    ('path=x nh_mod4=6', 'nh_mod4=6'),
    ('path=x head_frag=2', "head_frag='2'"),
    ('driver=x class=dma', "class='dma'"),
    ('driver=x verdict=maybe', "verdict='maybe'"),
    ('path=x path=y', 'path given twice'),
    ('path=x headroom 64', "'headroom' is no key=value"),
    ('path=x =64', "'=64' is no key=value"),
    ('path=', "path=''"),
    ('', 'no key=value'),
])
def test_a_malformed_line_is_kept_with_why(text: str, why: str) -> None:
    f = parse_frame('s.c', text)
    assert isinstance(f, MalformedFrame) and why in f.why, f
    assert f.line == f'rx_align_frame: {text}'.strip()


def test_no_line_crashes_the_reader() -> None:
    junk = ['=', '==', 'a==b', '\x00=\x01', 'len=٣', 'nh_mod4=3 nh_mod4', 'class=', 'x=' * 50,
            'headroom=99999999999999999999999', '\t path=a\tframe=b ']
    for text in junk:
        assert isinstance(parse_frame('s.c', text), (Frame, MalformedFrame))


def test_each_frame_belongs_to_the_case_that_printed_it(parser: ModuleType) -> None:
    v = judged(parser, 'frames_pass')
    cases = {c.name for c in v.cases}
    assert len(v.frames) == 13 and all(f.case in cases for f in v.frames)
    napi = v.frames_of('net_rx_align_iphdr.rx_vlan_ipv4_header.napi_alloc_skb')
    assert [(f.path, f.frame, f.headroom, f.mac_line_off, f.nh_mod4) for f in napi] == \
        [('napi_alloc_skb', 'vlan_ipv4', 68, 4, 2)]
    tulip = v.frames_of('net_rx_align_drivers.rx_driver_frames.tulip ipv4')
    assert [(f.driver, f.driver_class, f.verdict) for f in tulip] == \
        [('tulip', DriverClass.IP_ALIGN, FrameVerdict.PASS)]
    assert [(m.case, m.why) for m in v.malformed_frames] == \
        [('net_rx_align_iphdr.rx_ipv4_header.build_skb', "len='sixty' is not a number of bytes")]
    assert v.facts['net_ip_align'] == '0'   # the facts line, as before


def test_a_frame_inside_a_failure_message_is_not_a_measurement() -> None:
    lines = faults.replace(faults.pass_log(), 'ok 1 dev_alloc_skb', [
        '    # rx_ipv4_header: EXPECTATION FAILED at net/core/tests/rx_align.h:149',
        '    Expected addr % 4 == rx_nh_want(), but',
        'rx_align_frame: path=dev_alloc_skb frame=ipv4 nh_mod4=2',
        '        not ok 1 dev_alloc_skb'])
    assert console.read(lines).frames == []


def test_the_frames_of_a_case_that_never_finished_are_kept() -> None:
    """A crash in the middle of a case: what it measured before is the evidence."""
    lines = faults.cut_before(faults.pass_log(), 'ok 3 napi_alloc_skb len=60')
    con = console.read(lines + [faults.frame_line('rx_napi_alloc', 'path=napi_alloc_skb len=60 '
                                                  'headroom=66 nh_mod4=0')] + faults.PANIC)
    assert [(f.case, f.headroom) for f in con.frames] == \
        [('net_rx_align_alloc.rx_napi_alloc', 66)]


def test_frames_survive_results_json(parser: ModuleType) -> None:
    v = judged(parser, 'frames_pass')
    meta = RunMeta(tree='t', head='a' * 40, tree_hash='b' * 40, series='c', run_id='r',
                   arches=('x86_64',), finished='now')
    data = json.loads(json.dumps(Results(runs=[meta], arches={'x86_64': v}).to_json()))
    arch = data['arches']['x86_64']
    assert len(arch['frames_malformed']) == 1
    assert arch['frames'][-1] == {
        'case': 'net_rx_align_drivers.rx_driver_frames.tulip ipv4', 'path': 'tulip',
        'frame': 'ipv4', 'driver': 'tulip', 'len': 60, 'headroom': 64, 'mac_line_off': 0,
        'nh_mod4': 2, 'want_mod4': 2, 'rule': 'net_ip_align', 'head_frag': 0, 'pp_recycle': 0,
        'class': 'ip_align', 'verdict': 'pass'}
    back = Results.from_json(data, 'results.json').arches['x86_64']
    assert back.frames == v.frames and back.malformed_frames == v.malformed_frames
    assert any(f.extra == {'cpu': '0'} for f in back.frames)


def test_a_frame_results_json_cannot_read_is_a_clear_error(parser: ModuleType) -> None:
    data = judged(parser, 'frames_pass').to_json()
    data['frames'][0]['nh_mod4'] = 'two'
    with pytest.raises(ValueError, match="results.json: x86_64: frames: frame of "
                       "net_rx_align_iphdr.rx_ipv4_header.dev_alloc_skb: nh_mod4='two'"):
        Verdict.from_json(data, 'results.json')


def test_results_without_frames_still_load() -> None:
    """Results written before frames were a field."""
    v = Verdict.from_json({'arch': 'x86_64', 'cases': []}, 'old.json', 1)
    assert v.frames == [] and v.malformed_frames == []


def test_the_driver_classes_rules_and_verdicts_are_the_c_suites() -> None:
    """The C prints class=, rule= and verdict= from its own tables: a name the
    harness does not know makes the frame malformed, and it drops out of
    the report (copy_pad2 and record did, before)."""
    import re
    from rxalign.paths import TESTS_DIR
    c = (TESTS_DIR / 'rx_align_drivers_kunit.c').read_text()
    names = re.search(r'rx_class_names\[\] = \{(.*?)\};', c, re.S)
    assert names
    assert set(re.findall(r'"(\w+)"', names.group(1))) == {k.value for k in DriverClass}
    helpers = (TESTS_DIR / 'rx_align_kunit_helpers.c').read_text()
    verdicts = re.search(r'const char \*verdict = failed \? "(\w+)" : want >= 0 \? "(\w+)" :'
                         r'\s*seen->nh % 4 \? "(\w+)" : "(\w+)";', helpers)
    assert verdicts
    assert set(verdicts.groups()) == {k.value for k in FrameVerdict}


def test_the_harness_asks_the_helpers_for_every_frame_line() -> None:
    """The helpers print a passing frame's line only with their frame_lines
    parameter; a renamed module or parameter would empty every report's frame
    table without failing a case.  The argument the harness passes names the
    helpers' object and a module_param() in it."""
    module, _, assignment = FRAME_LINES_ARG.removeprefix('--kernel_args=').partition('.')
    param, _, value = assignment.partition('=')
    # the repository's C, not a fixture a test may have put in TESTS_DIR's place
    source = (Path(__file__).resolve().parents[2] / 'kunit-tests' / f'{module}.c').read_text()
    assert re.search(rf'^module_param\({param}, bool,', source, re.M), (module, param)
    assert value == '1'
