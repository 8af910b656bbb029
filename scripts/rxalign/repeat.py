"""scripts/repeat: run the default arches N times (warm) and compare the runs.

Every run must give the same verdicts, the same cases with the same
statuses, and the same policy facts; anything that differs is printed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .cli import run_main
from .exitcodes import Exit
from .paths import SCRIPTS
from .results import Results, read_dir



def fingerprint(results: Results) -> Dict[str, Tuple[str, Tuple[Tuple[str, str], ...],
                                                      Tuple[Tuple[str, str], ...]]]:
    out = {}
    for arch, v in results.arches.items():
        cases = tuple((c.name, c.shown) for c in v.cases)
        out[arch] = (v.status.value, cases, tuple(sorted(v.facts.items())))
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='repeat', description=__doc__.split('\n')[0])
    p.add_argument('runs', type=int, nargs='?', default=20)
    p.add_argument('--arch', default='')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix='rx-align-repeat-'))
    first: Optional[Dict[str, Any]] = None
    differ: List[str] = []
    for i in range(1, args.runs + 1):
        cmd = [str(SCRIPTS / 'run-kunit'), '--out', str(work / str(i))]
        if args.arch:
            cmd += ['--arch', args.arch]
        status = subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False).returncode
        results = read_dir(work / str(i))[0]
        fp = fingerprint(results)
        counts = ', '.join(f'{a}={v[0]}/{len(v[1])}' for a, v in fp.items())
        same = first is None or fp == first
        print(f'run {i}/{args.runs}: exit {status}, {counts}, '
              f'{"same as run 1" if same else "DIFFERS from run 1"}', flush=True)
        if first is None:
            first = fp
        elif not same:
            for arch in fp:
                if fp[arch] != first.get(arch):
                    a = dict(first.get(arch, ('', (), ()))[1])
                    b = dict(fp[arch][1])
                    changed = [n for n in set(a) | set(b) if a.get(n) != b.get(n)]
                    differ.append(f'run {i} {arch}: {", ".join(sorted(changed)[:5])}')
    print(f'\n{args.runs} runs, {len(differ)} difference(s); results in {work}')
    for d in differ:
        print(d)
    return int(Exit.TEST_FAILED) if differ else 0


if __name__ == '__main__':
    sys.exit(run_main('repeat', main))
