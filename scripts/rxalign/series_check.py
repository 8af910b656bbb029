"""scripts/series-check: the series' driver changes are the semantic patch's own output.

For every C file under drivers/ or net/ that kernel-patches/ changes, run
the series' semantic patch (scripts/coccinelle/api/net_ip_align.cocci in the
prepared tree) in patch mode on the pristine file, and compare the lines it
removes and adds with the lines the series removes and adds.  They must be
equal, except for the files in HAND_EDITS, where the series may do more
(the semantic patch's changes must still all be in it).
"""

from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Counter, Optional, Sequence, Tuple

from . import series, tree
from .audit import COCCI
from .cache import Cache, Lock, default_root
from .cli import run_main
from .compile_test import touched_c_files
from .exitcodes import Exit, HarnessError

# File -> what the series does there beyond patch mode, and why.
HAND_EDITS = {
    'drivers/net/ethernet/amd/amd8111e.c':
        'the DMA lengths (rx_buff_len - 2) follow the reserve, which the semantic patch '
        'does not track',
}

Lines = Tuple[Counter[str], Counter[str]]


def changed_lines(diff: str) -> Lines:
    """(removed, added) line contents of a unified diff, headers left out."""
    removed: Counter[str] = collections.Counter()
    added: Counter[str] = collections.Counter()
    for line in diff.splitlines():
        if line.startswith(('---', '+++')):
            continue
        if line.startswith('-'):
            removed[line[1:]] += 1
        elif line.startswith('+'):
            added[line[1:]] += 1
    return removed, added


def patch_mode(src: Path, path: str, scratch: Path) -> Lines:
    pristine = subprocess.run(['git', 'show', f'pristine:{path}'], cwd=src, capture_output=True,
                              text=True, check=True).stdout
    copy = scratch / Path(path).name
    copy.write_text(pristine)
    proc = subprocess.run(['spatch', '--very-quiet', '-D', 'patch', '--no-includes',
                           '--include-headers', '--sp-file', str(src / COCCI), str(copy)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'spatch failed on {path}: '
                           f'{(proc.stderr.strip().splitlines() or ["no output"])[-1]}')
    return changed_lines(proc.stdout)


def series_lines(src: Path, path: str) -> Lines:
    diff = subprocess.run(['git', 'diff', 'pristine', 'HEAD', '--', path], cwd=src,
                          capture_output=True, text=True, check=True).stdout
    return changed_lines(diff)


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
        return True, f'patch mode\'s {n} lines, plus {len(extra)} by hand: {HAND_EDITS[path]}'
    return True, f'exactly patch mode\'s {n} lines'


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog='series-check', description=__doc__.split('\n')[0])
    p.parse_args(argv)
    patches = list(series.DRIVERS.patches())
    files = touched_c_files(patches)
    cache = Cache(default_root())
    base = tree.debian_base()
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
