"""Report writers on results made from the saved logs: they agree, merge, validate."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, List, Tuple

import pytest

from rxalign import known_failures, paths, report, report_main, tables
from rxalign.exitcodes import Exit
from rxalign.declared import expected_suites
from rxalign.results import (RESULTS_FORMAT, ArchRun, ArchStatus, Frame, FrameVerdict, Results,
                             RunMeta, Verdict)
from rxalign.verdict import judge

import faults
import schema_subset

# The saved logs come from the suite as it was then: judge them against it.
TESTS_DIR = Path(__file__).resolve().parent / 'fixtures' / 'kunit-tests'
XSD = Path(__file__).resolve().parent / 'junit.xsd'


@pytest.fixture(autouse=True)
def recorded_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    """scripts/report recomputes against the suite the saved logs were recorded with."""
    monkeypatch.setattr(report_main, 'TESTS_DIR', TESTS_DIR)


def results_dir(parser: ModuleType, tmp: Path, name: str,
                runs: Dict[str, str], finished: str = '2026-12-03T00:00:00+00:00') -> Path:
    arches: Dict[str, Verdict] = {}
    for arch, fixture in runs.items():
        log = Path(fixture) if '/' in fixture else faults.path(fixture)
        arches[arch] = judge(ArchRun(arch=arch, ktap_log=log), expected_suites(TESTS_DIR),
                             parser, 300)
    meta = RunMeta(tree='test', head='a' * 40, tree_hash='b' * 40, series='c' * 64,
                   run_id='run-1', arches=tuple(runs), finished=finished)
    d = tmp / name
    report.write_all(d, Results(runs=[meta], arches=arches))
    return d


def test_the_files_agree(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'fail',
                                             'powerpc': 'panic_mid_suite'})
    for f in report.REPORT_FILES:
        assert (d / f).exists(), f
    data = json.loads((d / 'results.json').read_text())
    md = (d / 'report.md').read_text()
    assert '| x86_64 | passed |' in md and '| powerpc32 | failed |' in md
    assert '| powerpc | infra |' in md and 'Kernel panic' in md
    junit = ET.parse(d / 'junit.xml').getroot()
    fails = int(junit.get('failures', 0))
    assert fails == sum(1 for c in data['arches']['powerpc32']['cases'] if c['status'] == 'FAIL')
    assert int(junit.get('errors', 0)) >= 1  # the crashed arch
    kcidb = json.loads((d / 'kcidb.json').read_text())
    statuses = {t['status'] for t in kcidb['tests']}
    assert {'PASS', 'FAIL', 'MISS'} <= statuses
    assert all(t['path'] == 'kunit' or t['path'].startswith('kunit.net_rx_align_')
               for t in kcidb['tests'])
    page = (d / 'report.html').read_text()
    assert '<script' not in page and 'http' not in page.split('<body>')[1]
    assert 'headroom 66' in page and 'NET_SKB_PAD' in page


@pytest.mark.skipif(not shutil.which('xmllint'), reason='xmllint (libxml2-utils) not installed')
def test_junit_validates(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'skip', 'powerpc32': 'fail',
                                             'powerpc': 'truncated'})
    proc = subprocess.run(['xmllint', '--noout', '--schema', str(XSD), str(d / 'junit.xml')],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr


def test_two_runs_merge_into_one_report(parser: ModuleType, tmp_path: Path) -> None:
    a = results_dir(parser, tmp_path, 'a', {'x86_64': 'pass'}, '2026-12-03T01:00:00+00:00')
    b = results_dir(parser, tmp_path, 'b', {'powerpc32': 'fail'},
                    '2026-12-03T02:00:00+00:00')
    out = tmp_path / 'merged'
    assert report_main.main(['--out', str(out), str(a), str(b)]) == Exit.TEST_FAILED
    merged = json.loads((out / 'results.json').read_text())
    assert set(merged['arches']) == {'x86_64', 'powerpc32'}
    assert len(merged['meta']['runs']) == 2


def test_known_failures_are_shown_not_gating(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path, 'r', {'powerpc32': 'fail', 'powerpc': 'no_ktap'})
    rules = tmp_path / 'expected'
    rules.write_text('kernel: any\n'
                     'powerpc32: net_rx_align_alloc.rx_napi_alloc  # bug 123\n'
                     'powerpc: *  # the boot we know fails\n')
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), '--expected', str(rules), str(d)]) == Exit.OK
    md = (out / 'report.md').read_text()
    assert '(known failure: bug 123)' in md and 'the boot we know fails' in md


def test_known_failures_syntax_error_names_the_line() -> None:
    with pytest.raises(ValueError, match='f:3'):
        known_failures.parse('kernel: any\nx86_64: a.b\nno colon here\n', 'f')


def test_report_on_a_directory_that_is_no_result(tmp_path: Path) -> None:
    assert report_main.main([str(tmp_path)]) == Exit.USAGE


# ---- issue 16: each test below failed before its fix (see the docstring) ----

def rules(tmp: Path, text: str, kernel: str = 'any') -> Path:
    """An --expected file: a `kernel:` line, then @text."""
    path = tmp / 'expected'
    path.write_text(f'kernel: {kernel}\n{text}')
    return path


def edit_results(d: Path, change: Any) -> None:
    data = json.loads((d / 'results.json').read_text())
    change(data)
    (d / 'results.json').write_text(json.dumps(data))


def test_known_failures_do_not_hide_a_skip_without_reason(parser: ModuleType,
                                                          tmp_path: Path) -> None:
    """Item 3: once the last FAIL was known, the arch flipped to passed although
    a case had skipped without a reason."""
    lines = faults.fail()
    lines = faults.replace(lines, 'ok 5 __netdev_alloc_skb_gfp_dma',
                           ['        ok 5 __netdev_alloc_skb_gfp_dma # SKIP'])
    log = faults.write(lines, tmp_path / 'both.ktap')
    d = results_dir(parser, tmp_path, 'r', {'x86_64': str(log)})
    known = rules(tmp_path, 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n')
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), '--expected', str(known), str(d)]) \
        == Exit.TEST_FAILED
    assert 'without a reason' in (out / 'report.md').read_text()


def test_a_star_rule_covers_missing_results_not_failures(parser: ModuleType,
                                                         tmp_path: Path) -> None:
    """Item 5: `ARCH: *`, written for "this arch does not build", turned a real
    test failure on that arch into exit 0."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    known = rules(tmp_path, 'x86_64: *  # does not build\n')
    assert report_main.main(['--out', str(tmp_path / 'out'), '--expected', str(known),
                             str(d)]) == Exit.TEST_FAILED


def test_a_star_rule_must_name_its_arch(parser: ModuleType, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`*: *` excused a missing result on every arch: a build that broke
    everywhere, or every compiler refused, gave exit 0."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'no_ktap'})
    known = rules(tmp_path, '*: *  # anything\n')
    assert report_main.main(['--out', str(tmp_path / 'out'), '--expected', str(known),
                             str(d)]) == Exit.USAGE
    assert 'name the arch' in capsys.readouterr().err


def test_a_rule_must_name_a_whole_suite_or_case(parser: ModuleType, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Item 5: a one-letter prefix (`x86_64: n`) masked every case."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    known = rules(tmp_path, 'x86_64: n  # typo\n')
    assert report_main.main(['--out', str(tmp_path / 'out'), '--expected', str(known),
                             str(d)]) == Exit.USAGE
    assert 'expected:2' in capsys.readouterr().err


def test_expected_never_rewrites_the_runs_own_results(parser: ModuleType,
                                                      tmp_path: Path) -> None:
    """Item 5: `scripts/report --expected` without --out rewrote the run's own
    results.json, so the original verdict was gone."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    before = (d / 'results.json').read_text()
    known = rules(tmp_path, 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n')
    assert report_main.main(['--expected', str(known), str(d)]) == Exit.USAGE
    assert (d / 'results.json').read_text() == before


@pytest.mark.parametrize('change, status', [
    (lambda r: r['arches']['x86_64'].update(status='passed'), Exit.TEST_FAILED),
    (lambda r: r['arches']['x86_64'].update(
        cases=[c for c in r['arches']['x86_64']['cases']
               if not c['name'].startswith('net_rx_align_iphdr')], status='passed'),
     Exit.INFRA),
    (lambda r: r['arches']['x86_64'].update(cases=[], status='passed'), Exit.INFRA),
    (lambda r: r['arches']['x86_64'].pop('status'), Exit.TEST_FAILED),
])
def test_report_recomputes_the_status_from_the_cases(parser: ModuleType, tmp_path: Path,
                                                     change: Any, status: Exit) -> None:
    """Item 8: scripts/report trusted the stored status: `passed` with a FAIL
    case, with a declared suite missing, or with 0 cases exited 0 (and a
    missing status was a traceback)."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    edit_results(d, change)
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == status


@pytest.mark.parametrize('change, words', [
    (lambda r: r.update(arches=[]), 'arches'),
    (lambda r: r['arches']['x86_64'].update(status='green'), "'green'"),
    (lambda r: r['arches']['x86_64']['cases'][0].update(status='OK'), "'OK'"),
])
def test_a_results_file_that_is_not_ours_is_a_clear_error(
        parser: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        change: Any, words: str) -> None:
    """Item 7: a JSON list, an unknown status were Python tracebacks (exit 1,
    which means "a test failed")."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    edit_results(d, change)
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert 'results.json' in err and words in err and 'Traceback' not in err


def test_report_out_must_not_be_a_file(parser: ModuleType, tmp_path: Path) -> None:
    """Item 7: `scripts/report --out FILE` was a traceback."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    (tmp_path / 'file').write_text('mine\n')
    assert report_main.main(['--out', str(tmp_path / 'file'), str(d)]) == Exit.USAGE
    assert (tmp_path / 'file').read_text() == 'mine\n'


def test_the_same_arch_twice_is_refused(parser: ModuleType, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Item 10: the same arch in two merged directories: the newer silently won."""
    a = results_dir(parser, tmp_path, 'a', {'x86_64': 'fail'}, '2026-12-03T01:00:00+00:00')
    b = results_dir(parser, tmp_path, 'b', {'x86_64': 'pass'}, '2026-12-03T02:00:00+00:00')
    assert report_main.main(['--out', str(tmp_path / 'm'), str(a), str(b)]) == Exit.MISMATCH
    assert 'x86_64' in capsys.readouterr().err and not (tmp_path / 'm').exists()


def test_a_required_arch_without_results_fails_the_merge(
        parser: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2: x86_64 and powerpc32 passed, powerpc's job died without results:
    the merge exited 0."""
    a = results_dir(parser, tmp_path, 'a', {'x86_64': 'pass'})
    b = results_dir(parser, tmp_path, 'b', {'powerpc32': 'pass'})
    out = tmp_path / 'm'
    assert report_main.main(['--out', str(out), '--require', 'x86_64,powerpc,powerpc32',
                             str(a), str(b)]) == Exit.INFRA
    assert 'powerpc: no results' in capsys.readouterr().err
    assert '| powerpc | infra |' in (out / 'report.md').read_text()


def test_results_of_another_run_are_refused(parser: ModuleType, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2: a results/ directory left by an earlier pipeline was merged as if
    it were this pipeline's."""
    a = results_dir(parser, tmp_path, 'a', {'x86_64': 'pass'})
    b = results_dir(parser, tmp_path, 'b', {'powerpc32': 'pass'})
    edit_results(b, lambda r: r['meta'].update(run_id='pipeline-41'))
    edit_results(a, lambda r: r['meta'].update(run_id='pipeline-42'))
    assert report_main.main(['--out', str(tmp_path / 'm'), str(a), str(b)]) == Exit.MISMATCH
    assert 'pipeline-41' in capsys.readouterr().err


KCIDB_SCHEMA = json.loads((Path(__file__).resolve().parent / 'kcidb-v5.3.schema.json')
                          .read_text())


def kcidb_problems(doc: Dict[str, Any]) -> List[str]:
    """What KCIDB's I/O schema v5.3 (kcidb-io, transcribed as test data) says is wrong."""
    return schema_subset.problems(KCIDB_SCHEMA, doc)


def test_kcidb_is_valid_against_the_v5_3_schema(parser: ModuleType, tmp_path: Path) -> None:
    """Issue 16 item 13: 868 of 1003 test paths failed KCIDB's path pattern:
    parameter names carry `=` and spaces. The readable name stays in the
    test's misc. Issue 24 item 7: the document is v5.3, KCIDB's current major."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'fail',
                                             'powerpc': 'panic_mid_suite'})
    data = json.loads((d / 'kcidb.json').read_text())
    assert data['version'] == {'major': 5, 'minor': 3}
    assert kcidb_problems(data) == []
    names = {t['misc'].get('kunit_name') for t in data['tests']}
    assert 'net_rx_align_alloc.rx_netdev_alloc.dev_alloc_skb len=1' in names
    assert len({t['id'] for t in data['tests']}) == len(data['tests'])
    assert any(t['path'] == 'kunit.net_rx_align_alloc.rx_netdev_alloc.dev_alloc_skb_len_1'
               for t in data['tests'])


def test_the_kcidb_rules_catch_what_they_should() -> None:
    """The schema and its validator are themselves seen failing on what the
    old writer produced (v4.3, an XFAIL status, `=` in a path, `waived`)."""
    old = {'version': {'major': 4, 'minor': 3}, 'checkouts': [{'id': 'rxalign:abc',
           'origin': 'rxalign', 'git_commit_hash': 'unknown', 'valid': True}],
           'builds': [{'id': 'rxalign:abc:x86_64', 'origin': 'rxalign',
                       'checkout_id': 'rxalign:abc', 'valid': True}],
           'tests': [{'id': 'rxalign:abc:x86_64:kunit.a.b.c len=1', 'origin': 'rxalign',
                      'build_id': 'rxalign:abc:x86_64', 'path': 'kunit.a.b.c_len=1',
                      'status': 'XFAIL', 'waived': False, 'misc': None}]}
    found = kcidb_problems(old)
    for what in ('version.major', 'git_commit_hash', 'builds[0]: property valid',
                 'path', 'status', 'property waived', 'misc: NoneType'):
        assert any(what in f for f in found), (what, found)


def test_kcidb_against_debians_jsonschema(parser: ModuleType, tmp_path: Path) -> None:
    """The same document through python3-jsonschema, where Debian's package is there."""
    jsonschema = pytest.importorskip(
        'jsonschema', reason='python3-jsonschema is not installed (apt-get install '
        'python3-jsonschema); schema_subset.py checked the document above')
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'fail',
                                             'powerpc': 'panic_mid_suite'})
    jsonschema.Draft7Validator(KCIDB_SCHEMA).validate(
        json.loads((d / 'kcidb.json').read_text()))


def test_a_merge_of_jobs_that_all_died(tmp_path: Path) -> None:
    """Every job of the pipeline died: the CI's merge gets no directory at all,
    and must fail, not complain about its arguments."""
    out = tmp_path / 'm'
    assert report_main.main(['--out', str(out), '--require', 'x86_64,powerpc']) == Exit.INFRA
    assert '| powerpc | infra |' in (out / 'report.md').read_text()
    assert report_main.main(['--out', str(tmp_path / 'n')]) == Exit.USAGE


def test_an_arch_the_run_was_asked_for_cannot_vanish(parser: ModuleType,
                                                     tmp_path: Path) -> None:
    """A results.json whose failing arch was cut out (by hand, or by a tool)
    merged green: the run's own list of arches is required too."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'fail'})
    edit_results(d, lambda r: r['arches'].pop('powerpc32'))
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.INFRA


# ---- issue 14: measured offsets (rx_align_frame: lines) ----

FRAME_RUNS = {'x86_64': 'frames_pass', 'powerpc32': 'frames_fail', 'powerpc': 'frames_panic'}


def test_the_offset_tables_in_report_md(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path, 'r', FRAME_RUNS)
    md = (d / 'report.md').read_text()
    # the column names NET_IP_ALIGN itself: `x86_64 (IP at 2)` read as NET_IP_ALIGN 2
    assert ('| path | frame | x86_64 NET_IP_ALIGN=0 | powerpc32 NET_IP_ALIGN=2 | '
            'powerpc NET_IP_ALIGN=0 |') in md
    assert '| page_pool_frag | ipv4 | 256 / 2 / 0 | ✗ 256 / 2 / 0 | — |' in md
    assert '|  | vlan_ipv4 | 68 / 2 / 4 | 38 / 0 / 6 | — |' in md
    assert '| build_skb | ipv4 | 64 / ? / ? | — | — |' in md
    assert '| tulip | ip_align | ipv4 | pass: 64 / 2 / 0 | **fail**: ✗ 32 / 2 / 0 | — |' in md
    # not judged: its cost shown, never a red mark of the harness's own making
    assert '| virtio_net | device | ipv4 | cost: 256 / 2 / 0 | cost: 256 / 2 / 0 | — |' in md
    assert '1 rx_align_frame: line(s) could not be read' in md
    data = json.loads((d / 'results.json').read_text())
    assert len(data['arches']['powerpc32']['frames']) == 12
    assert data['arches']['powerpc']['frames'] == []


def test_no_offset_tables_without_frame_lines(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'fail'})
    assert 'Where the frame lands' not in (d / 'report.md').read_text()


def test_report_md_names_each_arch_once(parser: ModuleType, tmp_path: Path) -> None:
    """The cause under `## powerpc: infra` began with `powerpc: ` again, and a
    failed arch's cause listed the cases its list then listed."""
    d = results_dir(parser, tmp_path, 'r', FRAME_RUNS)
    md = (d / 'report.md').read_text()
    assert 'x86_64: x86_64' not in md and 'powerpc: powerpc' not in md
    assert 'powerpc32: 2 failed' not in md
    assert md.count('net_rx_align_iphdr.rx_ipv4_header.page_pool_frag') == 1
    assert '## powerpc: infra\n\nkernel crash in net_rx_align_alloc.rx_napi_alloc' in md


def test_frame_lengths_show_where_the_offsets_differ() -> None:
    v = Verdict(arch='x86_64', facts={'net_ip_align': '0'}, frames=[
        Frame(case='s.c', path='netdev_alloc_skb', frame='ipv4', length=n, headroom=h,
              nh_mod4=(h + 14) % 4, mac_line_off=h % 64, want_mod4=2,
              verdict=FrameVerdict.PASS if h == 64 else FrameVerdict.FAIL)
        for n, h in ((60, 64), (1500, 64), (9000, 66), (64, 64))])
    meta = RunMeta(tree='t', head='', tree_hash='', series='', run_id='r', arches=('x86_64',),
                   finished='')
    md = report.markdown(Results(runs=[meta], arches={'x86_64': v}))
    assert '| netdev_alloc_skb | ipv4 | 64 / 2 / 0 (len 60, 64, 1500); ✗ 66 / 0 / 2 (len 9000) |' \
        in md


def test_a_pipe_from_a_log_keeps_the_markdown_table() -> None:
    v = Verdict(arch='x86_64', facts={'net_ip_align': '2'},
                frames=[Frame(case='s.c', path='a|b', frame='ipv4', headroom=34, nh_mod4=0,
                              mac_line_off=2)])
    meta = RunMeta(tree='t', head='', tree_hash='', series='', run_id='r', arches=('x86_64',),
                   finished='')
    md = report.markdown(Results(runs=[meta], arches={'x86_64': v}))
    assert '| a\\|b | ipv4 | 34 / 0 / 2 |' in md


def test_report_recomputes_against_what_that_kernel_declared(parser: ModuleType,
                                                             tmp_path: Path) -> None:
    """A --drivers run builds only the drivers suite: scripts/report must judge it
    against the suites that kernel had, which the run stored, not this checkout's."""
    d = results_dir(parser, tmp_path, 'one', {'x86_64': 'pass'})
    data = json.loads((d / 'results.json').read_text())
    assert data['arches']['x86_64']['declared'], 'the run stores what it judged against'
    data['arches']['x86_64']['declared'] = {'net_rx_align_policy': ['rx_policy_table']}
    (d / 'results.json').write_text(json.dumps(data))
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.OK
    data['arches']['x86_64']['declared'] = {'net_rx_align_drivers': ['rx_drivers_bound']}
    (d / 'results.json').write_text(json.dumps(data))
    assert report_main.main(['--out', str(tmp_path / 'out2'), str(d)]) == Exit.INFRA


# ---- issue 24: each test below failed before its fix (see the docstring) ----

def fail_then_panic() -> List[str]:
    """A parameter fails, then the kernel panics in the next one."""
    return faults.cut_before(faults.fail(), 'ok 4 napi_alloc_skb len=64') + faults.PANIC


@pytest.mark.parametrize('lines, status', [
    (fail_then_panic, Exit.INFRA),
    (faults.panic_mid_suite, Exit.INFRA),
    (faults.truncated, Exit.INFRA),
    (faults.no_ktap, Exit.OK),
])
def test_a_star_rule_covers_only_an_arch_without_results(
        parser: ModuleType, tmp_path: Path, lines: Any, status: Exit) -> None:
    """Item 1: `x86_64: *` turned a failing case followed by a panic into
    known, exit 0 (3 without the rule); a crash or a missing case of an arch
    that produced results too. Only an arch with no case at all is known."""
    log = faults.write(lines(), tmp_path / 'ktap.log')
    d = results_dir(parser, tmp_path, 'r', {'x86_64': str(log)})
    known = rules(tmp_path, 'x86_64: *  # does not boot here\n')
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), '--expected', str(known), str(d)]) == status
    shown = json.loads((out / 'results.json').read_text())['arches']['x86_64']['status']
    assert shown == ('known' if status == Exit.OK else 'infra')


def older_format(r: Dict[str, Any]) -> None:
    """results.json as run-kunit wrote it before `problem`, `problems` and
    `format` were fields, with the status an older --expected gave."""
    r.pop('format', None)
    for v in r['arches'].values():
        v.pop('problem', None)
        v.pop('problems', None)
        v['status'] = 'known'


def test_a_stored_known_status_is_not_trusted(parser: ModuleType, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Item 2: an older results directory (no `problem` field) whose failed
    arch was stored `known` merged as known, exit 0, while stderr said
    "1 failed". A stored status may make an arch worse, never better."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    edit_results(d, older_format)
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), str(d)]) == Exit.INFRA
    data = json.loads((out / 'results.json').read_text())
    assert data['arches']['x86_64']['status'] == 'infra'
    said = capsys.readouterr().err.split('cases say')[-1].split(':')[0].strip()
    assert said == 'infra (without --expected)', said


@pytest.mark.parametrize('version', [99, '2', None, [2]])
def test_an_unknown_results_format_is_refused(parser: ModuleType, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str],
                                              version: Any) -> None:
    """Item 2: results.json carried no format version, so a file of another
    format would be read by these rules; one this reader does not know is
    refused with its own status."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    assert json.loads((d / 'results.json').read_text())['format'] == RESULTS_FORMAT
    edit_results(d, lambda r: r.update(format=version))
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.FORMAT
    err = capsys.readouterr().err
    assert 'results.json' in err and 'format' in err and 'Traceback' not in err
    assert not (tmp_path / 'out').exists()


@pytest.mark.parametrize('option', [['--require', ''], ['--require', ' , '], ['--run-id', ''],
                                    ['--run-id', ' ']])
def test_an_empty_require_or_run_id_is_a_usage_error(parser: ModuleType, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str],
                                                     option: List[str]) -> None:
    """Item 9: `--require ''` (an unset CI variable) required nothing and
    `--run-id ''` turned the run check off, as `--arch ''` no longer does."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), *option, str(d)]) == Exit.USAGE
    assert option[0] in capsys.readouterr().err and not out.exists()


def test_results_with_no_arch_are_a_usage_error(parser: ModuleType, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Item 9: a results.json with no arches (and a run asked for none) exited 0."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    edit_results(d, lambda r: (r.update(arches={}), r['meta'].update(arches=[])))
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.USAGE
    assert 'no arch' in capsys.readouterr().err


# Bytes a console can carry: ANSI colour, BEL, form feed, NUL, DEL, a C1
# control (NEL), invalid UTF-8, and U+FFFE (no XML character).
CONSOLE_BYTES = (b'\x1b[31mred\x1b[0m \x07bell \x0cff \x00nul \x7fdel \xc2\x85nel '
                 b'\xff\xfe bad \xef\xbf\xbe end')
# What no XML 1.0 or HTML document may hold (the C0 controls but tab,
# newline and carriage return; DEL and the C1 controls, which HTML forbids).
NO_CHAR = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]')


@pytest.mark.skipif(not shutil.which('xmllint'), reason='xmllint (libxml2-utils) not installed')
def test_every_writer_makes_a_valid_file_of_any_console_bytes(parser: ModuleType,
                                                             tmp_path: Path) -> None:
    """Item 6: a failure message with ESC, BEL or FF made junit.xml invalid
    XML (and report.html, report.md carried the raw controls)."""
    text = '\n'.join(faults.fail()).encode()
    text = text.replace(b'expected pad 64 + NET_IP_ALIGN 0', b'expected ' + CONSOLE_BYTES)
    text = text.replace(b'ok 5 __netdev_alloc_skb_gfp_dma', b'ok 5 __netdev_alloc_skb_gfp_dma'
                        b' # SKIP no zone \x1b[1m\x07', 1)
    log = tmp_path / 'bytes.ktap'
    log.write_bytes(text + b'\n')
    d = results_dir(parser, tmp_path, 'r', {'x86_64': str(log)})
    files = {f: (d / f).read_bytes().decode('utf-8') for f in report.REPORT_FILES}
    for name, content in files.items():
        assert not NO_CHAR.search(content), (name, NO_CHAR.findall(content))
    proc = subprocess.run(['xmllint', '--noout', '--schema', str(XSD), str(d / 'junit.xml')],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    page = subprocess.run(['xmllint', '--html', '--noout', str(d / 'report.html')],
                          capture_output=True, text=True, check=False).stderr
    # libxml2's HTML parser is HTML 4: it knows no <section>; every other error counts
    assert [e for e in page.splitlines() if ' error : ' in e and
            not re.search(r'error : Tag \w+ invalid$', e)] == [], page
    for name in ('results.json', 'kcidb.json'):
        json.loads(files[name])
    # the results keep what the console said; the reports show it visibly
    data = json.loads(files['results.json'])
    failed = next(c for c in data['arches']['x86_64']['cases'] if c['status'] == 'FAIL')
    assert '\x1b[31mred' in failed['message']
    assert '\\x1b[31mred' in files['report.md'] and '\\x07bell' in files['junit.xml']


def kcidb_of(d: Path) -> Dict[str, Any]:
    data: Dict[str, Any] = json.loads((d / 'kcidb.json').read_text())
    return data


def test_kcidb_shows_an_arch_without_results(parser: ModuleType, tmp_path: Path) -> None:
    """Item 7: an arch with no KTAP, and a required arch with no results, were
    builds with `valid: true` and 0 tests: nothing in KCIDB said they failed."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass', 'powerpc32': 'no_ktap'})
    out = tmp_path / 'm'
    assert report_main.main(['--out', str(out), '--require', 'x86_64,powerpc32,powerpc',
                             str(d)]) == Exit.INFRA
    doc = kcidb_of(out)
    builds = {b['architecture']: b for b in doc['builds']}
    runs = {t['build_id'].rsplit(':', 1)[-1]: t for t in doc['tests'] if t['path'] == 'kunit'}
    assert builds['x86_64'].get('status', 'PASS') == 'PASS' and runs['x86_64']['status'] == 'PASS'
    assert runs['powerpc32']['status'] == 'ERROR' and 'no KTAP' in runs['powerpc32']['misc']['cause']
    assert builds['powerpc'].get('valid') is not True and builds['powerpc'].get('status') == 'MISS'
    assert runs['powerpc']['status'] == 'MISS'


def test_kcidb_test_ids_are_unique_when_a_case_name_repeats(parser: ModuleType,
                                                            tmp_path: Path) -> None:
    """Item 7: a case name twice in KTAP (one PASS, one FAIL) gave two tests of
    one id, which KCIDB merges, possibly keeping the PASS."""
    lines = faults.replace(faults.fail(), 'ok 4 napi_alloc_skb len=64',
                           ['        ok 4 napi_alloc_skb len=60'])
    log = faults.write(lines, tmp_path / 'twice.ktap')
    d = results_dir(parser, tmp_path, 'r', {'x86_64': str(log)})
    tests = kcidb_of(d)['tests']
    assert len({t['id'] for t in tests}) == len(tests)
    same = [t for t in tests
            if t['misc'].get('kunit_name', '').endswith('napi_alloc_skb len=60')]
    assert sorted(t['status'] for t in same) == ['FAIL', 'PASS'], same


def test_a_cells_colour_is_the_verdict_the_case_printed() -> None:
    """The report recomputes nothing: on x86_64 (NET_IP_ALIGN 0) an L3 copy
    the C judged by its own rule (word aligned) and passed is no red cell,
    though 0 mod 4 is not where an Ethernet frame's IP header belongs
    there; a frame the C failed is red, wherever its header is."""
    def cell_of(**kw: object) -> tables.Cell:
        return tables.Cell([Frame(case='s.c', path='generic_xdp_frags', frame='l3',
                                  headroom=256, mac_line_off=0, **kw)])  # type: ignore[arg-type]
    l3 = cell_of(nh_mod4=0, want_mod4=0, rule='word_aligned', verdict=FrameVerdict.PASS)
    assert l3.fit == tables.Fit.OK
    failed = cell_of(nh_mod4=2, want_mod4=0, rule='word_aligned', verdict=FrameVerdict.FAIL)
    assert failed.fit == tables.Fit.OFF
    unjudged = cell_of(nh_mod4=2, want_mod4=None, rule='none', verdict=FrameVerdict.COST)
    assert unjudged.fit == tables.Fit.UNKNOWN


# ---- issue 41: each test below failed before its fix (see the docstring) ----

def test_a_star_rule_never_excuses_an_arch_whose_results_are_missing(
        parser: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 3: `powerpc: *` excused a required arch whose job died or never
    ran (no results at all): the merge exited 0."""
    a = results_dir(parser, tmp_path, 'a', {'x86_64': 'pass'})
    known = rules(tmp_path, 'powerpc: *  # SLOF hangs here\n')
    out = tmp_path / 'm'
    assert report_main.main(['--out', str(out), '--expected', str(known), '--require',
                             'x86_64,powerpc', str(a)]) == Exit.INFRA
    assert 'powerpc: no results' in capsys.readouterr().err
    assert json.loads((out / 'results.json').read_text())['arches']['powerpc']['status'] == \
        'infra'


def test_only_a_run_that_showed_why_it_gave_no_case_is_excused() -> None:
    """Item 3: decide() made any verdict without cases known under a `*` rule;
    only this run's own evidence (cannot run here, no build, a crash, hang or
    no KTAP before any case) may be: missing, older or unreadable results not."""
    from rxalign.results import Problem, ProblemKind
    excused = {kind for kind in ProblemKind
               if Verdict(arch='sh', problems=[Problem(kind, 'sh: why')], known='k').status
               == ArchStatus.KNOWN}
    assert excused == {ProblemKind.UNRUNNABLE, ProblemKind.BUILD, ProblemKind.CRASH,
                       ProblemKind.HUNG, ProblemKind.TIMEOUT, ProblemKind.NO_KTAP}
    assert Verdict(arch='sh', known='k').status == ArchStatus.KNOWN    # booted, no case


@pytest.mark.parametrize('fixture, text, first, status', [
    ('fail', 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n', Exit.OK,
     Exit.TEST_FAILED),
    ('no_ktap', 'x86_64: *  # does not boot here\n', Exit.OK, Exit.INFRA),
])
def test_known_marks_are_made_afresh_never_read_back(parser: ModuleType, tmp_path: Path,
                                                     fixture: str, text: str, first: Exit,
                                                     status: Exit) -> None:
    """Item 4: a case's stored known mark and an arch's `*` excuse in
    results.json survived `scripts/report --expected` of a file without the
    rule (exit 0), and scripts/report without --expected."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': fixture})
    marked = tmp_path / 'marked'
    assert report_main.main(['--out', str(marked), '--expected',
                             str(rules(tmp_path, text)), str(d)]) == first
    empty = tmp_path / 'empty'
    empty.write_text('kernel: any\n')
    assert report_main.main(['--out', str(tmp_path / 'a'), '--expected', str(empty),
                             str(marked)]) == status
    assert report_main.main(['--out', str(tmp_path / 'b'), str(marked)]) == status


def test_rules_for_another_kernel_than_the_results_are_refused(
        parser: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 4: rules were applied whatever kernel the results were of."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'fail'})
    edit_results(d, lambda r: r['meta'].update(kernel='6.1'))
    rule = 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug 123\n'
    assert report_main.main(['--out', str(tmp_path / 'a'), '--expected',
                             str(rules(tmp_path, rule, '7.3')), str(d)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert 'kernel 7.3' in err and 'kernel 6.1' in err
    assert report_main.main(['--out', str(tmp_path / 'b'), '--expected',
                             str(rules(tmp_path, rule, '6.1')), str(d)]) == Exit.OK
    # results older than the field: their tree names Debian's package
    edit_results(d, lambda r: (r['meta'].pop('kernel'),
                               r['meta'].update(tree='linux-source-6.1 6.1.192-1')))
    assert report_main.main(['--out', str(tmp_path / 'c'), '--expected',
                             str(rules(tmp_path, rule, '6.1')), str(d)]) == Exit.OK


def test_every_expected_file_names_the_kernel_of_its_name() -> None:
    """Item 4: expected/debian-<kernel>.expected holds rules for that kernel."""
    files = sorted((paths.REPO / 'expected').glob('*.expected'))
    assert files
    for f in files:
        kernel = f.name.removeprefix('debian-').removesuffix('.expected')
        found = known_failures.load(f)
        assert found and {r.kernel for r in found} == {kernel}, f


BAD_VALUES: List[Any] = [None, True, 0, 1.5, 'x', [], {}, ['x'], {'k': 'v'}, [None], {'k': None}]


def field_paths(data: Any, at: Tuple[Any, ...] = ()) -> List[Tuple[Any, ...]]:
    """Every field of @data (each object's keys, each list's first item), deepest last."""
    found: List[Tuple[Any, ...]] = []
    children = list(data.items()) if isinstance(data, dict) else \
        [(0, data[0])] if isinstance(data, list) and data else []
    for key, value in children:
        found.append(at + (key,))
        found += field_paths(value, at + (key,))
    return found


def with_value(data: Any, path: Tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(data))
    where = copy
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    return copy


def current_results(tmp: Path) -> Dict[str, Any]:
    """The saved run's results.json as this version writes it (format 3)."""
    from rxalign.results import read_dir
    d = tmp / 'current'
    report.write_all(d, read_dir(faults.FIXTURES / 'baseline' / 'run')[0])
    data: Dict[str, Any] = json.loads((d / 'results.json').read_text())
    assert data['format'] == RESULTS_FORMAT and data['arches']['x86_64']['problems'] == []
    return data


def test_no_wrongly_typed_field_is_a_bug_of_the_reader(tmp_path: Path) -> None:
    """Item 8: wrongly typed fields of results.json (meta.arches null, an
    arch's missing, facts, seconds, logs) were exit 70, a bug of the harness,
    instead of 2. Every field, every wrong type: refused with ValueError, or
    read into results every writer and decide() take."""
    from rxalign.results import Results
    data = current_results(tmp_path)
    bugs = []
    for path in field_paths(data):
        for bad in BAD_VALUES:
            try:
                results = Results.from_json(with_value(data, path, bad), 'results.json')
                results.gate()
                for v in results.arches.values():
                    assert v.status and v.cause is not None
                report.markdown(results)
                report.junit(results)
                json.dumps(report.kcidb(results))
                json.dumps(results.to_json())
            except ValueError:
                continue
            except Exception as e:     # pylint: disable=broad-except
                bugs.append(f'{".".join(map(str, path))} = {bad!r}: {type(e).__name__}: {e}')
    assert not bugs, '\n'.join(bugs[:20]) + f'\n({len(bugs)} in all)'


@pytest.mark.parametrize('path, bad', [
    (('meta', 'arches'), None), (('arches', 'x86_64', 'missing'), None),
    (('arches', 'x86_64', 'facts'), ['arch=x86_64']), (('arches', 'x86_64', 'seconds'),
                                                       {'run': 'fast'}),
    (('arches', 'x86_64', 'logs'), None), (('arches', 'x86_64', 'problems'), None),
])
def test_scripts_report_on_a_wrongly_typed_field_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], path: Tuple[Any, ...],
        bad: Any) -> None:
    """Item 8, through the real CLI: exit 2 naming the field, never 70."""
    d = tmp_path / 'r'
    d.mkdir()
    (d / 'results.json').write_text(json.dumps(with_value(current_results(tmp_path), path, bad)))
    assert report_main.main(['--out', str(tmp_path / 'out'), str(d)]) == Exit.USAGE
    err = capsys.readouterr().err
    assert path[-1] in err and 'Traceback' not in err, err


def contradicted() -> List[str]:
    """x86_64's frames, tulip's frame judged failed by a case that says ok."""
    return [ln.replace('verdict=pass', 'verdict=fail') if 'driver=tulip' in ln else ln
            for ln in faults.frames_pass()]


ONE_VERDICT = [
    ('pass', ''), ('fail', ''), ('fail', 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug'),
    ('warn_in_case', 'x86_64: net_rx_align_alloc.rx_napi_alloc  # bug'), ('skip', ''),
    ('skip_noreason', ''), ('truncated', ''), ('panic_mid_suite', ''), ('no_ktap', ''),
    ('no_ktap', 'x86_64: *  # does not boot here'), ('frames_pass', ''), ('contradicted', ''),
]


@pytest.mark.parametrize('fixture, rule', ONE_VERDICT)
def test_every_writer_says_what_the_exit_status_says(parser: ModuleType, tmp_path: Path,
                                                     fixture: str, rule: str) -> None:
    """Item 11: junit.xml disagreed with the exit status: a case that passed
    but printed a failed frame (exit 1) had 0 failures there, and a known
    failure (exit 0) was a failure, a known arch an error. One verdict: junit
    has a failure or error exactly when the run does not pass, the reports'
    counts say the same, and report.md's gate line is the exit status."""
    log = faults.write(contradicted(), tmp_path / 'c.ktap') if fixture == 'contradicted' \
        else faults.path(fixture)
    d = results_dir(parser, tmp_path, 'r', {'x86_64': str(log)})
    out = tmp_path / 'out'
    status = report_main.main(['--out', str(out), '--expected', str(rules(tmp_path, rule + '\n'
                                                                          if rule else '')),
                               str(d)])
    junit = ET.parse(out / 'junit.xml').getroot()
    bad = int(junit.get('failures', 0)) + int(junit.get('errors', 0))
    assert (bad > 0) == (status != Exit.OK), (status, bad)
    md = (out / 'report.md').read_text()
    assert f'**exit {int(status)}:' in md, md.split('\n')[2]
    if status == Exit.TEST_FAILED:
        assert int(junit.get('failures', 0)) >= 1
    if status == Exit.INFRA:
        assert int(junit.get('errors', 0)) >= 1


def test_a_time_column_only_where_the_console_has_timestamps(parser: ModuleType,
                                                              tmp_path: Path) -> None:
    """Issue 43.8: kunit.py's consoles have no printk timestamps, and every
    case's time cell was blank. The column is there only for an arch whose
    log gives one (fixtures/baseline's logs do: test_report_reading.py).
    Seen failing on the code before: a `time` column of blanks."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'pass'})
    md = (d / 'report.md').read_text()
    assert '| case | parameter | status | ktap.log | change |' in md
    assert '| time |' not in md
    page = (d / 'report.html').read_text()
    every = page[page.index('id="cases-x86_64"'):]
    assert '<th>time</th>' not in every and '<th>status</th><th>log</th>' in every


def test_a_merge_without_an_arch_says_so_above_the_grids(parser: ModuleType,
                                                         tmp_path: Path) -> None:
    """Issue 43.8: a merge that lacked one required arch showed its empty column
    in every grid, and every row "differed" ("69 of 69 rows differ" for
    /tmp/r73mips with --require mips,x86_64). The arch with no results is
    named above the grids instead. Seen failing on the code before: 10 of
    10 path rows and 3 of 3 driver rows differed."""
    d = results_dir(parser, tmp_path, 'r', {'x86_64': 'frames_pass'})
    out = tmp_path / 'merged'
    assert report_main.main(['--out', str(out), '--require', 'x86_64,powerpc32',
                             str(d)]) == Exit.INFRA
    md = (out / 'report.md').read_text()
    assert 'Not in the grids, with no results: powerpc32 (no results: no results directory' \
        in md
    differ = re.search(r'(\d+) of (\d+) rows differ', md)
    assert differ and differ.group(1) != differ.group(2), differ
    assert '| path | frame | x86_64 NET_IP_ALIGN=0 |\n' in md
    assert 'id="no-results"' in (out / 'report.html').read_text()
