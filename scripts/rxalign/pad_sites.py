"""scripts/pad-sites: every receive buffer padded with a literal 2, and its class.

Runs the semantic patch the series ships (scripts/coccinelle/api/
net_ip_align.cocci in the prepared tree) in report mode over every file
under drivers/ and net/ that reserves headroom, checks it against a plain
grep for hard-coded reserves of 2 (the semantic patch must find at least
those), and writes docs/pad-sites.md: every site, its class, why, and
the counts per class.  Sites it leaves as "other" are looked up in
docs/pad-sites-reviewed.txt, the classes given by reading those drivers; an entry
that no longer matches a site is listed as stale, so the review follows
the tree.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import deps, tree
from .cache import Cache, default_root
from .cli import run_main
from .kernels import DEFAULT
from .exitcodes import Exit
from .paths import COCCI, REPO

GREP = re.compile(r'skb_reserve\(\s*[^,;]+,\s*(?:2|2\s*\+\s*[^);]+|[^);]+\+\s*2)\s*\)\s*;')
REPORT = re.compile(r'^(?P<file>[^:]+):(?P<line>\d+):\d+-\d+: (?P<cls>\w+): (?P<why>.*)$')
CLASSES = ('dma', 'hw', 'copy', 'tx', 'other')
TODO = {
    'dma': 'the buffer is then DMA-mapped: reserve NET_IP_ALIGN (patch mode does it where '
           'the mapping is in the same function)',
    'hw': 'the device decides where the frame lands: leave the 2',
    'copy': 'the CPU writes the frame in: the pad costs nothing, leave',
    'tx': 'not a receive buffer (a packet built for sending): out of scope, leave',
    'other': 'nothing seen in the function, not reviewed yet: review by hand',
}
REVIEWED = REPO / 'docs/pad-sites-reviewed.txt'
OUT = REPO / 'docs/pad-sites.md'
# libpython3-dev: the .cocci's python rules; Debian 13's spatch dlopens libpython3.13.so,
# which only the -dev package links (Debian 12's finds its libpython without it)
PACKAGES = ('coccinelle', 'libpython3-dev')


@dataclasses.dataclass(frozen=True)
class Site:
    file: str
    line: int
    cls: str
    why: str
    code: str
    by: str = 'semantic patch'


def load_review(path: Path) -> Dict[str, Tuple[str, str]]:
    """FILE CLASS WHY per line: the class of every "other" site of FILE."""
    review: Dict[str, Tuple[str, str]] = {}
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = '' if raw.lstrip().startswith('#') else raw.strip()
        if not line:
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[1] not in CLASSES or parts[1] == 'other':
            raise ValueError(f'{path}:{n}: expected "FILE CLASS WHY" with CLASS one of '
                             f'{", ".join(c for c in CLASSES if c != "other")}: {raw!r}')
        review[parts[0]] = (parts[1], parts[2])
    return review


def apply_review(sites: List[Site], review: Dict[str, Tuple[str, str]]) -> Tuple[List[Site], List[str]]:
    """Reviewed classes for the "other" sites; the review entries that matched none."""
    used = set()
    out = []
    for s in sites:
        if s.cls == 'other' and s.file in review:
            cls, why = review[s.file]
            used.add(s.file)
            s = dataclasses.replace(s, cls=cls, why=why, by='review')
        out.append(s)
    return out, sorted(set(review) - used)


def grep_sites(tree: Path) -> List[Tuple[str, int, bool]]:
    """(file, line, compiled) of every reserve of 2 a plain grep sees."""
    found = []
    for top in ('drivers', 'net'):
        for path in sorted((tree / top).rglob('*.[ch]')):
            dead = 0   # depth inside #if 0, which the semantic patch rightly skips
            depth = 0
            for n, line in enumerate(path.read_text(errors='replace').splitlines(), 1):
                cpp = line.strip()
                if re.match(r'#\s*if', cpp):
                    depth += 1
                    if dead == 0 and re.match(r'#\s*if\s+0\b', cpp):
                        dead = depth
                elif re.match(r'#\s*endif', cpp):
                    if dead == depth:
                        dead = 0
                    depth -= 1
                if GREP.search(line):
                    found.append((str(path.relative_to(tree)), n, dead == 0))
    return found


def candidate_files(tree: Path) -> List[str]:
    proc = subprocess.run(['grep', '-rlE', r'skb_reserve\(', '--include=*.c', '--include=*.h',
                           'drivers', 'net'], cwd=tree, capture_output=True, text=True,
                          check=False)
    return sorted(proc.stdout.split())


def spatch_sites(tree: Path, files: List[str], log: Path) -> List[Site]:
    sites = []
    with open(log, 'w', encoding='utf-8') as err:
        for f in files:
            proc = subprocess.run(['spatch', '--very-quiet', '-D', 'report', '--no-includes',
                                   '--include-headers', '--sp-file', COCCI, f],
                                  cwd=tree, capture_output=True, text=True, check=False)
            err.write(proc.stderr)
            for line in proc.stdout.splitlines():
                m = REPORT.match(line)
                if m:
                    n = int(m.group('line'))
                    code = (tree / m.group('file')).read_text(errors='replace') \
                        .splitlines()[n - 1].strip()
                    sites.append(Site(m.group('file'), n, m.group('cls'), m.group('why'), code))
    return sorted(set(sites), key=lambda s: (s.file, s.line))


def _why(s: Site) -> str:
    return s.why.split(': ', 1)[1] if s.by == 'semantic patch' and ': ' in s.why else s.why


def markdown(tree_label: str, sites: List[Site], missed: List[Tuple[str, int]],
             dead: List[Tuple[str, int]], stale: List[str]) -> str:
    def count(cls: str, by: Optional[str] = None) -> int:
        return sum(1 for s in sites if s.cls == cls and by in (None, s.by))

    out = [f'# Receive buffers padded with a literal 2 in {tree_label}', '',
           f'Generated by `scripts/pad-sites` from `{COCCI}` (report mode), with the sites',
           'it leaves as "other" classified by reading the driver '
           '(`docs/pad-sites-reviewed.txt`).', '',
           '| class | sites | by the semantic patch | by review | files | what to do |',
           '|---|---|---|---|---|---|']
    for c in CLASSES:
        files = len({s.file for s in sites if s.cls == c})
        out.append(f'| {c} | {count(c)} | {count(c, "semantic patch")} | {count(c, "review")} '
                   f'| {files} | {TODO[c]} |')
    out += [f'| **all** | {len(sites)} | {sum(s.by != "review" for s in sites)} | '
            f'{sum(s.by == "review" for s in sites)} | {len({s.file for s in sites})} | |', '']
    if missed:
        out += ['## Found by grep, missed by the semantic patch', '']
        out += [f'- `{f}:{n}`' for f, n in missed]
        out.append('')
    if dead:
        out += ['## Found by grep inside `#if 0` (not compiled, not counted)', '']
        out += [f'- `{f}:{n}`' for f, n in dead]
        out.append('')
    if stale:
        out += ['## Stale review entries (no "other" site in these files any more)', '']
        out += [f'- `{f}`' for f in stale]
        out.append('')
    for c in CLASSES:
        rows = [s for s in sites if s.cls == c]
        if not rows:
            continue
        out += [f'## {c}', '', '| site | by | why | code |', '|---|---|---|---|']
        out += [f'| `{s.file}:{s.line}` | {s.by} | {_why(s)} | `{s.code}` |' for s in rows]
        out.append('')
    return '\n'.join(out)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='pad-sites', description=__doc__.split('\n')[0])
    p.add_argument('--tree', type=Path,
                   help='a kernel tree that has the semantic patch (default: pristine '
                        'linux-source-6.12, with the semantic patch of the tree '
                        'scripts/run-kunit prepared)')
    p.add_argument('--out', type=Path, default=OUT)
    p.add_argument('--label', default='the tree')
    p.add_argument('--review', type=Path, default=REVIEWED,
                   help='hand classification of "other" sites (default: '
                        'docs/pad-sites-reviewed.txt)')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    deps.ensure_packages(PACKAGES, print)
    if args.tree:
        return survey(args, args.tree)
    # The state the series starts from: the pristine sources, with the
    # semantic patch the series adds.
    cache = Cache(default_root())
    base = tree.debian_base(DEFAULT, cache, print)
    prepared = cache.tree(base.base_id)
    args.label = base.label
    if not (prepared / COCCI).is_file():
        print(f'pad-sites: error: {prepared / COCCI} is missing: run scripts/run-kunit once to '
              'prepare the tree', file=sys.stderr)
        return int(Exit.USAGE)
    with tempfile.TemporaryDirectory(prefix='rx-align-pad-sites-') as tmp:
        archive = subprocess.run(['git', 'archive', 'pristine', 'drivers', 'net'], cwd=prepared,
                                 capture_output=True, check=True).stdout
        subprocess.run(['tar', '-x', '-C', tmp], input=archive, check=True)
        (Path(tmp) / COCCI).parent.mkdir(parents=True)
        shutil.copyfile(prepared / COCCI, Path(tmp) / COCCI)
        return survey(args, Path(tmp))


def survey(args: argparse.Namespace, src: Path) -> int:
    if not (src / COCCI).is_file():
        print(f'pad-sites: error: {src / COCCI} is missing: apply kernel-patches/ first '
              '(scripts/run-kunit prepares such a tree)', file=sys.stderr)
        return int(Exit.USAGE)
    log = Path(tempfile.gettempdir()) / 'rx-align-pad-sites-spatch.log'
    try:
        review = load_review(args.review)
    except (OSError, ValueError) as e:
        print(f'pad-sites: error: {e}', file=sys.stderr)
        return int(Exit.USAGE)
    sites, stale = apply_review(spatch_sites(src, candidate_files(src), log), review)
    by_line: Dict[Tuple[str, int], Site] = {(s.file, s.line): s for s in sites}
    grep = grep_sites(src)
    missed = [(f, n) for f, n, live in grep if live and (f, n) not in by_line]
    dead = [(f, n) for f, n, live in grep if not live]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(markdown(args.label, sites, missed, dead, stale))
    print(f'pad-sites: {len(sites)} sites ({", ".join(f"{c} {sum(s.cls == c for s in sites)}" for c in CLASSES)}); '
          f'{len(missed)} grep sites missed, {len(dead)} in #if 0, {len(stale)} stale review '
          f'entries; written to {args.out} '
          f'(spatch messages: {log})')
    return int(Exit.TEST_FAILED) if missed else 0


if __name__ == '__main__':
    sys.exit(run_main('pad-sites', main))
