"""Report writers on results made from the saved logs: they agree, merge, validate."""

from __future__ import annotations

import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType
from typing import Any, Dict

import pytest

from rxalign import known_failures, report, report_main
from rxalign.exitcodes import Exit
from rxalign.declared import expected_suites
from rxalign.kunit_driver import ArchRun
from rxalign.verdict import judge

import faults

TESTS_DIR = Path(__file__).resolve().parents[2] / 'kunit-tests'
XSD = Path(__file__).resolve().parent / 'junit.xsd'


def results_dir(parser: ModuleType, tmp: Path, name: str,
                runs: Dict[str, str], finished: str = '2026-12-03T00:00:00+00:00') -> Path:
    arches: Dict[str, Any] = {}
    for arch, fixture in runs.items():
        v = judge(ArchRun(arch=arch, ktap_log=faults.path(fixture)), expected_suites(TESTS_DIR),
                  parser, 300)
        arches[arch] = v.to_json()
    d = tmp / name
    report.write_all(d, {'meta': {'tree': 'test', 'head': 'abc', 'finished': finished},
                         'arches': arches})
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
    assert all(t['path'].startswith('kunit.net_rx_align_') for t in kcidb['tests'])
    page = (d / 'report.html').read_text()
    assert '<script' not in page and 'http' not in page.split('<body>')[1]
    assert 'headroom 66' in page and 'net_skb_pad' in page


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
    d = results_dir(parser, tmp_path, 'r', {'powerpc32': 'fail',
                                             'powerpc': 'panic_mid_suite'})
    rules = tmp_path / 'expected'
    rules.write_text('powerpc32: net_rx_align_alloc.rx_napi_alloc  # bug 123\n'
                     'powerpc: *  # the crash we know\n')
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), '--expected', str(rules), str(d)]) == Exit.OK
    md = (out / 'report.md').read_text()
    assert '(known failure)' in md and 'the crash we know' in md


def test_known_failures_syntax_error_names_the_line() -> None:
    with pytest.raises(ValueError, match='f:2'):
        known_failures.parse('x86_64: a.b\nno colon here\n', 'f')


def test_report_on_a_directory_that_is_no_result(tmp_path: Path) -> None:
    assert report_main.main([str(tmp_path)]) == Exit.USAGE
