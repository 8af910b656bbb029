"""--coverage joined with the site inventory: which receive pads of a literal 2
(docs/pad-sites.md, made by scripts/pad-sites from the pristine tree) ran in
the guest.

A site is found again in the tree the run tested by its code (the line's
text), the nearest to its pristine line number: the series moves lines,
and rewrites some sites (the netdev_alloc_skb_ip_align() conversions),
which are then "changed by the series".  Sites in files that were not
built with gcov, or not into this kernel, are counted, not listed.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .coverage import FileCoverage
from .paths import REPO

INVENTORY = REPO / 'docs/pad-sites.md'
ROW = re.compile(r'^\| `(?P<file>[^`:]+):(?P<line>\d+)` \|.*\| `(?P<code>.*)` \|$')
SECTION = re.compile(r'^## (\w+)$')
FOLLOW = 2      # lines after a site where its block's count may be


class SiteRun(str, enum.Enum):
    RAN = 'ran'
    NOT_RAN = 'not ran'
    NO_CODE = 'no code'                    # gcov counts no block there nor FOLLOW after
    CHANGED = 'changed by the series'      # its code is not in the tree tested
    NOT_PROFILED = 'not profiled'          # its file has no counters in this kernel


@dataclasses.dataclass(frozen=True)
class PadSite:
    file: str
    line: int                   # in the pristine tree
    cls: str                    # dma, hw, copy, tx, other
    code: str


@dataclasses.dataclass(frozen=True)
class Joined:
    site: PadSite
    run: SiteRun
    line: int = 0               # where it is in the tree tested (0: not found)
    count: int = 0


def read_sites(text: str) -> List[PadSite]:
    """The sites of the inventory's per-class tables."""
    sites: List[PadSite] = []
    cls = ''
    for line in text.splitlines():
        s = SECTION.match(line)
        if s:
            cls = s.group(1)
            continue
        m = ROW.match(line)
        if m and cls:
            sites.append(PadSite(m.group('file'), int(m.group('line')), cls,
                                 m.group('code').strip()))
    return sites


def locate(site: PadSite, tree: Path) -> Optional[int]:
    """The line of @tree's file that holds the site's code, nearest to where it was."""
    try:
        lines = (tree / site.file).read_text(errors='replace').splitlines()
    except OSError:
        return None
    found = [n for n, text in enumerate(lines, 1) if text.strip() == site.code]
    return min(found, key=lambda n: abs(n - site.line)) if found else None


def join(sites: Sequence[PadSite], files: Sequence[FileCoverage], tree: Path) -> List[Joined]:
    by_source: Dict[str, FileCoverage] = {f.source: f for f in files}
    out: List[Joined] = []
    for site in sites:
        cov = by_source.get(site.file)
        if cov is None:
            out.append(Joined(site, SiteRun.NOT_PROFILED))
            continue
        line = locate(site, tree)
        counts = dict(cov.counts)
        # an inlined skb_reserve() often has no block of its own: the line
        # after it that has one is in the same block
        counted = next((n for n in range(line, line + FOLLOW + 1) if n in counts),
                       None) if line else None
        if line is None:
            out.append(Joined(site, SiteRun.CHANGED))
        elif counted is None:
            out.append(Joined(site, SiteRun.NO_CODE, line))
        else:
            out.append(Joined(site, SiteRun.RAN if counts[counted] else SiteRun.NOT_RAN, line,
                              counts[counted]))
    return out


def text(arch: str, joined: Sequence[Joined]) -> str:
    """<arch>/coverage/pad-sites.txt: a line per site of a profiled file, then the counts."""
    counts: Dict[SiteRun, int] = {r: sum(1 for j in joined if j.run is r) for r in SiteRun}
    out = [f'# {arch}: the sites of docs/pad-sites.md in the files built with gcov',
           '# run          class  site (pristine line -> line tested, count)']
    for j in joined:
        if j.run is SiteRun.NOT_PROFILED:
            continue
        where = f' -> {j.line}' if j.line else ''
        out.append(f'{j.run.value:<14} {j.site.cls:<6} {j.site.file}:{j.site.line}{where}'
                   + (f' ({j.count}x)' if j.run is SiteRun.RAN else ''))
    out.append('# ' + ', '.join(f'{r.value}: {counts[r]}' for r in SiteRun))
    return '\n'.join(out) + '\n'


def write(out_dir: Path, arch: str, files: Sequence[FileCoverage], tree: Path,
          inventory: Path = INVENTORY) -> Tuple[int, int]:
    """<arch>/coverage/pad-sites.txt; (sites ran, sites in profiled files)."""
    joined = join(read_sites(inventory.read_text()), files, tree)
    (out_dir / 'pad-sites.txt').write_text(text(arch, joined))
    profiled = [j for j in joined if j.run is not SiteRun.NOT_PROFILED]
    return sum(1 for j in profiled if j.run is SiteRun.RAN), len(profiled)
