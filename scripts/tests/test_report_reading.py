"""What a reader of report.md and report.html is told: the grid, each case, the truths.

On the saved pair in fixtures/baseline (the run's results, without a
baseline unless said), and on results made from the saved logs.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from rxalign import report_main
from rxalign.exitcodes import Exit

from test_report_html import ARCHES, Dom, by_id, results_dir

import faults

RUN = faults.FIXTURES / 'baseline' / 'run'


@pytest.fixture(autouse=True)
def recorded_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_main, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')


@pytest.fixture
def out(tmp_path: Path) -> Path:
    d = tmp_path / 'out'
    assert report_main.main(['--out', str(d), str(RUN)]) == Exit.TEST_FAILED
    return d


def test_the_grid_shows_the_rows_that_differ_and_hides_the_rest(out: Path) -> None:
    """The grid showed every row, most of them green everywhere."""
    root = Dom((out / 'report.html').read_text()).root
    differ = by_id(root, 'paths-differ')
    rows = {n.attrs['data-row'] for n in differ.all(lambda n: 'data-row' in n.attrs)}
    assert rows == {'napi_alloc_skb ipv4', '__netdev_alloc_skb_gfp_dma ipv4'}
    full = by_id(root, 'paths')
    assert 'details' in full.ancestors()
    assert {n.attrs['data-row'] for n in full.all(lambda n: 'data-row' in n.attrs)} == \
        rows | {'dev_alloc_skb ipv4', 'page_pool_frag ipv4'}
    md = (out / 'report.md').read_text()
    assert '2 of 4 rows differ' in md and '<details><summary>The full grid: 4 rows' in md


def test_column_heads_name_net_ip_align(out: Path) -> None:
    """`x86_64 (IP at 2)` read as NET_IP_ALIGN 2 on an arch where it is 0.  The
    head says no more: where a frame should land is its case's rule, which
    differs by row (an L3 copy is word aligned whatever NET_IP_ALIGN is)."""
    root = Dom((out / 'report.html').read_text()).root
    heads = [h.text() for h in by_id(root, 'paths-differ').all(
        lambda n: n.tag == 'th' and 'data-arch' in n.attrs)]
    assert heads == ['x86_64 NET_IP_ALIGN=0', 'powerpc32 NET_IP_ALIGN=2']
    assert 'IP at' not in (out / 'report.md').read_text()


def test_every_case_with_its_parameter_time_and_log_lines(out: Path) -> None:
    root = Dom((out / 'report.html').read_text()).root
    cases = by_id(root, 'cases-x86_64')
    row = cases.one(lambda n: n.tag == 'tr' and 'napi_alloc_skb' in n.text(), 'napi row')
    assert row.text() == ('net_rx_align_iphdr.rx_ipv4_header napi_alloc_skb FAIL 5 ms '
                          'ktap.log:21-27')
    link = row.one(lambda n: n.tag == 'a', 'its log link')
    assert link.attrs['href'].endswith('/baseline/run/x86_64/ktap.log#L21-L27')
    lines = (RUN / 'x86_64' / 'ktap.log').read_text().splitlines()[20:27]
    assert 'path=napi_alloc_skb' in lines[0] and lines[-1].endswith('not ok 2 napi_alloc_skb')
    failures = by_id(root, 'fail-x86_64').text()
    assert 'ktap.log:21-27' in failures
    md = (out / 'report.md').read_text()
    assert re.search(r'\| `net_rx_align_iphdr.rx_ipv4_header` \| napi_alloc_skb \| FAIL \| '
                     r'5 ms \| \[21-27\]\([^)]*x86_64/ktap.log#L21-L27\) \|', md)


def test_a_build_that_was_reused_is_not_0s(out: Path) -> None:
    """powerpc32's kernel was reused (the build stamp matched): the reports said 0s."""
    md = (out / 'report.md').read_text()
    assert '| powerpc32 | passed | 7 | 0 | 0 | 0 | 0 | reused | 3s |' in md
    root = Dom((out / 'report.html').read_text()).root
    tr = by_id(root, 'arches').one(lambda n: n.attrs.get('data-arch') == 'powerpc32', 'row')
    # verdict, logs, 5 counts, then build and boot+run
    assert [td.text() for td in tr.all(lambda n: n.tag == 'td')][7:9] == ['reused', '3s']


def test_md_and_html_round_alike(out: Path) -> None:
    """report.md wrote boot+run as `2.6s`, report.html as `2s`."""
    md = (out / 'report.md').read_text()
    assert '| x86_64 | failed | 5 | 1 | 0 | 1 | 0 | 1m34s | 3s |' in md
    root = Dom((out / 'report.html').read_text()).root
    tr = by_id(root, 'arches').one(lambda n: n.attrs.get('data-arch') == 'x86_64', 'row')
    # verdict, logs, 5 counts, then build and boot+run
    assert [td.text() for td in tr.all(lambda n: n.tag == 'td')][7:9] == ['1m34s', '3s']


def test_the_title_is_the_tree_not_its_patches(out: Path) -> None:
    page = (out / 'report.html').read_text()
    assert '<title>rx-align report: linux-source-6.12 6.12.118</title>' in page
    assert (out / 'report.md').read_text().startswith(
        '# rx-align KUnit report: linux-source-6.12 6.12.118\n')
    assert 'tree fix 0001-sparc-vdso-fix' in page     # still said, in the run's details


def test_report_md_links_the_logs_and_gives_skip_reasons(out: Path) -> None:
    md = (out / 'report.md').read_text()
    row = next(ln for ln in md.splitlines() if ln.startswith('| x86_64 | failed'))
    assert re.search(r'\[build.log\]\([^)]*x86_64/build.log\), '
                     r'\[ktap.log\]\([^)]*x86_64/ktap.log\) \|$', row)
    assert ('- x86_64: CONFIG_ZONE_DMA is not set: no GFP_DMA zone on x86_64: 1 case(s): '
            '`net_rx_align_iphdr.rx_ipv4_header.__netdev_alloc_skb_gfp_dma`') in md


def test_a_crash_shows_its_backtrace(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path / 'r', ARCHES[2:])
    root = Dom((d / 'report.html').read_text()).root
    trace = by_id(root, 'fail-powerpc').one(lambda n: n.tag == 'pre' and
                                            'trace' in n.classes(), 'the trace')
    text = trace.text()
    assert text.startswith('BUG: kernel NULL pointer dereference') and \
        'RIP: 0010:napi_alloc_skb+0x4c/0x1e0' in text and \
        text.endswith('Kernel panic - not syncing: Fatal exception in interrupt')
    md = (d / 'report.md').read_text()
    assert '```\nBUG: kernel NULL pointer dereference, address: 0000000000000008\n' in md


def test_where_the_cases_are_is_kept_from_the_walk_that_judged_them(
        parser: ModuleType, tmp_path: Path) -> None:
    """Issue 43.3: the reports walked each ktap.log again (ktap_index), naming
    its cases by hand, to find each case's lines and the crash; the walk that
    judged the log keeps them in results.json, and a report regenerated from
    it reads them there. Seen failing on the code before: with the saved log
    emptied after the run, the regenerated report lost the crash and every
    case's lines."""
    d = results_dir(parser, tmp_path / 'r', ARCHES[2:])
    first = (d / 'report.md').read_text()
    (d / 'powerpc' / 'ktap.log').write_text('')
    again = tmp_path / 'again'
    assert report_main.main(['--out', str(again), str(d)]) == Exit.INFRA
    md = (again / 'report.md').read_text()
    crash = re.search(r'The crash, \[ktap.log:(\d+-\d+)\]', md)
    assert crash and f'ktap.log:{crash.group(1)}' in first
    spans = re.findall(r'\| \[(\d+(?:-\d+)?)\]\(', md)
    assert spans and spans == re.findall(r'\| \[(\d+(?:-\d+)?)\]\(', first)
