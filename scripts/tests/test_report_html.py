"""report.html and the offset tables, on results made from the saved logs.

The page is checked where a maintainer reads it: rendered by headless
Chromium, whose DOM (--dump-dom) must show the failing case with its
message, the offset matrices with the right numbers and colours, and the
links to each arch's logs. The other tests need no browser.
"""

from __future__ import annotations

import os
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Callable, Dict, List, Optional, Tuple

import pytest

from rxalign import report, report_html, report_main
from rxalign.declared import expected_suites
from rxalign.results import (ArchRun, ArchStatus, Case, CaseStatus, Frame, MalformedFrame,
                             Problem, ProblemKind, Results, RunMeta, Verdict)
from rxalign.verdict import judge

import faults

TESTS_DIR = Path(__file__).resolve().parent / 'fixtures' / 'kunit-tests'
CHROMIUM = Path('/usr/bin/chromium')
# One passing arch, one failing, one whose kernel crashed (infra), each with
# its own facts: x86_64 wants the IP header at 2 mod 4, powerpc32 at 0.
ARCHES = (('x86_64', 'frames_pass', {'config': 3.0, 'build': 94.2, 'run': 2.1}),
          ('powerpc32', 'frames_fail', {'build': 181.0, 'run': 14.8}),
          ('powerpc', 'frames_panic', {'build': 240.5, 'run': 3.3}))


@pytest.fixture(autouse=True)
def recorded_suite(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report_main, 'TESTS_DIR', TESTS_DIR)


def results_dir(parser: ModuleType, d: Path, arches: Tuple[Tuple[str, str, Dict[str, float]],
                                                          ...] = ARCHES,
                run_id: str = 'run-1') -> Path:
    """A results directory as run-kunit writes it: <arch>/ktap.log and build.log, the reports."""
    verdicts = {}
    for arch, fault, seconds in arches:
        (d / arch).mkdir(parents=True)
        ktap = faults.write(faults.FAULTS[fault](), d / arch / 'ktap.log')
        build = d / arch / 'build.log'
        build.write_text(f'make ARCH={arch}\n')
        verdicts[arch] = judge(ArchRun(arch=arch, ktap_log=ktap, build_log=build,
                                       seconds=dict(seconds)),
                               expected_suites(TESTS_DIR), parser, 300)
    meta = RunMeta(tree='debian-6.12.118', head='a' * 40, tree_hash='b' * 40, series='c' * 64,
                   run_id=run_id, arches=tuple(verdicts), finished='2026-12-03T04:23:38+00:00')
    report.write_all(d, Results(runs=[meta], arches=verdicts))
    return d


# ---- the DOM Chromium gives back, as a small tree ----

VOID = {'br', 'meta', 'link', 'img', 'hr', 'input', 'col', 'wbr', 'source'}
BLOCKS = {'br', 'p', 'div', 'pre', 'li', 'ul', 'dl', 'dt', 'dd', 'table', 'tr', 'td', 'th',
          'section', 'article', 'header', 'h1', 'h2', 'h3', 'h4'}


class Node:
    def __init__(self, tag: str, attrs: Dict[str, str], parent: Optional['Node']) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: List['Node | str'] = []

    def text(self) -> str:
        """What a reader sees: inline elements run together, blocks and cells apart."""
        parts = [c if isinstance(c, str) else
                 f' {c.text()} ' if c.tag in BLOCKS else c.text() for c in self.children]
        return ' '.join(''.join(parts).split())

    def all(self, want: Callable[['Node'], bool]) -> List['Node']:
        found = [self] if want(self) else []
        for c in self.children:
            if isinstance(c, Node):
                found += c.all(want)
        return found

    def one(self, want: Callable[['Node'], bool], what: str) -> 'Node':
        found = self.all(want)
        assert len(found) == 1, f'{len(found)} elements are {what}'
        return found[0]

    def classes(self) -> List[str]:
        return self.attrs.get('class', '').split()

    def ancestors(self) -> List[str]:
        tags, node = [], self.parent
        while node:
            tags.append(node.tag)
            node = node.parent
        return tags


class Dom(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node('#document', {}, None)
        self.at = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        node = Node(tag, {k: v or '' for k, v in attrs}, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag: str) -> None:
        node: Optional[Node] = self.at
        while node and node.tag != tag:
            node = node.parent
        if node and node.parent:
            self.at = node.parent

    def handle_data(self, data: str) -> None:
        self.at.children.append(data)


def by_id(root: Node, ident: str) -> Node:
    return root.one(lambda n: n.attrs.get('id') == ident, f'#{ident}')


def cell(root: Node, table: str, row: str, arch: str) -> Node:
    return by_id(root, table).one(
        lambda n: n.tag == 'td' and n.attrs.get('data-row') == row
        and n.attrs.get('data-arch') == arch, f'the {table} cell {row} x {arch}')


def chromium(tmp: Path, *args: str) -> str:
    """Headless Chromium with nothing of its own going on: no network, a fresh profile."""
    profile = Path(os.path.join(tmp, f'chromium-profile-{len(list(tmp.iterdir()))}'))
    proc = subprocess.run(
        [str(CHROMIUM), '--headless', '--no-sandbox', '--disable-gpu',
         '--disable-background-networking', '--disable-component-update', '--disable-sync',
         '--no-first-run', f'--user-data-dir={profile}', *args],
        capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


# What the matrices must show: (table, row, arch) -> (colour class, the cell's text).
CELLS = {
    ('paths', 'dev_alloc_skb ipv4', 'x86_64'): ('fit-ok', '64 · 2 · 0'),
    ('paths', 'dev_alloc_skb ipv4', 'powerpc32'): ('fit-ok', '34 · 0 · 2'),
    ('paths', 'dev_alloc_skb vlan_ipv4', 'powerpc32'): ('fit-ok', '38 · 0 · 6'),
    ('paths', 'page_pool_frag ipv4', 'x86_64'): ('fit-ok', '256 · 2 · 0'),
    ('paths', 'page_pool_frag ipv4', 'powerpc32'): ('fit-off', '256 · 2 · 0'),
    ('paths', 'page_pool_frag ipv6', 'powerpc32'): ('fit-ok', '258 · 0 · 2'),
    ('paths', 'build_skb ipv4', 'x86_64'): ('fit-unknown', '64 · ? · ?'),
    ('paths', 'dev_alloc_skb ipv4', 'powerpc'): ('none', '—'),
    ('drivers', 'e1000 ipv4', 'powerpc32'): ('fit-ok', 'pass 66 · 0 · 2'),
    ('drivers', 'tulip ipv4', 'x86_64'): ('fit-ok', 'pass 64 · 2 · 0'),
    ('drivers', 'tulip ipv4', 'powerpc32'): ('fit-off', 'fail 32 · 2 · 0'),
    # not judged by its case (the C printed verdict=cost): no red of our own making
    ('drivers', 'virtio_net ipv4', 'powerpc32'): ('fit-unknown', 'cost 256 · 2 · 0'),
}


@pytest.mark.skipif(not CHROMIUM.exists(), reason='/usr/bin/chromium is missing: install '
                    'Debian\'s chromium package (scripts/test does) to check report.html '
                    'in a browser')
def test_the_page_as_chromium_renders_it(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path / 'results')
    url = (d / 'report.html').as_uri()
    shot = tmp_path / 'report.png'
    chromium(tmp_path, f'--screenshot={shot}', '--window-size=1400,2400', url)
    assert shot.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and shot.stat().st_size > 50_000
    root = Dom(chromium(tmp_path, '--dump-dom', url)).root
    assert root.one(lambda n: n.tag == 'title', 'the title').text() == \
        'rx-align report: debian-6.12.118'

    # the gate and the run, at the top
    assert by_id(root, 'gate').text().startswith('exit 3: results are missing')
    meta = root.one(lambda n: n.tag == 'dl', 'the run\'s description').text()
    assert 'run-1' in meta and '2026-12-03T04:23:38+00:00' in meta and 'c' * 64 in meta

    # one row per arch: verdict, its logs next to the page (beside the verdict:
    # at the row's end the facts pushed them out of a 1000 px window), counts,
    # times, facts
    arches = by_id(root, 'arches')
    for arch, status in (('x86_64', 'passed'), ('powerpc32', 'failed'), ('powerpc', 'infra')):
        tr = arches.one(lambda n: n.tag == 'tr' and n.attrs.get('data-arch') == arch, arch)
        assert status in tr.text() and f's-{status}' in [
            c for td in tr.all(lambda n: n.tag == 'td') for c in td.classes()]
        for log in ('build.log', 'ktap.log'):
            link = tr.one(lambda n: n.tag == 'a' and n.text() == log, f'{arch}\'s {log} link')
            assert link.attrs['href'] == f'{arch}/{log}' and (d / link.attrs['href']).is_file()
    assert arches.one(lambda n: n.attrs.get('data-arch') == 'x86_64', 'x86_64').text() \
        .split()[:13] == ['x86_64', 'passed', 'build.log', 'ktap.log', '339', '0', '0', '0', '0',
                          '1m34s', '2s', '0', '64']

    # where each path and driver put the frame, coloured by the arch's NET_IP_ALIGN
    heads = by_id(root, 'paths').all(lambda n: n.tag == 'th' and 'data-arch' in n.attrs)
    assert [h.text() for h in heads] == [
        'x86_64 NET_IP_ALIGN=0', 'powerpc32 NET_IP_ALIGN=2', 'powerpc NET_IP_ALIGN=0']
    wrong = []
    for (table, row, arch), (colour, text) in CELLS.items():
        td = cell(root, table, row, arch)
        if colour not in td.classes() or td.text() != text:
            wrong.append(f'{table} {row} x {arch}: {td.classes()} {td.text()!r}, '
                         f'expected {colour} {text!r}')
    assert not wrong, '\n'.join(wrong)
    assert 'rx_align_frame: path=build_skb frame=ipv4 len=sixty headroom=64' in \
        by_id(root, 'malformed').parent.text()   # type: ignore[union-attr]

    # every failure open, with its whole message; the crash with its cause
    failures = by_id(root, 'failures')
    ppc32 = by_id(failures, 'fail-powerpc32').text()
    assert 'net_rx_align_iphdr.rx_ipv4_header.page_pool_frag' in ppc32
    assert ('arch powerpc32, page_pool_frag, ipv4: IP header at page offset 270 is 2 past a '
            '4-byte boundary, the arch\'s NET_IP_ALIGN 2 puts it 0 past') in ppc32
    assert 'Expected addr % 4 == rx_nh_want(), but' in ppc32
    assert 'measured: headroom 256, IP header 2 mod 4' in ppc32
    assert 'net_rx_align_drivers.rx_driver_frames.tulip ipv4' in ppc32
    for msg in failures.all(lambda n: n.tag == 'pre'):
        assert 'details' not in msg.ancestors(), 'a failure hidden behind a click'
    crash = by_id(failures, 'fail-powerpc').text()
    assert 'kernel crash in net_rx_align_alloc.rx_napi_alloc' in crash
    assert 'net_rx_align_iphdr' in crash    # missing from its KTAP
    assert 'x86_64' not in failures.text()

    # nothing said twice
    body = root.one(lambda n: n.tag == 'body', 'the body').text()
    for arch, _, _ in ARCHES:
        assert f'{arch}: {arch}' not in body
    assert body.count('IP header at page offset 270') == 1
    assert body.count('kernel crash in') == 1


def test_a_merged_page_links_the_logs_where_they_are(parser: ModuleType,
                                                     tmp_path: Path) -> None:
    """A CI's merge job: the arches' logs stay in their own results directories."""
    a = results_dir(parser, tmp_path / 'a', ARCHES[:1])
    b = results_dir(parser, tmp_path / 'b', ARCHES[1:2])
    out = tmp_path / 'merged'
    assert report_main.main(['--out', str(out), str(a), str(b)]) == 1
    page = (out / 'report.html').read_text()
    for href in ('../a/x86_64/ktap.log', '../b/powerpc32/build.log'):
        assert f'href="{href}"' in page and (out / href).is_file()


EVIL = '<script>alert(1)</script>'


def test_everything_from_a_log_is_escaped() -> None:
    v = Verdict(arch='x86_64', facts={'net_ip_align': '<i>2</i>', 'net_skb_pad': EVIL},
                cases=[Case(f's.c.{EVIL}', CaseStatus.FAIL, f'Expected a < b && c | {EVIL}'),
                       Case('s.d', CaseStatus.SKIP, f'no <b>DMA</b> {EVIL}')],
                frames=[Frame(case='s.c', path='<img src=x onerror=alert(1)>', frame=EVIL,
                              headroom=64, nh_mod4=2, mac_line_off=0),
                        Frame(case='s.c', driver='<b>e1000</b>', frame='ipv4', nh_mod4=2)],
                malformed_frames=[MalformedFrame('s.c', f'rx_align_frame: {EVIL}', '<u>why</u>')])
    crashed = Verdict(arch='powerpc', problems=[Problem(ProblemKind.CRASH, f'powerpc: {EVIL}')])
    meta = RunMeta(tree=EVIL, head='<h>', tree_hash='', series='', run_id='"><x',
                   arches=('x86_64', 'powerpc'), finished='')
    results = Results(runs=[meta], arches={'x86_64': v, 'powerpc': crashed})
    page = report_html.page(results, {'x86_64': {'ktap.log': '"><script>'}})
    for raw in ('<script', '<img', '<i>2', '<b>DMA', '<b>e1000', '<u>why', '<h>', '"><x'):
        assert raw not in page, raw
    assert '&lt;script&gt;alert(1)&lt;/script&gt;' in page and 'a &lt; b &amp;&amp; c' in page


def test_no_offsets_section_without_frame_lines(parser: ModuleType, tmp_path: Path) -> None:
    d = results_dir(parser, tmp_path / 'r', (('x86_64', 'pass', {}), ('powerpc32', 'fail', {})))
    page = (d / 'report.html').read_text()
    assert 'id="offsets"' not in page and 'headroom 66' in page


def test_known_failures_and_skips_say_why_below_the_failures(parser: ModuleType,
                                                             tmp_path: Path) -> None:
    # a `*` rule covers an arch where no case ran (issue 24), not a crash mid-suite
    d = results_dir(parser, tmp_path / 'r', (('x86_64', 'skip', {}), ARCHES[1],
                                             ('powerpc', 'no_ktap', {'run': 3.3})))
    rules = tmp_path / 'expected'
    rules.write_text('kernel: any\n'
                     'powerpc32: net_rx_align_iphdr.rx_ipv4_header.page_pool_frag  # veth fix\n'
                     'powerpc: *  # SLOF hangs here\n')
    out = tmp_path / 'out'
    assert report_main.main(['--out', str(out), '--expected', str(rules), str(d)]) == 1
    root = Dom((out / 'report.html').read_text()).root
    known = by_id(root, 'known').text()
    assert 'powerpc32: veth fix — net_rx_align_iphdr.rx_ipv4_header (page_pool_frag)' in known
    assert 'IP header at page offset 270' in known
    assert 'powerpc: SLOF hangs here — no KTAP output' in known
    assert ('x86_64: CONFIG_ZONE_DMA is not set: no GFP_DMA zone on x86_64 — 22 cases: '
            'net_rx_align_alloc.rx_netdev_alloc (__netdev_alloc_skb_gfp_dma len=0, 1, 60, 64,'
            in known)
    failures = by_id(root, 'failures').text()
    assert 'tulip ipv4' in failures
    assert 'page_pool_frag' not in failures and 'powerpc ' not in failures
