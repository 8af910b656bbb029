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

from .results import DriverClass, Frame, FrameVerdict, Results, Verdict

FACT_COLUMNS = ('net_ip_align', 'net_skb_pad', 'l1_cache_bytes', 'smp_cache_bytes',
                'page_size', 'dma_cache_align', 'efficient_unaligned', 'bits', 'endian')
SHOWN = ('PASS', 'FAIL', 'XFAIL', 'SKIP', 'CRASH')
ETH_HLEN = 14


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
        return [k for k in (FrameVerdict.FAIL, FrameVerdict.PASS, FrameVerdict.RECORDED)
                if k in found]

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
