"""scripts/report: regenerate, or merge, reports from saved results directories.

A CI that fans arches out over machines runs run-kunit once per arch and
then `scripts/report --out merged DIR...` to get one report and one gate.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from . import known_failures, report
from .exitcodes import Exit
from .verdict import gate


def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog='report', description=__doc__.split('\n')[0],
                                epilog='exit status: as run-kunit, for the merged results')
    p.add_argument('dirs', type=Path, nargs='+', metavar='RESULTS_DIR')
    p.add_argument('--out', type=Path, help='where to write (default: the only RESULTS_DIR)')
    p.add_argument('--expected', type=Path, metavar='FILE', help='known failures (see README)')
    args = p.parse_args(argv)
    if not args.out and len(args.dirs) > 1:
        p.error('--out is needed to merge several results directories')
    try:
        results = report.load(args.dirs)
        rules = known_failures.load(args.expected) if args.expected else []
    except (OSError, ValueError) as e:
        print(f'report: error: {e}', file=sys.stderr)
        return int(Exit.USAGE)
    for arch, data in results['arches'].items():
        known_failures.apply(arch, data, rules)
    out = args.out or args.dirs[0]
    report.write_all(out, results)
    print(report.terminal_table(results))
    print(f'\nreport: {out}/report.md')
    return int(gate([d['status'] for d in results['arches'].values()]))


if __name__ == '__main__':
    sys.exit(main())
