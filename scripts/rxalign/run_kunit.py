"""scripts/run-kunit: prepare the tree, build and boot each arch, judge, report."""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import hashlib
import json
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from . import (arches, baseline, checkout, coverage, deps, fmt, gcov_profile, kernels, known_failures,
               outdir, patches, report, series, tables, toolchains, tree)
from .cache import Cache, Lock, default_root
from .cli import SIGNALS, deferred, interruptible, run_main
from .declared import declared_cases, expected_suites, suite_glob
from .exitcodes import Exit, HarnessError, epilog
from .fmt import seconds as fmt_seconds
from .arch_plan import RunSettings
from .arch_verdict import judging, run_and_judge
from .kconfig import Profile
from .paths import SERIES_DIR, TESTS_DIR
from .results import ArchStatus, Problem, ProblemKind, Results, RunMeta, Verdict

PROG = 'run-kunit'
RESULTS = Path('kunit-results')
RUN_ID_ENV = 'RXALIGN_RUN_ID'
CI_ENV = 'CI'           # set (to "true") by GitLab CI, GitHub Actions and most others
IDLE_DEFAULT = 60
TIMEOUT_DEFAULT = 300
EXTRA = 'extra'         # the tree layer of --patches
COVERAGE = 'coverage'   # the tree layer of --coverage: gcov for the receive files


def say(msg: str) -> None:
    print(msg, flush=True)


def error(msg: str) -> None:
    print(f'{PROG}: error: {msg}', file=sys.stderr, flush=True)


def parser() -> argparse.ArgumentParser:
    names = ', '.join(a.name for a in arches.ARCHES)
    default = ','.join(a.name for a in arches.default_arches())
    p = argparse.ArgumentParser(
        prog=PROG,
        description='Build the kernel with our series and KUnit tests for each arch, boot it '
                    'in QEMU with kunit.py, and write per-arch results and reports.',
        epilog=epilog(s for s in Exit if s not in (Exit.MISMATCH, Exit.FORMAT)))
    p.add_argument('--arch', help=f'comma-separated arches, or "all" (default: {default}; '
                   f'known: {names})')
    p.add_argument('--kernel', metavar='VERSION',
                   help='which of Debian\'s kernel source packages to test: '
                        f'{", ".join(k.name for k in kernels.KERNELS)} (default: '
                        f'{kernels.DEFAULT.name}; --list-kernels says where each comes from)')
    p.add_argument('--tree', type=Path, help='use this kernel tree instead of a Debian '
                   'package; it is read, never modified. Its Makefile\'s VERSION.PATCHLEVEL '
                   'picks the series: those of the newest kernel of --list-kernels not newer '
                   'than it (for-KERNEL/ where one exists; a net-next newer than every one '
                   'takes the newest\'s), exit 2 if it is older than '
                   f'{kernels.KERNELS[0].name}. Each fix applies only where it applies and is '
                   'not in the tree already (the others are skipped, and named in the output '
                   'and the report); the KUnit tests and tests-compat must apply (exit 5)')
    p.add_argument('--patches', type=Path, nargs='+', default=[], metavar='PATH',
                   help='patches to test, in order: git format-patch mails, an mbox of several '
                        '(b4 am, a patchwork series), a directory of git format-patch output, '
                        'or a plain git diff / diff -u (committed with a subject naming the '
                        'file). They apply on the tree the run tests, which the report names: '
                        'the kernel (--kernel\'s Debian package, default '
                        f'{kernels.DEFAULT.package}, or --tree) plus this project\'s series '
                        'from kernel-patches/ (for-KERNEL/ where one exists), in this order: '
                        f'{series.describe_series()}. Each is checked before any build (exit '
                        '5 naming the one that does not apply)')
    p.add_argument('--out', type=Path, help='a new (or empty) results directory '
                   '(default: kunit-results/<UTC time>, with kunit-results/latest; in a '
                   'kernel tree, kunit-results/ beside it, never inside)')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1, help='make -j (default: nproc)')
    p.add_argument('--timeout', type=int, default=TIMEOUT_DEFAULT,
                   help='seconds one arch may take to boot and run (default: '
                        f'{TIMEOUT_DEFAULT})')
    p.add_argument('--idle-timeout', type=int, default=IDLE_DEFAULT, metavar='S',
                   help='stop a guest that prints nothing for S seconds, as hung '
                        f'(default: {IDLE_DEFAULT})')
    p.add_argument('--run-id', default=os.environ.get(RUN_ID_ENV, ''), metavar='ID',
                   help='names this run in its results, so that scripts/report merges only '
                        'the results of one run (a CI pipeline id; default: '
                        f'${RUN_ID_ENV}, else one made up)')
    p.add_argument('--expected', type=Path, metavar='FILE',
                   help='known failures, "ARCH: SUITE.CASE  # why" per line: shown, not gating')
    p.add_argument('--drivers', action='store_true',
                   help='the NIC drivers suite instead of the others: each arch\'s QEMU '
                        'machine gets the NICs of its table entry on one hub (the same '
                        'kernel as without --drivers: scripts/kconfig/drivers.config)')
    p.add_argument('--debug', action='store_true',
                   help='add scripts/kconfig/debug.config (KASAN, lockdep, DEBUG_NET, '
                        'DEBUG_OBJECTS, atomic-sleep checks; own build dirs)')
    p.add_argument('--coverage', action='store_true',
                   help='build the receive files (gcov_profile.RECEIVE_FILES) and every NIC '
                        'driver with gcov (scripts/kconfig/coverage.config; own build dirs), '
                        'and have /init print the counters after the suites: <arch>/coverage/ '
                        'holds which lines and functions ran (docs/coverage.md)')
    p.add_argument('--no-slim', action='store_true',
                   help='build the plain kunitconfig, without scripts/kconfig/slim.config '
                        '(own build dirs; for comparisons)')
    p.add_argument('--baseline', metavar='DIR',
                   help='mark what changed since this results directory (new-fail, fixed, '
                        'changed, new, gone); never changes the exit status (default: the '
                        'previous run of the same tree base and arches in kunit-results/; '
                        '"none": no comparison)')
    p.add_argument('--toolchain', default=toolchains.HOST, choices=toolchains.NAMES,
                   help='what builds and boots the kernels: "host", the machine\'s compilers '
                        'and QEMU (default; an arch whose table entry names a Debian newer '
                        'than the machine\'s, '
                        f'{", ".join(a.name for a in arches.ARCHES if a.toolchain)}, takes '
                        'that Debian\'s root), or "debian-13" for every arch: a Debian 13 root '
                        'made once in the cache (own build dirs)')
    p.add_argument('--ci', action='store_true',
                   help='a CI job, whose cache (ccache, trees, build dirs) outlives the job '
                        'but whose build dirs start empty: ccache from a build dir\'s first '
                        f'build on (default: on when ${CI_ENV} is set, as GitLab and GitHub '
                        'set it)')
    p.add_argument('--list-arches', action='store_true', help='print the arch table and exit')
    p.add_argument('--list-kernels', action='store_true',
                   help='print the kernel table and exit')
    return p


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    return parser().parse_args(argv)


def _progress(i: int, n: int, name: str, start: float) -> Any:
    def show(msg: str) -> None:
        say(f'[{i}/{n} {name}] {msg} ({fmt_seconds(time.monotonic() - start)})')
    return show


def select_arches(spec: Optional[str], boards: bool = False) -> List[arches.Arch]:
    if spec is not None and not spec.replace(',', '').strip():
        raise HarnessError(Exit.USAGE, f'--arch {spec!r} names no arch (an unset CI '
                           'variable?); name arches, or "all", or leave --arch out for the '
                           'default ones')
    try:
        selected = arches.select(spec, boards)
    except KeyError as e:
        names = ', '.join(a.name for a in arches.ARCHES)
        raise HarnessError(Exit.USAGE, f'unknown arch {e.args[0]!r}; known arches: {names}, '
                           'or "all"') from None
    if not selected:
        raise HarnessError(Exit.USAGE, '--arch names no arch')
    return selected


def _git_tree_hash(path: Path) -> str:
    return subprocess.run(['git', '-C', str(path), 'rev-parse', 'HEAD^{tree}'],
                          capture_output=True, text=True, check=False).stdout.strip()


def with_nics(selected: List[arches.Arch], spec: Optional[str]) -> List[arches.Arch]:
    """--drivers: the arches whose table entry gives their machine NICs."""
    have = [a for a in selected if a.nics]
    lacking = [a.name for a in selected if not a.nics]
    if lacking and spec not in (None, 'all'):
        raise HarnessError(Exit.USAGE, f'--drivers: {", ".join(lacking)} has no NICs in the '
                           'arch table; arches with NICs: '
                           f'{", ".join(a.name for a in arches.ARCHES if a.nics)}')
    if not have:
        raise HarnessError(Exit.USAGE, '--drivers: none of these arches has NICs in the table')
    if lacking:
        say(f'--drivers: left out, no NICs in the arch table: {", ".join(lacking)}')
    return have


def select_kernel(name: str) -> kernels.Kernel:
    try:
        return kernels.select(name)
    except KeyError:
        raise HarnessError(Exit.USAGE, f'--kernel {name!r}: not one of the Debian kernel source '
                           'packages this project knows '
                           f'({", ".join(k.name for k in kernels.KERNELS)}: --list-kernels); '
                           'for any other kernel, give its source tree with --tree PATH (a '
                           'git checkout or an unpacked tarball) instead of --kernel') from None


def tree_kernel(path: Path, version: str) -> kernels.Kernel:
    """The kernel whose series variants --tree @path of @version takes; a
    Makefile that does not say is taken to be current (the newest)."""
    if not version:
        return kernels.NEWEST
    try:
        return kernels.for_version(version)
    except ValueError:
        raise HarnessError(Exit.USAGE, f'--tree {path} is kernel {version} (its Makefile), '
                           'older than every kernel this project\'s series and tests are for '
                           f'({", ".join(k.name for k in kernels.KERNELS)}): name a tree of '
                           f'{kernels.KERNELS[0].name} or newer') from None


def results_root(cwd: Path) -> Path:
    """Where runs go without --out, and where the previous run is looked for:
    kunit-results/ here, or beside the kernel tree @cwd is in (a run never
    writes into a kernel tree; --tree is read, never written)."""
    for d in (cwd, *cwd.parents):
        if all((d / marker).is_file() for marker in tree.KERNEL_MARKERS):
            return d.parent / RESULTS
    return RESULTS


@dataclasses.dataclass(frozen=True)
class Plan:
    """The command line, checked: all of it is said before the cache is locked."""
    args: argparse.Namespace
    kernel: kernels.Kernel              # Debian's; for a --tree, whose series it takes
    user_tree: Optional[Path]           # --tree, a kernel tree
    arches: List[arches.Arch]
    known: List[known_failures.Rule]
    since: baseline.Option
    patches: List[patches.Given]         # --patches, read
    out: Path
    latest: Optional[Path]              # kunit-results/latest, without --out
    run_id: str
    results_root: Path                  # kunit-results/: the default --out, earlier runs
    version: str                        # the kernel tested: 6.12, a --tree's VERSION.PATCHLEVEL


def check_args(args: argparse.Namespace) -> Plan:
    """Every argument, before any package check, work or lock: exit 2."""
    kernel = select_kernel(args.kernel or kernels.DEFAULT.name)
    if args.tree and args.kernel:
        raise HarnessError(Exit.USAGE, '--tree and --kernel name two trees: give one')
    user_tree = tree.user_tree(args.tree) if args.tree else None
    version = tree.kernel_version(user_tree) if user_tree else kernel.name
    if user_tree:
        kernel = tree_kernel(user_tree, version)
    selected = select_arches(args.arch, boards=args.drivers)
    if args.drivers:
        selected = with_nics(selected, args.arch)
    if args.coverage:
        check_coverage(args, selected)
    given = patches.read(args.patches)
    if args.jobs < 1 or args.timeout < 1 or args.idle_timeout < 1:
        raise HarnessError(Exit.USAGE, '--jobs, --timeout and --idle-timeout take a positive '
                           'number')
    known = known_failures.from_option(args.expected, expected_suites(TESTS_DIR),
                                       declared_cases(TESTS_DIR), version)
    since = baseline.Option.parse(args.baseline)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime('%Y%m%d-%H%M%S')
    root = results_root(Path.cwd())
    out = outdir.check(args.out or root / stamp)
    latest = None if args.out else out.parent / 'latest'
    if latest:
        outdir.check_latest(latest)
    if root != RESULTS and not args.out:
        say(f'the current directory is in a kernel tree: the results go beside it, in '
            f'{out.parent} (--out DIR to choose)')
    return Plan(args=args, kernel=kernel, user_tree=user_tree, arches=selected, known=known,
                since=since, patches=given, out=out, latest=latest,
                run_id=args.run_id or f'local-{stamp}-{secrets.token_hex(3)}',
                results_root=root, version=version)


def check_coverage(args: argparse.Namespace, selected: Sequence[arches.Arch]) -> None:
    """--coverage: an /init of its own runs after the suites, so not with --debug's
    (the kmemleak scan), and only on arches that boot a QEMU whose /init can be built."""
    if args.debug:
        raise HarnessError(Exit.USAGE, '--coverage and --debug each boot an /init of their own '
                           'after the suites (the gcov dump, the kmemleak scan): give one')
    cannot = [a.name for a in selected
              if not a.qemu_binary or arches.builder(a).init_cflags is None]
    if cannot:
        able = [a.name for a in arches.ARCHES if a.qemu_binary and arches.builder(a).init_cflags
                is not None]
        raise HarnessError(Exit.USAGE, f'--coverage: no /init can print the counters on '
                           f'{", ".join(cannot)} (no QEMU, or no nolibc flags in its table '
                           f'entry: nolibc_cflags, coverage_cflags); arches that can: '
                           f'{", ".join(able)}')


def unbuildable(kernel: Optional[kernels.Kernel], arch: arches.Arch) -> Optional[HarnessError]:
    """Why Debian's tree of @kernel cannot build @arch, if it cannot (None: a --tree)."""
    why = dict(arch.not_built_by).get(kernel.name) if kernel else None
    if kernel is None or why is None:
        return None
    return HarnessError(Exit.ENVIRONMENT, f'{arch.name} cannot be built from '
                        f'{kernel.package}: {why}; run it with another --kernel')


def check_machine(plan: Plan) -> Tuple[Dict[str, HarnessError], toolchains.Toolchains]:
    """Packages, and what each arch needs here (from the toolchain it builds
    with): the arches that cannot run, and why. Exit 4 if none can, unless
    the expected file says so of each."""
    deps.ensure_packages(deps.BASE_PACKAGES
                         + deps.kernel_packages(None if plan.user_tree else plan.kernel)
                         + (deps.DEBUG_PACKAGES if plan.args.debug else ()), say)
    chains = toolchains.Toolchains(plan.args.toolchain, Cache(default_root()), say)
    # an arch the kernel cannot build is refused before its packages are installed
    debian = None if plan.user_tree else plan.kernel
    problems = {a.name: p for a in plan.arches
                if (p := unbuildable(debian, a) or chains.arch_problem(a)
                    or (coverage.gcov_missing(a, chains.for_arch(a)) if plan.args.coverage
                        else None))}
    # Nothing to build: stop here, unless every arch is one the expected
    # file says cannot run (a fan-out job for it must pass, with a report).
    unexpected = [p for name, p in problems.items()
                  if not known_failures.whole_arch(plan.known, name)]
    if len(problems) == len(plan.arches) and unexpected:
        raise unexpected[0]
    return problems, chains


@dataclasses.dataclass(frozen=True)
class ReadyTree:
    """The tree the kernels are built from, and what it was made of."""
    prepared: tree.PreparedTree
    base: tree.Base
    layers: List[tree.Layer]
    label: str                          # the base, the fixes it took and those it did not


def extra_layer(plan: Plan) -> List[tree.Layer]:
    """--patches, on top of the series: one layer, if any; then --coverage's
    Makefile lines (gcov_profile.py)."""
    extra = tuple(p for g in plan.patches for p in g.patches)
    return (([tree.Layer(EXTRA, extra=extra)] if extra else [])
            + ([tree.Layer(COVERAGE, gcov=gcov_profile.RECEIVE_FILES,
                           gcov_drivers=gcov_profile.driver_symbols())]
               if plan.args.coverage else []))


def check_patches_early(plan: Plan) -> None:
    """--patches on the tree an earlier run prepared from the same kernel and
    series, if the cache has one: exit 5 before any package is checked or
    installed. Otherwise (the first run, a --tree, whose snapshot is taken
    under the lock) they are checked when the tree is prepared, before any
    build."""
    if not plan.patches or plan.user_tree or not shutil.which('git'):
        return
    layers = series.layers(plan.kernel, TESTS_DIR, SERIES_DIR)
    extra = extra_layer(plan)[0].extra
    found = tree.earlier_trees(Cache(default_root()), f'{plan.kernel.package} ', layers)
    why = [(base, tree.applies(path, commit, extra)) for base, commit, path in found]
    if why and all(w for _, w in why):
        base, first = why[0]
        raise HarnessError(Exit.PATCH, f'{first}: it must apply on {base} + the series '
                           f'{series.describe_layers(layers)} (checked on the tree an earlier '
                           'run prepared; run-kunit --help, --patches)')


def tree_label(base: tree.Base, layers: List[tree.Layer], given: List[patches.Given],
               run: Sequence[arches.Arch], skipped: Sequence[tree.PatchOutcome] = ()) -> str:
    """What the run tested, for humans and reports: the base, the fixes Debian's
    tree took (those for the arches @run by subject, the others counted), the
    series on it, the fixes a --tree did not take and why, and --patches by name."""
    return (base.label + series.fixes_label(layers[0].patches, run)
            + f' + series {series.describe_layers(layers[1:len(series.SERIES)], skipped)}'
            + ''.join(f' + skipped {o.describe()}' for o in skipped)
            + (f' + --patches {patches.title(given)}' if given else ''))


def prepare_tree(plan: Plan, cache: Cache, ours: List[Path]) -> ReadyTree:
    """Base + our series + our tests + --patches, as git commits (exit 5: a patch
    did not apply)."""
    base = (tree.user_base(plan.user_tree, ours) if plan.user_tree
            else tree.debian_base(plan.kernel, cache, say))
    layers = series.layers(plan.kernel, TESTS_DIR, SERIES_DIR, debian=not plan.user_tree)
    if plan.user_tree:
        say(f'--tree is kernel {plan.version or "? (its Makefile does not say)"}: the series '
            f'for {plan.kernel.name}, each fix where it applies and is not in the tree already')
    say(f'tree: {tree_label(base, layers, plan.patches, plan.arches)}')
    for g in plan.patches:
        if g.left_out:
            say(f'--patches {g.path}: left out, no patch of the series (replies, mails '
                f'without a diff): {"; ".join(g.left_out)}')
    try:
        prepared = tree.prepare(cache, base, layers + extra_layer(plan), say)
    except HarnessError as e:
        if e.status != Exit.PATCH or not e.message.startswith('--patches '):
            raise       # not one of --patches (a patch of our series names its directory)
        raise HarnessError(Exit.PATCH, f'{e.message}: it must apply on '
                           f'{tree_label(base, layers, [], plan.arches)} (run-kunit --help, --patches)') from None
    say(f'tree ready: {prepared.path} at {prepared.head[:12]}'
        + (' (unchanged)' if prepared.reused else ''))
    return ReadyTree(prepared=prepared, base=base, layers=layers + extra_layer(plan),
                     label=tree_label(base, layers, plan.patches, plan.arches,
                                      prepared.skipped)
                     + (' + gcov for the receive files (--coverage)' if plan.args.coverage
                        else ''))


def booted_suites(plan: Plan, ready: ReadyTree) -> str:
    """kunit.py's filter glob: every suite the tests in the tree declare, but
    the other kind's (--drivers or not)."""
    return suite_glob(expected_suites(ready.prepared.path / tree.TESTS_DEST), plan.args.drivers)


def run_settings(plan: Plan, ready: ReadyTree, cache: Cache, lock: Lock,
                 chains: toolchains.Toolchains) -> RunSettings:
    """How kunit.py builds and boots every arch of this run."""
    args = plan.args
    # a --tree keeps the cuts of the kernel its version takes the series of
    # (6.1's ptp_vclock.c needs SRCU, which an inotify cut leaves unbuilt)
    kept = plan.kernel.slim_kept
    glob = booted_suites(plan, ready)
    return RunSettings(tree=ready.prepared.path, cache=cache, base_id=ready.base.base_id,
                       profile=Profile(slim=not args.no_slim, debug=args.debug,
                                       coverage=args.coverage),
                       slim_kept=kept, jobs=args.jobs, timeout=args.timeout,
                       idle_timeout=args.idle_timeout, drivers=args.drivers, lock=lock,
                       toolchains=chains, ccache_first_build=in_ci(args),
                       filter_glob=glob)


def in_ci(args: argparse.Namespace) -> bool:
    """--ci, or $CI set (not "false"): a job whose cache is restored from the last
    pipeline's, where a first build's objects are the next pipeline's hits."""
    return bool(args.ci) or os.environ.get(CI_ENV, '').lower() not in ('', '0', 'false')


def run_arches(plan: Plan, problems: Dict[str, HarnessError], settings: RunSettings,
               staging: outdir.Staging) -> Tuple[List[Verdict], str]:
    """Build, boot and judge each arch in turn. On SIGINT, SIGTERM, SIGHUP or
    SIGQUIT (cli.STOPPING), the arches
    that finished are kept and the rest marked infra, with why; once one
    finished, nothing removes the staging directory."""
    partial = staging.path
    j = judging(settings.tree)
    verdicts: List[Verdict] = []
    try:
        for i, a in enumerate(plan.arches, 1):
            show = _progress(i, len(plan.arches), a.name, time.monotonic())
            with interruptible():
                if a.name in problems:
                    (partial / a.name).mkdir()
                    v = Verdict(arch=a.name, problems=[Problem(ProblemKind.UNRUNNABLE,
                                                               problems[a.name].message)])
                else:
                    # the results directory is renamed into place at the end:
                    # the verdict names the logs where they will be
                    v = run_and_judge(a, settings, j, partial / a.name, show,
                                      logs_in=plan.out / a.name)
            v.toolchain = settings.toolchain(a).describe(a)
            show(f'toolchain {v.toolchain}')
            known_failures.apply(v, plan.known)
            show(f'{v.status.value}: {tables.why(v)}')
            verdicts.append(v)
            staging.keep()
    except KeyboardInterrupt:   # Ctrl-C, or another of cli.STOPPING
        if not verdicts:
            raise               # nothing complete: the partial directory goes
        interrupted = (f'interrupted ({SIGNALS.last or "SIGINT"}) after {len(verdicts)} of '
                       f'{len(plan.arches)} arches')
        done = {v.arch for v in verdicts}
        return verdicts + [Verdict(arch=a.name, problems=[Problem(
            ProblemKind.NO_RESULTS, f'{a.name}: {interrupted}: no complete results')])
            for a in plan.arches if a.name not in done], interrupted
    return verdicts, ''


def reproducer(plan: Plan) -> str:
    """The command that runs this run again, as TuxRun prints one: the tree, the
    arches, --patches, and each option that changes what is built or judged;
    every file by its absolute name, as the command is run from rx-align's top."""
    args = plan.args
    cmd = [f'scripts/{PROG}']
    cmd += ['--tree', str(plan.user_tree)] if plan.user_tree else ['--kernel', plan.kernel.name]
    cmd += ['--arch', ','.join(a.name for a in plan.arches)]
    if plan.patches:
        cmd += ['--patches', *(str(g.path.resolve()) for g in plan.patches)]
    cmd += [flag for flag, on in (('--debug', args.debug), ('--drivers', args.drivers),
                                  ('--no-slim', args.no_slim), ('--coverage', args.coverage))
            if on]
    if args.expected:
        cmd += ['--expected', str(args.expected.resolve())]
    if args.toolchain != toolchains.HOST:
        cmd += ['--toolchain', args.toolchain]
    # a guest stopped sooner or later is judged a hang or a timeout sooner or later
    cmd += [f'{opt}={value}' for opt, value, default in (
        ('--timeout', args.timeout, TIMEOUT_DEFAULT),
        ('--idle-timeout', args.idle_timeout, IDLE_DEFAULT)) if value != default]
    return shlex.join(cmd)


def describe(plan: Plan, ready: ReadyTree) -> RunMeta:
    """What this run tests, known before any build (its baseline is chosen by it)."""
    prepared = ready.prepared
    return RunMeta(tree=ready.label, head=prepared.head, base_commit=prepared.base_commit,
                   tree_hash=_git_tree_hash(prepared.path),
                   series=hashlib.sha256(''.join(layer.own_key() for layer in ready.layers)
                                         .encode()).hexdigest(),
                   run_id=plan.run_id, arches=tuple(a.name for a in plan.arches),
                   finished='', kernel=plan.version,
                   patches=tuple(f'{p.name} {hashlib.sha256(p.text).hexdigest()}'
                                 for g in plan.patches for p in g.patches),
                   command=reproducer(plan), rxalign=checkout.commit(),
                   suites=booted_suites(plan, ready))


def record(meta: RunMeta, verdicts: List[Verdict], interrupted: str) -> Results:
    """The run's results: what was tested, and each arch's verdict."""
    finished = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')
    return Results(runs=[dataclasses.replace(meta, finished=finished, interrupted=interrupted)],
                   arches={v.arch: v for v in verdicts})


def write_results(partial: Path, results: Results,
                  comparison: Optional[baseline.Comparison]) -> None:
    """Each arch's verdict.json, then the reports of the whole run."""
    for v in results.arches.values():
        (partial / v.arch).mkdir(exist_ok=True)
        report.atomic_write(partial / v.arch / 'verdict.json',
                            json.dumps(v.to_json(), indent=1) + '\n')
    report.write_all(partial, results, comparison=comparison)


def finish(plan: Plan, results: Results, comparison: Optional[baseline.Comparison],
           interrupted: str) -> int:
    """The terminal table, where the results are, each arch's cause; the exit status."""
    out = plan.out
    say('')
    say(report.terminal_table(results))
    say('')
    say(f'results: {out}/report.md (also report.html, junit.xml, results.json, kcidb.json)')
    if comparison:
        say(f'{comparison.summary()} ({comparison.where})')
    for v in results.arches.values():
        if v.status == ArchStatus.KNOWN:
            say(f'{PROG}: known, not gating: {v.cause}')
        elif v.status != ArchStatus.PASSED:
            error(v.cause)
    if interrupted:
        error(f'{interrupted}; the results of the arches that finished are kept in {out}, '
              'marked partial')
        return int(Exit.INTERRUPTED)
    return int(results.gate())


def run(args: argparse.Namespace) -> int:
    """The stages in order: arguments (2), this machine (4), then under the
    cache lock (6): the tree (5), the baseline, each arch (3 and 1), results
    and reports into a staging directory renamed onto --out (9); then what
    it all says.  Ctrl-C (or SIGTERM, SIGHUP, SIGQUIT) stops the tree or an arch
    at once; at any other time it is held until the finished arches' results
    are in place."""
    plan = check_args(args)
    check_patches_early(plan)
    problems, chains = check_machine(plan)
    cache = Cache(default_root())
    with deferred() as signals:
        with Lock(cache) as lock, outdir.Staging(plan.out) as staging:
            ours = [cache.root, plan.out, staging.path] + \
                ([plan.out.parent] if plan.latest else [])
            with interruptible():
                ready = prepare_tree(plan, cache, ours)
            meta = describe(plan, ready)
            # before any build: a baseline that cannot be read is a warning
            then = plan.since.choose(meta, plan.results_root, warn)
            if then:
                # where it is from the results: `scripts/report` of them compares again
                meta = dataclasses.replace(meta, baseline=os.path.relpath(
                    Path(then[0]).resolve(), plan.out.resolve()))
            for v in (then[1].arches.values() if then else ()):
                known_failures.apply(v, plan.known)     # both judged by the same rules
            where = staging.path
            try:
                verdicts, interrupted = run_arches(
                    plan, problems, run_settings(plan, ready, cache, lock, chains), staging)
                results = record(meta, verdicts, interrupted)
                comparison = baseline.compare(results, then[1], then[0]) if then else None
                write_results(staging.path, results, comparison)
            except Exception:
                if staging.kept:
                    error(f'the results of the arches that finished are kept in {where}; '
                          'the reports may be incomplete or missing')
                raise
            staging.commit()
        if plan.latest:
            outdir.point_latest(plan.latest, plan.out)
        status = finish(plan, results, comparison, interrupted)
    if signals.pending and not interrupted:
        error(f'{signals.pending} came after every arch had finished: the results are '
              f'complete in {plan.out}')
        return int(Exit.INTERRUPTED)
    return status


def warn(msg: str) -> None:
    print(f'{PROG}: warning: {msg}', file=sys.stderr, flush=True)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.list_kernels:
        say(fmt.columns([('kernel', 'default', 'Debian package', 'where Debian ships it')] + [
            (k.name, 'default' if k.default else '', k.package, k.release)
            for k in kernels.KERNELS]))
        return 0
    if args.list_arches:
        say(fmt.columns([('arch', 'default', 'policy', '--drivers NICs: driver (QEMU device)')]
                        + [(a.name, 'default' if a.default else '', a.policy,
                            ', '.join(n.driver + ('' if n.driver == n.qemu_device
                                                  else f' ({n.qemu_device})') for n in a.nics))
                           for a in arches.ARCHES]))
        return 0
    return run_main(PROG, lambda: run(args), 'interrupted before any arch finished; the '
                    'partial results were removed, the next run starts clean')


if __name__ == '__main__':
    sys.exit(main())
