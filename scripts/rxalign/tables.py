"""What the reports show, computed once: counts, causes, measured-offset matrices.

report.md (report.py) and report.html (report_html.py) render the same
tables from the same Results. The offset matrices hold the frames the
suites measured (`rx_align_frame:` lines): one row per receive path and
frame (or per driver and frame), one column per arch. A cell is judged by
the rule the iphdr suite asserts: the IP header lies (NET_IP_ALIGN + 14) % 4
past a 4-byte boundary, NET_IP_ALIGN taken from the arch's own
`rx_align_facts:` line.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import Dict, List, Optional, Tuple

from . import fmt
from .exitcodes import Exit
from .results import ArchStatus, DriverClass, Frame, FrameVerdict, Results, Verdict

FACT_COLUMNS = ('net_ip_align', 'net_skb_pad', 'l1_cache_bytes', 'smp_cache_bytes',
                'page_size', 'dma_cache_align', 'efficient_unaligned', 'bits', 'endian')
SHOWN = ('PASS', 'FAIL', 'XFAIL', 'SKIP', 'CRASH')
ETH_HLEN = 14
GATE = {Exit.OK: 'every required arch passed', Exit.TEST_FAILED: 'a test failed',
        Exit.INFRA: 'results are missing', Exit.ENVIRONMENT: 'an arch could not run here'}


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


def wanted_nh_mod4(v: Verdict) -> Optional[int]:
    """Where this arch wants the IP header, mod 4; None without its facts."""
    align = v.facts.get('net_ip_align', '')
    return (int(align) + ETH_HLEN) % 4 if align.isdigit() else None


class Fit(str, enum.Enum):
    """A cell's colour: does every frame measured there put the IP header where
    the arch wants it?"""
    OK = 'ok'
    OFF = 'off'                 # at least one frame does not
    UNKNOWN = 'unknown'         # no NET_IP_ALIGN for the arch, or no IP header measured


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
    wanted: Optional[int]

    def fit_of(self, o: Offsets) -> Fit:
        if self.wanted is None or o.nh_mod4 is None:
            return Fit.UNKNOWN
        return Fit.OK if o.nh_mod4 == self.wanted else Fit.OFF

    @property
    def seen(self) -> List[Seen]:
        """Each distinct measurement, in the order first seen, with its frame lengths."""
        by: Dict[Offsets, Seen] = {}
        for f in self.frames:
            o = Offsets(f.headroom, f.nh_mod4, f.mac_line_off)
            s = by.setdefault(o, Seen(o, [], self.fit_of(o)))
            s.count += 1
            if f.length is not None and f.length not in s.lengths:
                s.lengths.append(f.length)
        for s in by.values():
            s.lengths.sort()
        return list(by.values())

    @property
    def fit(self) -> Fit:
        fits = {s.fit for s in self.seen}
        if Fit.OFF in fits:
            return Fit.OFF
        return Fit.OK if fits == {Fit.OK} else Fit.UNKNOWN

    @property
    def verdicts(self) -> List[FrameVerdict]:
        """The drivers suite's verdicts, worst first."""
        found = {f.verdict for f in self.frames if f.verdict is not None}
        order = (FrameVerdict.FAIL, FrameVerdict.PASS_COST, FrameVerdict.PASS,
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
    wanted: Dict[str, Optional[int]]
    rows: List[Row]
    cells: Dict[Tuple[Row, str], Cell]

    def cell(self, row: Row, arch: str) -> Cell:
        return self.cells.get((row, arch), Cell([], self.wanted[arch]))

    def classes(self, row: Row) -> List[DriverClass]:
        """A driver's classes over every arch (one, unless the suite disagrees with itself)."""
        return list(dict.fromkeys(k for a in self.arches for k in self.cell(row, a).classes))

    def __bool__(self) -> bool:
        return bool(self.rows)


def _driver_row(f: Frame) -> Row:
    name = f.driver if f.path in ('', f.driver) else f'{f.driver} {f.path}'
    return (name, f.frame or '?')


def _matrix(results: Results, drivers: bool) -> Matrix:
    arches = list(results.arches)
    m = Matrix(title='driver' if drivers else 'path', arches=arches,
               wanted={a: wanted_nh_mod4(v) for a, v in results.arches.items()},
               rows=[], cells={})
    for arch, v in results.arches.items():
        for f in v.frames:
            if bool(f.driver) != drivers:
                continue
            row = _driver_row(f) if drivers else (f.path or '?', f.frame or '?')
            if row not in m.rows:
                m.rows.append(row)
            m.cells.setdefault((row, arch), Cell([], m.wanted[arch])).frames.append(f)
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


def gate_line(results: Results) -> str:
    gate = results.gate()
    bad = [f'{a} {v.status.value}' for a, v in results.arches.items()
           if v.status != ArchStatus.PASSED]
    return f'exit {int(gate)}: {GATE.get(gate, gate.name.lower())}' + \
        (' (' + ', '.join(bad) + ')' if bad else '')


DRIVERS_CASE = 'net_rx_align_drivers.rx_driver_frames_case.'
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
    judged: int                 # verdict pass, pass-cost or fail (not recorded)
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
            text = '\n'.join([case.message, *case.log])
            lost = {m.groups() for m in _LOST.finditer(text)}
            seen = {(f.frame, str(f.length)) for f in frames}
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
                sent=len(seen | lost), received=len(frames),
                judged=sum(1 for f in frames if f.verdict in (
                    FrameVerdict.PASS, FrameVerdict.PASS_COST, FrameVerdict.FAIL)),
                off=sum(1 for f in frames if f.nh_mod4 not in (None, 0)),
                failed=sum(1 for f in frames if f.verdict == FrameVerdict.FAIL),
                lost=len(lost - seen), resent=len(_RESENT.findall(text)), bands=bands,
                fixups=sum(counted.values()) if counted else None))
    return out


def bands_text(bands: Dict[str, int]) -> str:
    return ', '.join(f'{n} {b}' for b, n in sorted(bands.items())) or '-'


def fixups_text(n: Optional[int]) -> str:
    """'-' where the arch has no fixup counter: not a count of 0."""
    return '-' if n is None else str(n)


def toolchains(results: Results) -> List[str]:
    """`arch, arch: toolchain` per toolchain of a run (compiler and QEMU versions)."""
    by: Dict[str, List[str]] = {}
    for name, v in results.arches.items():
        if v.toolchain:
            by.setdefault(v.toolchain, []).append(name)
    return [f'{", ".join(names)}: {tc}' for tc, names in by.items()]
