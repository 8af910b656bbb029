"""One arch of a run, from its plan to its verdict: what run-kunit and bench share.

run_arch configures, builds and boots the arch as its plan says; the
verdict reads the console once with the tree's own parser, against the
suites the tests declare for the .config the kernel was built with;
kunit.json is written from the same parse; with --coverage, the counters
/init printed are read.  bench judges plain kunit.py's console by the same
rules (judge_run), so the two sides differ only in what ran.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType
from typing import Callable, FrozenSet, Optional

from . import coverage, ktap_log, site_coverage
from .arch_plan import RunSettings
from .arches import Arch
from .declared import expected_suites, module_functions, read_config, run_suites
from .exitcodes import Exit
from .kunit_driver import load_kunit_parser, run_arch, write_kunit_json
from .results import ArchRun, Problem, ProblemKind, Verdict
from .tree import TESTS_DEST
from .verdict import judge

Progress = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class Judging:
    """What every arch of a run is judged by: the tree's KTAP parser, and the
    tests the kernel was built from (those in the tree, even if kunit-tests/
    changes while the run goes on) with the functions they define."""
    parser: ModuleType
    tests: Path
    ours: FrozenSet[str]


def judging(tree: Path) -> Judging:
    tests = tree / TESTS_DEST
    return Judging(load_kunit_parser(tree / 'tools/testing/kunit'), tests,
                   module_functions(tests))


def run_and_judge(arch: Arch, s: RunSettings, j: Judging, out_dir: Path,
                  progress: Progress, logs_in: Optional[Path] = None) -> Verdict:
    """Build, boot and judge @arch; its logs, kunit.json (and coverage/) in
    @out_dir, named in the verdict as files of @logs_in (run-kunit renames
    its results directory into place at the end)."""
    result = run_arch(arch, s, out_dir, progress)
    v = judge_run(result, arch, s, j, out_dir, logs_in)
    if s.profile.coverage:
        read_coverage(arch, s, result, v, out_dir / 'coverage')
    return v


def judge_run(result: ArchRun, arch: Arch, s: RunSettings, j: Judging,
              out_dir: Optional[Path] = None, logs_in: Optional[Path] = None) -> Verdict:
    """@result's verdict: the suites the tests declare for its .config (all
    where it has none), but the other kind's (--drivers or not); the console
    parsed once, for the verdict and for kunit.json in @out_dir."""
    config = read_config(result.config) if result.config and result.config.is_file() else None
    suites = expected_suites(j.tests, config)
    declared = {name: suites[name] for name in run_suites(suites, s.drivers)}
    ktap = ktap_log.read(result.ktap_log, j.parser) if result.ktap_log else None
    v = judge(result, declared, j.parser, s.timeout, j.ours, logs_in=logs_in, ktap=ktap)
    if ktap and result.build_dir and out_dir:
        write_kunit_json(s.tree, ktap, out_dir / 'kunit.json', arch, result.build_dir)
    return v


def read_coverage(a: Arch, settings: RunSettings, result: ArchRun, v: Verdict,
                  out: Path) -> None:
    """--coverage: the counters /init printed, read by gcov into @out, each file's
    summary in @v; a dump missing, cut short or garbled is a problem of @v."""
    if not result.ktap_log or not result.build_dir or result.phase_failed:
        return      # no boot: its problem says so already
    try:
        lines = result.ktap_log.read_text(errors='replace').splitlines()
        files = coverage.collect(lines, a, settings.toolchain(a), result.build_dir,
                                 settings.tree, out)
    except coverage.CoverageError as e:
        v.problems.append(Problem(ProblemKind.UNRUNNABLE if e.status == Exit.ENVIRONMENT
                                  else ProblemKind.NO_COVERAGE, f'--coverage: {e.message}'))
        return
    v.coverage = [f.summary() for f in files]
    site_coverage.write(out, a.name, files, settings.tree)
