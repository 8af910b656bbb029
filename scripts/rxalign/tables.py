"""What the reports show, computed once: counts, causes, measured-offset matrices.

report.md (report.py) and report.html (report_html.py) render the same
tables from the same Results. The offset matrices hold the frames the
suites measured (`rx_align_frame:` lines): one row per receive path and
frame (or per driver and frame), one column per arch. A cell's colour is
the verdict the case gave each of its frames (`verdict=`, from the
comparison its expectation made): nothing here works out again where a
frame should have landed.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from . import fmt
from .exitcodes import Exit
from .ktap_index import Span
from .results import (SENT_PREFIX, ArchStatus, DriverClass, Frame, FrameVerdict, Results,
                      SendOutcome, Sent, Verdict, parse_sent)

FACT_COLUMNS = ('net_ip_align', 'net_skb_pad', 'l1_cache_bytes', 'smp_cache_bytes',
                'page_size', 'dma_cache_align', 'efficient_unaligned', 'bits', 'endian')
SHOWN = ('PASS', 'FAIL', 'XFAIL', 'SKIP', 'CRASH')
GATE = {Exit.OK: 'every required arch passed', Exit.TEST_FAILED: 'a test failed',
        Exit.INFRA: 'results are missing', Exit.ENVIRONMENT: 'an arch could not run here'}


# What the legends of both reports say a frame line's class=, rule= and
# verdict= mean: the names are the C's (rx_class_names[] of the drivers suite,
# rx_rule_names[] and rx_align_want() of rx_align_kunit_helpers.c), and
# scripts/tests/test_doccheck.py holds these to them.
CLASS_MEANINGS: Dict[DriverClass, str] = {
    DriverClass.IP_ALIGN: 'NET_IP_ALIGN in front of the DMA or the copy',
    DriverClass.COPY_PAD2: 'a CPU copy behind a literal 2',
    DriverClass.CHIP_SHIFT2: 'the chip writes 2 bytes before the frame',
    DriverClass.DEVICE: 'the chip or no reserve decides, judged by the arch\'s rule',
    DriverClass.HYPERVISOR: 'the hypervisor fills the buffer',
    DriverClass.XDP: 'a native XDP program ran first',
}
RULE_MEANINGS: Dict[str, str] = {
    'net_ip_align': '(NET_IP_ALIGN + 14) % 4 past a 4-byte boundary',
    'word_aligned': 'on a 4-byte boundary whatever NET_IP_ALIGN is',
    'kept': 'where it was before the path ran',
    'none': 'not judged',
}
VERDICT_MEANINGS: Dict[FrameVerdict, str] = {
    FrameVerdict.PASS: 'where its rule wants it',
    FrameVerdict.FAIL: 'not where its rule wants it',
    FrameVerdict.COST: 'not judged, and off a 4-byte boundary',
    FrameVerdict.RECORDED: 'not judged, measured',
}


def legend(meanings: Mapping[Any, str]) -> str:
    """name: meaning; ..., in the order of the table."""
    return '; '.join(f'{getattr(k, "value", k)}: {v}' for k, v in meanings.items())


def counts(v: Verdict) -> Dict[str, int]:
    c = {s: v.count(s) for s in SHOWN}
    c['MISSING'] = len(v.missing)
    return c


# What no XML 1.0 or HTML document may hold, and a terminal would obey: the
# C0 controls but tab, newline and carriage return, DEL, the C1 controls,
# surrogates, U+FFFE and U+FFFF.
_NO_CHAR = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]')


def printable(text: str) -> str:
    """Console text as every report may show it: each character no XML or HTML
    file may hold written visibly, as a Python escape (ESC -> \\x1b)."""
    return _NO_CHAR.sub(lambda m: ascii(m.group(0))[1:-1], text)


def case_key(name: str) -> str:
    """suite.case, without the parameter."""
    return '.'.join(name.split('.')[:2])


def why(v: Verdict) -> str:
    """The arch's cause, for a place that names the arch already."""
    cause = v.cause
    prefix = f'{v.arch}: '
    return cause[len(prefix):] if cause.startswith(prefix) else cause


class Fit(str, enum.Enum):
    """A cell's colour, from the verdicts the cases gave its frames."""
    OK = 'ok'                   # every frame judged, and passed
    OFF = 'off'                 # at least one frame failed
    UNKNOWN = 'unknown'         # a frame not judged (cost, recorded), or no verdict


def fit_of(frames: List[Frame]) -> Fit:
    verdicts = {f.verdict for f in frames}
    if FrameVerdict.FAIL in verdicts:
        return Fit.OFF
    return Fit.OK if verdicts == {FrameVerdict.PASS} else Fit.UNKNOWN


@dataclasses.dataclass(frozen=True)
class Offsets:
    """One measurement as a cell shows it: headroom / IP header mod 4 / MAC offset."""
    headroom: Optional[int]
    nh_mod4: Optional[int]
    mac_line_off: Optional[int]


@dataclasses.dataclass
class Seen:
    """The frames of one cell that measured the same offsets."""
    offsets: Offsets
    lengths: List[int]
    fit: Fit
    count: int = 0


def lengths_text(lengths: List[int]) -> str:
    if not lengths:
        return ''
    if len(lengths) > 4:
        return f'{len(lengths)} lengths, {lengths[0]}..{lengths[-1]}'
    return 'len ' + ', '.join(str(n) for n in lengths)


@dataclasses.dataclass
class Cell:
    """The frames one arch measured for one row."""
    frames: List[Frame]

    @property
    def seen(self) -> List[Seen]:
        """Each distinct measurement, in the order first seen, with its frame lengths."""
        by: Dict[Offsets, List[Frame]] = {}
        for f in self.frames:
            by.setdefault(Offsets(f.headroom, f.nh_mod4, f.mac_line_off), []).append(f)
        out = []
        for o, frames in by.items():
            lengths = sorted({f.length for f in frames if f.length is not None})
            out.append(Seen(o, lengths, fit_of(frames), len(frames)))
        return out

    @property
    def fit(self) -> Fit:
        return fit_of(self.frames) if self.frames else Fit.UNKNOWN

    @property
    def verdicts(self) -> List[FrameVerdict]:
        """The drivers suite's verdicts, worst first, for its cells to name; a
        path's cell says its verdicts by colour alone."""
        found = {f.verdict for f in self.frames if f.verdict is not None and f.driver}
        order = (FrameVerdict.FAIL, FrameVerdict.COST, FrameVerdict.PASS,
                 FrameVerdict.RECORDED)
        return [k for k in order if k in found]

    @property
    def classes(self) -> List[DriverClass]:
        return list(dict.fromkeys(f.driver_class for f in self.frames
                                  if f.driver_class is not None))


Row = Tuple[str, str]           # (path or driver, frame)


@dataclasses.dataclass
class Matrix:
    """Measured offsets: rows x arches."""
    title: str                  # what a row is: 'path' or 'driver'
    arches: List[str]
    rows: List[Row]
    cells: Dict[Tuple[Row, str], Cell]

    def cell(self, row: Row, arch: str) -> Cell:
        return self.cells.get((row, arch), Cell([]))

    def classes(self, row: Row) -> List[DriverClass]:
        """A driver's classes over every arch (one, unless the suite disagrees with itself)."""
        return list(dict.fromkeys(k for a in self.arches for k in self.cell(row, a).classes))

    def __bool__(self) -> bool:
        return bool(self.rows)


def _driver_row(f: Frame) -> Row:
    name = f.driver if f.path in ('', f.driver) else f'{f.driver} {f.path}'
    return (name, f.frame or '?')


def without_results(results: Results) -> Dict[str, str]:
    """The arches with nothing to tabulate, and why: no case ran and no frame
    came (a merge without their results directory, a build that failed).  A
    column of theirs would mark every row as one where the arches differ."""
    return {a: why(v) for a, v in results.arches.items() if not v.cases and not v.frames}


def _matrix(results: Results, drivers: bool) -> Matrix:
    empty = without_results(results)
    arches = [a for a in results.arches if a not in empty]
    m = Matrix(title='driver' if drivers else 'path', arches=arches, rows=[], cells={})
    for arch, v in results.arches.items():
        for f in v.frames:
            if bool(f.driver) != drivers:
                continue
            row = _driver_row(f) if drivers else (f.path or '?', f.frame or '?')
            if row not in m.rows:
                m.rows.append(row)
            m.cells.setdefault((row, arch), Cell([])).frames.append(f)
    # the frames of one path (driver) together, in the order the paths came
    order = list(dict.fromkeys(name for name, _ in m.rows))
    m.rows.sort(key=lambda r: order.index(r[0]))
    return m


def paths(results: Results) -> Matrix:
    """Receive path x arch, from the frames no driver measured."""
    return _matrix(results, drivers=False)


def drivers(results: Results) -> Matrix:
    """Driver x arch, from the drivers suite's frames."""
    return _matrix(results, drivers=True)


def number(n: Optional[int]) -> str:
    return '?' if n is None else str(n)


def cell_text(cell: Cell) -> str:
    """A cell's measurements as plain text: what a comparison compares."""
    said = ', '.join(k.value for k in cell.verdicts)
    seen = '; '.join('/'.join(number(n) for n in (s.offsets.headroom, s.offsets.nh_mod4,
                                                   s.offsets.mac_line_off)) for s in cell.seen)
    return f'{said}: {seen}' if said else seen


def differs(m: Matrix, row: Row) -> bool:
    """A row worth a reader's eye: a frame off where its arch wants it, or arches
    that do not agree (one green, one that cannot tell or has no frame)."""
    fits = {m.cell(row, a).fit if m.cell(row, a).frames else None for a in m.arches}
    verdicts = {tuple(m.cell(row, a).verdicts) for a in m.arches if m.cell(row, a).frames}
    return Fit.OFF in fits or len(fits) > 1 or len(verdicts) > 1


def align_head(arch: str, v: Optional[Verdict]) -> str:
    """A grid column's head: the arch and its NET_IP_ALIGN, never a bare number."""
    align = v.facts.get('net_ip_align') if v else None
    return f'{arch} NET_IP_ALIGN={align}' if align is not None else f'{arch} (no facts)'


def tree_base(tree: str) -> str:
    """The tree a run tested, without the fixes run-kunit names after it (`A + tree fix B`)."""
    return tree.split(' + ', 1)[0]


def phase_time(v: Verdict, key: str) -> str:
    """A phase's time for the reports: `reused` when the build was skipped."""
    if key in ('config', 'build') and v.reused:
        return 'reused'
    return fmt.seconds(v.seconds[key]) if key in v.seconds else '—'


def case_time(s: float) -> str:
    """A case's time from printk timestamps: milliseconds below a second."""
    if s < 0.001:
        return '<1 ms'
    return f'{s * 1000:.0f} ms' if s < 1 else f'{s:.1f} s'


def timed(v: Verdict, spans: Mapping[str, Span]) -> bool:
    """Whether any case of @v has a time: its console had printk timestamps
    (kunit.py's consoles have none; a time column of blanks is dropped)."""
    return any(s.seconds is not None for c in v.cases for s in [spans.get(c.name)] if s)


def gate_line(results: Results) -> str:
    gate = results.gate()
    bad = [f'{a} {v.status.value}' for a, v in results.arches.items()
           if v.status != ArchStatus.PASSED]
    return f'exit {int(gate)}: {GATE.get(gate, gate.name.lower())}' + \
        (' (' + ', '.join(bad) + ')' if bad else '')


DRIVERS_CASE = 'net_rx_align_drivers.rx_driver_frames_case.'
SENT = re.compile(re.escape(SENT_PREFIX.strip()) + r'\s*(.*)$')
# What the drivers suite printed before its rx_align_sent: lines (through
# rx-align 4ce50bd): the saved sparc64 logs in tests/fixtures/drivers/ and
# the results of such runs still say it this way only.
_LOST = re.compile(r' lost the (\S+) (\d+)-byte frame')
_RESENT = re.compile(r'-byte frame not seen, sent again')


@dataclasses.dataclass(frozen=True)
class NicCount:
    """One NIC of the drivers suite on one arch: what was sent, seen and judged."""
    arch: str
    nic: str                    # the case's parameter: the driver bound to the NIC
    status: str                 # the case's, as shown
    sent: int                   # distinct frames: the ones seen plus the ones lost
    received: int               # rx_align_frame: lines (a resent frame may arrive twice)
    judged: int                 # verdict pass or fail (not cost or recorded)
    off: int                    # IP header not on a 4-byte boundary
    failed: int                 # verdict fail
    lost: int
    resent: int
    bands: Dict[str, int]       # band= (copied, buffer) -> frames
    fixups: Optional[int]       # unaligned-access fixups over its frames; None: not counted


def nic_counts(results: Results) -> List[NicCount]:
    """Per NIC and arch, from its case's frames and the lines it logged."""
    out = []
    for arch, v in results.arches.items():
        for case in v.cases:
            if not case.name.startswith(DRIVERS_CASE):
                continue
            frames = v.frames_of(case.name)
            sent, lost, resent = _sent(case.message, case.log, frames)
            bands: Dict[str, int] = {}
            # per frame sent: a resent frame that arrived twice prints its
            # count (taken over all its sends) on each copy
            counted = {(f.frame, f.length): int(f.extra['fixups']) for f in frames
                       if f.extra.get('fixups', '-1').isdigit()}
            for f in frames:
                band = f.extra.get('band', '?')
                bands[band] = bands.get(band, 0) + 1
            out.append(NicCount(
                arch=arch, nic=case.name[len(DRIVERS_CASE):], status=case.shown,
                sent=sent, received=len(frames),
                judged=sum(1 for f in frames if f.verdict in (
                    FrameVerdict.PASS, FrameVerdict.FAIL)),
                off=sum(1 for f in frames if f.nh_mod4 not in (None, 0)),
                failed=sum(1 for f in frames if f.verdict == FrameVerdict.FAIL),
                lost=lost, resent=resent, bands=bands,
                fixups=sum(counted.values()) if counted else None))
    return out


def _sent(message: str, log: List[str], frames: List[Frame]) -> Tuple[int, int, int]:
    """A drivers case's frames sent, lost and sent again, from its
    rx_align_sent: lines in its log (one per frame sent; a line that cannot
    be read is not counted), or the older build's English where it printed none."""
    outcomes: List[Sent] = []
    for line in log:
        m = SENT.search(line)
        if m:
            try:
                outcomes.append(parse_sent(m.group(1)))
            except ValueError:
                continue
    if outcomes:
        return (len(outcomes), sum(1 for s in outcomes if s.outcome == SendOutcome.LOST),
                sum(s.resent for s in outcomes))
    text = '\n'.join([message, *log])
    lost = {m.groups() for m in _LOST.finditer(text)}
    seen = {(f.frame, str(f.length)) for f in frames}
    return len(seen | lost), len(lost - seen), len(_RESENT.findall(text))


def bands_text(bands: Dict[str, int]) -> str:
    return ', '.join(f'{n} {b}' for b, n in sorted(bands.items())) or '-'


def fixups_text(n: Optional[int]) -> str:
    """'-' where the arch has no fixup counter: not a count of 0."""
    return '-' if n is None else str(n)


def provenance(results: Results) -> List[Tuple[str, str]]:
    """How to run it again: each run's command (one per job of a fanned-out
    CI) and the rx-align commits that ran them; none for results that did not say."""
    return ([('command', c) for c in dict.fromkeys(r.command for r in results.runs if r.command)]
            + [('rx-align', c) for c in dict.fromkeys(r.rxalign for r in results.runs
                                                      if r.rxalign)])


def toolchains(results: Results) -> List[str]:
    """`arch, arch: toolchain` per toolchain of a run (compiler and QEMU versions)."""
    by: Dict[str, List[str]] = {}
    for name, v in results.arches.items():
        if v.toolchain:
            by.setdefault(v.toolchain, []).append(name)
    return [f'{", ".join(names)}: {tc}' for tc, names in by.items()]
