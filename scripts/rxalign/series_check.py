"""scripts/series-check: the series' driver changes are the semantic patch's own output.

For every C file under drivers/ or net/ that the driver series changes, run
the series' semantic patch (scripts/coccinelle/api/net_ip_align.cocci in the
prepared tree) in patch mode on the pristine file, and compare the code it
removes and adds with the code the series removes and adds.  They must be
equal, except for the files in HAND_EDITS, where the series may do more
(the semantic patch's changes must still all be in it).

Code, not layout or comments: both versions of a file lose their comments,
each run of removed (or added) lines of their diff is cut into statements
without blanks, and a removed and an added statement that are then the same
cancel.  So the series may wrap a line
where spatch's pretty-printer cannot keep it within 80 columns, and may drop
the trailing comment of a line patch mode removes, which spatch glues to the
line before ("break;/* 16 byte align the IP header. */"), or fix a comment
the change makes wrong; comments are reviewed, not proved.
"""

from __future__ import annotations

import argparse
import collections
import difflib
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Counter, List, Optional, Sequence, Tuple

from .kernels import DEFAULT
from . import series, tree
from .cache import Cache, Lock, default_root
from .cli import run_main
from .exitcodes import Exit, HarnessError
from .paths import COCCI

# File -> what the series does there beyond patch mode, and why.
HAND_EDITS = {
    'drivers/net/ethernet/packetengines/hamachi.c':
        'the device is told rx_buf_sz, the room the buffer has after the pad, '
        'where it was told rx_buf_sz - 2',
}

Lines = Tuple[Counter[str], Counter[str]]

COMMENTS = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
BLANKS = re.compile(r'\s+')


def without_comments(text: str) -> str:
    """C source with its comments taken out, every line kept where it was."""
    return COMMENTS.sub(lambda m: '\n' * m.group(0).count('\n'), text)


def statements(lines: Sequence[str]) -> List[str]:
    """A run of changed lines as statements, blanks out: joined until ; { or } ends one."""
    out: List[str] = []
    cur = ''
    for line in lines:
        cur += BLANKS.sub('', line)
        if cur and cur.count('(') <= cur.count(')') and cur.endswith((';', '{', '}')):
            out.append(cur)
            cur = ''
    if cur:
        out.append(cur)
    return out


def changed_lines(diff: str) -> Lines:
    """(removed, added) statements of a unified diff: headers, layout and no-ops left out."""
    removed: Counter[str] = collections.Counter()
    added: Counter[str] = collections.Counter()
    run: List[str] = []
    sign = ''
    for line in diff.splitlines() + ['']:
        if line.startswith(('---', '+++')):
            continue
        now = line[:1] if line.startswith(('-', '+')) else ''
        if now != sign and run:
            (removed if sign == '-' else added).update(statements(run))
            run = []
        sign = now
        if now and line[1:].strip():
            run.append(line[1:])
    same = removed & added
    return removed - same, added - same


def code_changes(before: str, after: str) -> Lines:
    """What changes between two versions of a C file, comments left out."""
    diff = difflib.unified_diff(without_comments(before).splitlines(),
                                without_comments(after).splitlines(), lineterm='', n=0)
    return changed_lines('\n'.join(diff))


def git_show(src: Path, rev: str, path: str) -> str:
    return subprocess.run(['git', 'show', f'{rev}:{path}'], cwd=src, capture_output=True,
                          text=True, check=True).stdout


def patch_mode(src: Path, path: str, scratch: Path) -> Lines:
    """The semantic patch's patch mode on the pristine file."""
    pristine = git_show(src, 'pristine', path)
    copy = scratch / Path(path).name
    copy.write_text(pristine)
    proc = subprocess.run(['spatch', '--very-quiet', '-D', 'patch', '--no-includes',
                           '--include-headers', '--in-place', '--sp-file', str(src / COCCI),
                           str(copy)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'spatch failed on {path}: '
                           f'{(proc.stderr.strip().splitlines() or ["no output"])[-1]}')
    return code_changes(pristine, copy.read_text())


def series_lines(src: Path, path: str) -> Lines:
    """The series' change to the file: pristine against the tree's HEAD."""
    return code_changes(git_show(src, 'pristine', path), git_show(src, 'HEAD', path))


def compare(path: str, cocci: Lines, series: Lines) -> Tuple[bool, str]:
    """(ok, what differs) for one file."""
    hand = path in HAND_EDITS
    missing = [(sign, line) for sign, want, have in (('-', cocci[0], series[0]),
                                                     ('+', cocci[1], series[1]))
               for line in (want - have).elements()]
    extra = [(sign, line) for sign, want, have in (('-', series[0], cocci[0]),
                                                   ('+', series[1], cocci[1]))
             for line in (want - have).elements()]
    if missing:
        return False, 'patch mode changes what the series does not: ' + \
            '; '.join(f'{s}{ln.strip()}' for s, ln in missing[:3])
    if extra and not hand:
        return False, 'the series changes what patch mode does not: ' + \
            '; '.join(f'{s}{ln.strip()}' for s, ln in extra[:3])
    n = sum(cocci[0].values()) + sum(cocci[1].values())
    if extra:
        return True, (f'patch mode\'s {n} statements, plus {len(extra)} by hand: '
                      f'{HAND_EDITS[path]}')
    return True, f'exactly patch mode\'s {n} statements'


def parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog='series-check', description=__doc__.split('\n')[0])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser().parse_args(argv)
    patches = list(series.DRIVERS.patches())
    files = series.touched_c_files(patches)
    cache = Cache(default_root())
    base = tree.debian_base(DEFAULT, cache, print)
    bad = 0
    try:
        with Lock(cache):
            src = tree.prepare(cache, base, series.layers(), print).path
            with tempfile.TemporaryDirectory(prefix='rx-align-series-') as tmp:
                for f in files:
                    ok, why = compare(f, patch_mode(src, f, Path(tmp)), series_lines(src, f))
                    print(f'{"PASS" if ok else "FAIL"} {f}: {why}', flush=True)
                    bad += not ok
    except HarnessError as e:
        print(f'series-check: error: {e.message}', file=sys.stderr)
        return int(e.status)
    return int(Exit.TEST_FAILED) if bad else 0


if __name__ == '__main__':
    sys.exit(run_main('series-check', main))
