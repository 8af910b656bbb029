"""scripts/report: regenerate, or merge, reports from saved results directories.

A CI that fans arches out over machines runs run-kunit once per arch and
then `scripts/report --out merged --require A,B,C --run-id ID DIR...` to get
one report and one gate. Every status is decided again from the cases
(a stored status is never trusted), every arch of --require must be there,
and the directories must be results of one run of one tree.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import arches, baseline, known_failures, outdir, report
from .cli import run_main
from .declared import absent, declared_cases, expected_suites
from .exitcodes import Exit, HarnessError, epilog
from .paths import TESTS_DIR
from .results import ArchStatus, Results, RunMeta, UnknownFormat, read_dir

PROG = 'report'


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description=__doc__.split('\n')[0],
        epilog=epilog(s for s in Exit if s not in (Exit.PATCH, Exit.BUSY)))
    p.add_argument('dirs', type=Path, nargs='*', metavar='RESULTS_DIR',
                   help='results directories of run-kunit (none at all: every --require\'d '
                        'arch is missing)')
    p.add_argument('--out', type=Path, help='a new directory for the reports (default: the '
                   'only RESULTS_DIR, whose results.json is never rewritten)')
    p.add_argument('--expected', type=Path, metavar='FILE',
                   help='known failures (docs/results.md); needs --out')
    p.add_argument('--require', metavar='A,B',
                   help='arches that must have results: one missing fails the merge (exit 3)')
    p.add_argument('--baseline', metavar='DIR',
                   help='an earlier results directory (or its results.json): mark each case '
                        'and offset cell that changed since (new-fail, fixed, changed, new, '
                        f'gone); shown, never gating (default: the run the results were '
                        f'compared with when written, if they name one; "{baseline.NONE}": no '
                        'comparison)')
    p.add_argument('--run-id', metavar='ID',
                   help='refuse results of any other run (the id run-kunit --run-id got)')
    return p


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    return parser().parse_args(argv)


def _load(dirs: List[Path]) -> List[Tuple[Path, Results, Dict[str, str]]]:
    """Each directory's results, and the status its file claims for each arch."""
    parts = []
    for d in dirs:
        try:
            results, claimed = read_dir(d)
        except UnknownFormat as e:
            raise HarnessError(Exit.FORMAT, str(e)) from None
        except ValueError as e:
            raise HarnessError(Exit.USAGE, str(e)) from None
        if not results.arches and not any(meta.arches for meta in results.runs):
            raise HarnessError(Exit.USAGE, f'{d}/results.json holds no arch and names none '
                               'the run was asked for: not the results of a run')
        parts.append((d, results, claimed))
    return parts


def _claims(parts: List[Tuple[Path, Results, Dict[str, str]]], merged: Results,
            expected: Optional[Path]) -> None:
    """Say where a stored status differs from what the cases, judged by the
    rules given here, say: the cases decide."""
    rules = f'with --expected {expected}' if expected else 'without --expected'
    for d, part, claimed in parts:
        for arch in part.arches:
            said, now = claimed.get(arch), merged.arches[arch].status.value
            if said and said != now:
                print(f'{PROG}: warning: {d}: {arch} is stored as {said}, its cases say '
                      f'{now} ({rules}): the cases decide', file=sys.stderr)


def _rebased(results: Results, d: Path, to: Path) -> Results:
    """@results of directory @d with each run's baseline named from @to instead."""
    def rebase(meta: RunMeta) -> RunMeta:
        if not meta.baseline:
            return meta
        return dataclasses.replace(meta, baseline=os.path.relpath(
            (d / meta.baseline).resolve(), to.resolve()))
    return Results(runs=[rebase(m) for m in results.runs], arches=results.arches)


def _recorded_baseline(parts: List[Tuple[Path, Results]],
                       here: Path) -> Tuple[Optional[Results], str]:
    """The run these results were compared with when run-kunit wrote them, read
    again, so that a report made again keeps its "changes since" section;
    none when they name none, or several (a merge of jobs that each had its
    own), or it cannot be read any more (a warning says so)."""
    named = {(here / meta.baseline).resolve() for _, part in parts for meta in part.runs
             if meta.baseline}
    if len(named) != 1:
        return None, ''
    path = named.pop()
    try:
        return baseline.read(path), str(path)
    except HarnessError as e:
        print(f'{PROG}: warning: these results were compared with {path}, which cannot be '
              f'read now ({e.message}): no "changes since" section', file=sys.stderr)
        return None, ''


def _not_empty(args: argparse.Namespace) -> None:
    """An option given empty (an unset CI variable) is a usage error, never "nothing"
    to require" or "no run to check", as `run-kunit --arch ''` is."""
    for opt, value in (('--require', args.require), ('--run-id', args.run_id)):
        if value is not None and not value.replace(',', '').strip():
            raise HarnessError(Exit.USAGE, f'{opt} {value!r} is empty (an unset CI '
                               f'variable?); give it a value, or leave {opt} out')


def run(args: argparse.Namespace) -> int:
    _not_empty(args)
    try:
        required = [a.name for a in arches.select(args.require)] if args.require else []
    except KeyError as e:
        raise HarnessError(Exit.USAGE, f'--require: unknown arch {e.args[0]!r}') from None
    if not args.dirs and not required:
        raise HarnessError(Exit.USAGE, 'no RESULTS_DIR given (and no --require)')
    if args.expected and not args.out:
        raise HarnessError(Exit.USAGE, '--expected changes verdicts: give --out NEW_DIR, so '
                           'that the run\'s own results stay as they were')
    if not args.out and len(args.dirs) != 1:
        raise HarnessError(Exit.USAGE, '--out is needed to merge several results directories')
    out = outdir.check(args.out, '--out') if args.out else None
    then = baseline.Option.parse(args.baseline).given
    declared = expected_suites(TESTS_DIR)
    loaded = _load(args.dirs)
    # each run's baseline named from where these results are written
    parts = [(d, _rebased(results, d, out or d)) for d, results, _ in loaded]
    since = str(args.baseline)
    if args.baseline is None:
        then, since = _recorded_baseline(parts, out or args.dirs[0])
    merged = report.merge(parts, args.run_id or '', required)
    # the rules must be for the kernel the results are of (one run: one kernel)
    versions = {meta.kernel for meta in merged.runs}
    rules = known_failures.from_option(args.expected, declared, declared_cases(TESTS_DIR),
                                       (versions.pop() if len(versions) == 1 else '')
                                       if versions else None)
    homes = {arch: d for d, part in parts for arch in part.arches}   # where its logs are
    for v in merged.arches.values():
        # a declared case the stored results do not have is missing, whatever they say
        if v.cases and not v.problem:
            # what that arch's kernel had to run; older results: this checkout's suites
            lost = absent(v.declared or declared, [c.name for c in v.cases])
            v.missing += [m for m in lost if m not in v.missing]
        known_failures.apply(v, rules)
    for v in (then.arches.values() if then else ()):
        known_failures.apply(v, rules)      # the baseline judged by the same rules
    _claims(loaded, merged, args.expected)
    comparison = baseline.compare(merged, then, since) if then else None
    if out:
        outdir.write(out, lambda d: report.write_all(d, merged, homes=homes,
                                                    comparison=comparison))
        where = out
    else:
        # in place: the reports again, never the results they come from
        report.write_all(args.dirs[0], merged, with_results=False, comparison=comparison)
        where = args.dirs[0]
    print(report.terminal_table(merged))
    if comparison:
        print(f'\n{comparison.summary()}')
    print(f'\n{PROG}: {where}/report.md')
    for v in merged.arches.values():
        if v.status != ArchStatus.PASSED:
            print(f'{PROG}: error: {v.cause}', file=sys.stderr)
    return int(merged.gate())


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    return run_main(PROG, lambda: run(args))


if __name__ == '__main__':
    sys.exit(main())
