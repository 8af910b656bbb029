"""scripts/run-kunit: prepare the tree, build and boot each arch, judge, report."""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from . import arches, deps, expected_failures, report, tree
from .cache import Cache, Lock, default_root
from .exitcodes import Exit, HarnessError
from .expected import expected_suites, module_functions
from .kunit_runner import RunSettings, fmt_seconds, run_arch
from .verdict import ENVIRONMENT, Verdict, gate, judge, load_kunit_parser

REPO = Path(__file__).resolve().parents[2]
SERIES_DIR = REPO / 'kernel-patches'
TREE_FIXES = 'tree-fixes'       # under SERIES_DIR: fixes of Debian's tree itself
TESTS_DIR = REPO / 'kunit-tests'
KUNITCONFIG = REPO / 'kunitconfig'
SLIM = REPO / 'scripts/kconfig/slim.config'
DEBUG = REPO / 'scripts/kconfig/debug.config'
RESULTS = Path('kunit-results')


def say(msg: str) -> None:
    print(msg, flush=True)


def error(msg: str) -> None:
    print(f'run-kunit: error: {msg}', file=sys.stderr, flush=True)


def series_patches() -> List[Path]:
    """kernel-patches/*.patch in order; the cover letter carries no diff."""
    return sorted(p for p in SERIES_DIR.glob('*.patch') if not p.name.startswith('0000-'))


def tree_fixes() -> List[Path]:
    """kernel-patches/tree-fixes/*.patch: what Debian's tree needs to build or
    boot on some arch; stable backports, not part of the mailed series."""
    return sorted((SERIES_DIR / TREE_FIXES).glob('*.patch'))


def series_layers(tests_dir: Path = TESTS_DIR, fixes: bool = True) -> List[tree.Layer]:
    """The stack every job tests: the tree fixes (only on Debian's tree: a
    --tree has its own history), kernel-patches/ applied with git am, then
    kunit-tests/."""
    return [tree.Layer(TREE_FIXES, patches=tuple(tree_fixes() if fixes else ())),
            tree.Layer('series', patches=tuple(series_patches())),
            tree.Layer('tests', tests_dir=tests_dir)]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    names = ', '.join(a.name for a in arches.ARCHES)
    default = ','.join(a.name for a in arches.default_arches())
    p = argparse.ArgumentParser(
        prog='run-kunit',
        description='Build the kernel with our series and KUnit tests for each arch, boot it '
                    'in QEMU with kunit.py, and write per-arch results and reports.',
        epilog='exit status: 0 passed, 1 a test failed, 2 usage, 3 results missing '
               '(build/boot/timeout/crash/incomplete KTAP), 4 environment, 5 a patch did '
               'not apply, 6 cache busy, 130 interrupted')
    p.add_argument('--arch', default=default,
                   help=f'comma-separated arches, or "all" (default: {default}; known: {names})')
    p.add_argument('--tree', type=Path, help='use this kernel tree instead of Debian\'s '
                   'linux-source-6.12; it is read, never modified')
    p.add_argument('--patches', type=Path, nargs='+', default=[], metavar='FILE',
                   help='extra patches applied with git am on top of the series and tests')
    p.add_argument('--out', type=Path, help='results directory '
                   '(default: kunit-results/<UTC time>, with kunit-results/latest)')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='make -j (default: nproc)')
    p.add_argument('--timeout', type=int, default=300,
                   help='seconds one arch may take to boot and run (default: 300)')
    p.add_argument('--expected', type=Path, metavar='FILE',
                   help='known failures, "ARCH: CASE-PREFIX  # why" per line: shown, not gating')
    p.add_argument('--debug', action='store_true',
                   help='add scripts/kconfig/debug.config (KASAN, lockdep, DEBUG_NET, '
                        'DEBUG_OBJECTS, atomic-sleep checks; own build dirs)')
    p.add_argument('--no-slim', action='store_true',
                   help='build the plain kunitconfig, without scripts/kconfig/slim.config '
                        '(own build dirs; for comparisons)')
    p.add_argument('--list-arches', action='store_true', help='print the arch table and exit')
    return p.parse_args(argv)


def _progress(i: int, n: int, name: str, start: float) -> Any:
    def show(msg: str) -> None:
        say(f'[{i}/{n} {name}] {msg} ({fmt_seconds(time.monotonic() - start)})')
    return show


def run(args: argparse.Namespace) -> int:
    try:
        selected = arches.select(args.arch)
    except KeyError as e:
        names = ', '.join(a.name for a in arches.ARCHES)
        raise HarnessError(Exit.USAGE, f'unknown arch {e.args[0]!r}; known arches: {names}, '
                           'or "all"') from None
    if not selected:
        raise HarnessError(Exit.USAGE, '--arch names no arch')
    for patch in args.patches:
        if not patch.is_file():
            raise HarnessError(Exit.USAGE, f'--patches {patch}: no such file')
    if args.jobs < 1 or args.timeout < 1:
        raise HarnessError(Exit.USAGE, '--jobs and --timeout take a positive number')
    try:
        known = expected_failures.load(args.expected) if args.expected else []
    except (OSError, ValueError) as e:
        raise HarnessError(Exit.USAGE, f'--expected: {e}') from None

    deps.ensure_packages(deps.BASE_PACKAGES + (deps.DEBUG_PACKAGES if args.debug else ()), say)
    problems = {a.name: p for a in selected if (p := deps.arch_problem(a, say))}
    if len(problems) == len(selected):
        raise next(iter(problems.values()))

    cache = Cache(default_root())
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%d-%H%M%S')
    out = (args.out or RESULTS / stamp).resolve()
    partial = out.with_name(out.name + '.partial')
    with Lock(cache):
        base = tree.user_base(args.tree) if args.tree else tree.debian_base()
        layers = series_layers(fixes=not args.tree)
        if args.patches:
            layers.append(tree.Layer('extra', patches=tuple(args.patches)))
        fixes = [p.name for p in layers[0].patches]
        label = base.label + ''.join(f' + {f.removesuffix(".patch")}' for f in fixes)
        say(f'tree: {label} + {len(layers[1].patches)} patch(es) + kunit-tests'
            + (f' + {len(args.patches)} extra patch(es)' if args.patches else ''))
        for f in fixes:
            say(f'  tree fix: kernel-patches/{TREE_FIXES}/{f}')
        prepared = tree.prepare(cache, base, layers, say)
        say(f'tree ready: {prepared.path} at {prepared.head[:12]}'
            + (' (unchanged)' if prepared.reused else ''))

        if partial.exists():
            shutil.rmtree(partial)
        partial.mkdir(parents=True)
        try:
            settings = RunSettings(tree=prepared.path, cache=cache, base_id=base.base_id,
                                   kunitconfigs=[KUNITCONFIG] + ([] if args.no_slim else [SLIM])
                                   + ([DEBUG] if args.debug else []),
                                   jobs=args.jobs, timeout=args.timeout,
                                   profile='-'.join(p for p, on in (('full', args.no_slim),
                                                                     ('debug', args.debug)) if on),
                                   slim=not args.no_slim, kmemleak=args.debug)
            parser = load_kunit_parser(prepared.path / 'tools/testing/kunit')
            expected = expected_suites(TESTS_DIR)
            ours = module_functions(TESTS_DIR)
            verdicts: List[Verdict] = []
            for i, a in enumerate(selected, 1):
                show = _progress(i, len(selected), a.name, time.monotonic())
                if a.name in problems:
                    (partial / a.name).mkdir()
                    v = Verdict(arch=a.name, status=ENVIRONMENT, cause=problems[a.name].message)
                else:
                    result = run_arch(a, settings, partial / a.name, show)
                    v = judge(result, expected, parser, args.timeout, ours)
                show(f'{v.status}: {v.cause}')
                # The results directory is renamed into place at the end: name
                # the logs where they will be, not where they are being written.
                v.cause = v.cause.replace(str(partial), str(out))
                v.logs = {k: p.replace(str(partial), str(out)) for k, p in v.logs.items()}
                verdicts.append(v)

            meta: Dict[str, Any] = {'tree': label, 'tree_fixes': fixes,
                                    'head': prepared.head,
                                    'base_commit': prepared.base_commit,
                                    'arches': [a.name for a in selected],
                                    'finished': datetime.datetime.now(
                                        datetime.timezone.utc).isoformat(timespec='seconds')}
            results = {'meta': meta, 'arches': {
                v.arch: expected_failures.apply(v.arch, v.to_json(), known) for v in verdicts}}
            for name, data in results['arches'].items():
                report.atomic_write(partial / name / 'verdict.json',
                                    json.dumps(data, indent=1) + '\n')
            report.write_all(partial, results)
            if out.exists():
                shutil.rmtree(out)
            os.replace(partial, out)
            if not args.out:
                latest = out.parent / 'latest'
                if latest.is_symlink() or latest.exists():
                    latest.unlink()
                latest.symlink_to(out.name)
        except BaseException:
            # Ctrl-C, a crash of ours: no half-written results directory.
            shutil.rmtree(partial, ignore_errors=True)
            raise
    say('')
    say(report.terminal_table(results))
    say('')
    say(f'results: {out}/report.md (also report.html, junit.xml, results.json, kcidb.json)')
    for data in results['arches'].values():
        if data['status'] != 'passed':
            error(data['cause'])
    return int(gate([d['status'] for d in results['arches'].values()]))


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list_arches:
        for a in arches.ARCHES:
            say(f'{a.name:12} {"default" if a.default else "":8} {a.policy}')
        return 0

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    try:
        return run(args)
    except HarnessError as e:
        error(e.message)
        return int(e.status)
    except KeyboardInterrupt:
        error('interrupted; the partial results were removed, the next run starts clean')
        return int(Exit.INTERRUPTED)
    except OSError as e:
        if e.errno == 28:  # ENOSPC
            error(f'disk full: {e}; free space in {default_root()} or set RXALIGN_CACHE')
            return int(Exit.ENVIRONMENT)
        raise


if __name__ == '__main__':
    sys.exit(main())
