"""scripts/bench: plain kunit.py against our harness, side by side, one machine.

Scenarios, for the selected arches together:
  cold         empty build dirs and an empty ccache
  warm         empty build dirs, ccache filled by the cold run
  incremental  one line of the test module changed: tree update, build, boot, verdict
  no-op        nothing changed: the whole run again
Ours goes through ccache in every scenario here, the first builds too, so
that warm has something to read; run-kunit compiles a first build without
it (build_env.py), so its own first run costs less than cold here.
Plain kunit.py is the tree's own `kunit.py run` with our kunitconfig, no
ccache, no slim layer, booting the QEMU config the arch's plan boots
(arch_plan.py: the tree's own where it has one and Debian's QEMU boots
it, else ours).  Both are run and judged as run-kunit runs and judges an
arch (arch_verdict.py): every run of ours must give the results plain
kunit.py gives (the same cases with the same statuses, the same policy
facts), or the bench fails: a faster build that tests something else is
no speed-up.  It is a benchmark, not a test: CI does not run it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .kernels import DEFAULT, Kernel
from . import arches, deps, kernels, series, tree
from .arch_plan import KUNIT_PY, ArchPlan, RunSettings, plan
from .arch_verdict import judge_run, judging, run_and_judge
from .cache import Cache
from .cli import run_main
from .declared import expected_suites, suite_glob
from .exitcodes import Exit, HarnessError
from .paths import KUNITCONFIG, TESTS_DIR
from .results import ArchRun, Verdict

SCENARIOS = ('cold', 'warm', 'incremental', 'no-op')


Results = Tuple[str, Tuple[Tuple[str, str], ...], Tuple[Tuple[str, str], ...]]


def results(v: Verdict) -> Results:
    """What a run found, timings and logs aside: verdict, every case and status, the facts."""
    return (v.status, tuple(sorted((c.name, c.status) for c in v.cases)),
            tuple(sorted(v.facts.items())))


def differences(plain: Results, ours: Results, most: int = 8) -> List[str]:
    """What differs between plain kunit.py's results and ours: the verdict,
    each case whose status differs or that one side lacks, each fact."""
    found = ([f'verdict: plain {_shown(plain[0])}, ours {_shown(ours[0])}']
             if plain[0] != ours[0] else [])
    for kind, a, b in (('case', dict(plain[1]), dict(ours[1])),
                       ('fact', dict(plain[2]), dict(ours[2]))):
        found += [f'{kind} {name}: plain {_shown(a.get(name))}, ours {_shown(b.get(name))}'
                  for name in sorted(set(a) | set(b)) if a.get(name) != b.get(name)]
    return found[:most] + ([f'and {len(found) - most} more'] if len(found) > most else [])


def _shown(value: object) -> str:
    if value is None:
        return 'absent'
    return str(getattr(value, 'value', value))


def summary(v: Verdict) -> str:
    """One arch's verdict in the bench's notes: arch=status/N pass/M skip."""
    return f'{v.arch}={v.status.value}/{v.count("PASS")} pass/{v.count("SKIP")} skip'


# The incremental scenario's edit: a second space after the facts line's
# prefix changes the test module and none of its results (console.py
# splits the line's key=value pairs on any white space).
FACTS_LINE = 'rx_align_facts: '


def facts_source(tests: Path) -> Path:
    """The C file of @tests that prints the facts line: found, not named, so
    that a file split or renamed does not break the bench after an hour of
    cold builds (it once opened rx_align_kunit.c, gone by then)."""
    for src in sorted(tests.glob('*.c')):
        if FACTS_LINE in src.read_text():
            return src
    raise HarnessError(Exit.INTERNAL, f'no C file of {tests} prints "{FACTS_LINE}", the line '
                       'the incremental scenario edits: set bench.FACTS_LINE to what the '
                       'policy suite prints')


def touch_one_line(src: Path) -> None:
    src.write_text(src.read_text().replace(FACTS_LINE, FACTS_LINE + ' ', 1))


def plain_command(p: ArchPlan, src: Path, build: Path, jobs: int) -> List[str]:
    """The tree's `kunit.py run` for @p's arch, with the QEMU config its plan boots."""
    cmd = [sys.executable, str(src / KUNIT_PY), 'run', f'--build_dir={build}',
           f'--kunitconfig={KUNITCONFIG}', f'--jobs={jobs}', p.boot.kunit_arg]
    if p.arch.cross_compile:
        cmd.append(f'--cross_compile={p.arch.cross_compile}')
    return cmd


def _plain(p: ArchPlan, src: Path, build: Path, jobs: int) -> float:
    """One `kunit.py run`; a run that does not end in passing tests is an error."""
    build.mkdir(parents=True, exist_ok=True)
    cmd = plain_command(p, src, build, jobs)
    env = {k: v for k, v in os.environ.items() if not k.startswith('CCACHE')}
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=src, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'plain kunit.py failed for {p.arch.name}:\n'
                           + (proc.stdout + proc.stderr)[-2000:])
    return time.monotonic() - start


def settings(src: Path, cache: Cache, base: tree.Base, kernel: Kernel, tests: Path,
             jobs: int) -> RunSettings:
    """How ours builds and boots: as run-kunit does, the suites of @tests but
    the drivers suite (no NICs here), ccache from the first build on."""
    return RunSettings(tree=src, cache=cache, base_id=base.base_id, slim_kept=kernel.slim_kept,
                       filter_glob=suite_glob(expected_suites(tests), False),
                       jobs=jobs, timeout=300, ccache_first_build=True)


def _ours(selected: List[arches.Arch], cache: Cache, base: tree.Base, kernel: Kernel,
          tests: Path, jobs: int, out: Path) -> Tuple[float, List[Verdict]]:
    """Tree update + build + boot + verdict for every arch, as run-kunit does it."""
    start = time.monotonic()
    prepared = tree.prepare(cache, base, series.layers(kernel, tests), lambda m: None)
    s = settings(prepared.path, cache, base, kernel, tests, jobs)
    j = judging(prepared.path)
    verdicts = [run_and_judge(a, s, j, out / a.name, lambda m: None) for a in selected]
    return time.monotonic() - start, verdicts


def _reference(selected: List[arches.Arch], cache: Cache, base: tree.Base, kernel: Kernel,
               tests: Path, jobs: int, work: Path) -> Tuple[Dict[str, float], Dict[str, Results]]:
    """Plain kunit.py, cold then no-op, on the tree prepared once before the
    clock; the results of its last run of each arch, judged as ours are."""
    src = tree.prepare(cache, base, series.layers(kernel, tests), print).path
    s = settings(src, cache, base, kernel, tests, jobs)
    plans = [plan(a, s) for a in selected]
    seconds: Dict[str, float] = {}
    for scenario in ('cold', 'no-op'):
        print(f'plain kunit.py, {scenario}', flush=True)
        seconds[scenario] = sum(_plain(p, src, work / 'plain' / p.arch.name, jobs)
                                for p in plans)
    j = judging(src)
    return seconds, {a.name: results(judge_run(
        ArchRun(arch=a.name, ktap_log=work / 'plain' / a.name / 'test.log',
                build_dir=work / 'plain' / a.name), a, s, j)) for a in selected}


def table(title: str, plain: Dict[str, float], ours: Dict[str, float],
          notes: List[str]) -> str:
    """bench.md: the seconds of each scenario, then the verdicts."""
    rows = [f'# scripts/bench: {title}', '',
            '| scenario | plain kunit.py (s) | rx-align (s) | ratio |', '|---|---|---|---|']
    for s in SCENARIOS:
        pl = plain.get(s)
        rows.append(f'| {s} | {f"{pl:.0f}" if pl else "-"} | {ours[s]:.0f} | '
                    f'{f"{ours[s] / pl:.2f}" if pl else "-"} |')
    return '\n'.join(rows + ['', 'verdicts:', *notes]) + '\n'


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='bench', description=__doc__.split('\n')[0])
    p.add_argument('--arch', default=','.join(a.name for a in arches.default_arches()))
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    p.add_argument('--out', type=Path, default=Path('bench.md'))
    p.add_argument('--kernel', default=DEFAULT.name, choices=list(kernels.BY_NAME),
                   help='the Debian kernel to build (fetched into the bench\'s own cache)')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    selected = arches.select(args.arch)
    kernel = kernels.select(args.kernel)
    facts_c = facts_source(TESTS_DIR).name     # before any work
    deps.ensure_packages(deps.build_packages(selected) + deps.kernel_packages(kernel), print)
    work = Path(tempfile.mkdtemp(prefix='rx-align-bench-'))
    try:
        return _bench(args, selected, kernel, facts_c, work)
    finally:        # its cache and builds: gigabytes, of no use once it ended
        shutil.rmtree(work, ignore_errors=True)


def _bench(args: argparse.Namespace, selected: List[arches.Arch], kernel: Kernel, facts_c: str,
           work: Path) -> int:
    """Every scenario, ours against plain kunit.py's results; bench.md."""
    cache = Cache(work / 'cache')
    base = tree.debian_base(kernel, cache, print)
    tests = work / 'kunit-tests'
    shutil.copytree(TESTS_DIR, tests)
    ours: Dict[str, float] = {}
    notes: List[str] = []
    # Tree preparation is the same for both and done once, before the clock.
    plain, reference = _reference(selected, cache, base, kernel, tests, args.jobs, work)
    same = True

    for scenario in SCENARIOS:
        if scenario == 'cold':
            shutil.rmtree(cache.ccache, ignore_errors=True)
        if scenario in ('cold', 'warm'):
            shutil.rmtree(cache.builds, ignore_errors=True)
        if scenario == 'incremental':
            touch_one_line(tests / facts_c)
        print(f'ours, {scenario}', flush=True)
        ours[scenario], verdicts = _ours(selected, cache, base, kernel, tests, args.jobs,
                                         work / 'results' / scenario)
        differ = [v.arch for v in verdicts if results(v) != reference[v.arch]]
        same = same and not differ
        notes.append(f'- {scenario}: ' + ', '.join(summary(v) for v in verdicts)
            + ('; results as plain kunit.py\'s' if not differ
               else f'; DIFFERENT from plain kunit.py: {", ".join(differ)}'))
        notes += [f'  - {v.arch}: {d}' for v in verdicts
                  for d in differences(reference[v.arch], results(v))]

    text = table(f'{base.label}, {", ".join(a.name for a in selected)}, {args.jobs} jobs',
                 plain, ours, notes)
    args.out.write_text(text)
    print(text)
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(run_main('bench', main))
