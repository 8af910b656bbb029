"""Exit statuses of every entry point and what each means, in one place.

The --help epilogs are made from MEANINGS (epilog()), the tables of
README.md and docs/exit-statuses.md by scripts/docs, and scripts/lib.sh's
EXIT_ names are held to Exit by a test.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Dict, Iterable


class Exit(enum.IntEnum):
    OK = 0
    TEST_FAILED = 1
    USAGE = 2
    INFRA = 3
    ENVIRONMENT = 4
    PATCH = 5
    BUSY = 6
    MISMATCH = 7
    FORMAT = 8
    NOT_PLACED = 9
    INTERNAL = 70       # sysexits' EX_SOFTWARE
    INTERRUPTED = 130


@dataclasses.dataclass(frozen=True)
class Meaning:
    brief: str          # a few words, for --help
    full: str           # a table cell of the docs: every case that ends so


MEANINGS: Dict[Exit, Meaning] = {
    Exit.OK: Meaning(
        'passed',
        'every requested (for `scripts/report`: every required) arch booted, ran every '
        'declared suite and case, and each passed or was skipped with a reason'),
    Exit.TEST_FAILED: Meaning(
        'a test failed',
        'a test case failed (a failure of its own log counts: an expectation that failed '
        'before its `# SKIP`, a frame it judged failed), or was skipped without a reason '
        '(results complete)'),
    Exit.USAGE: Meaning(
        'usage',
        'usage: unknown option or arch, an empty `--arch` (or `scripts/report --require`, '
        '`--run-id`), a `--baseline` that holds no results of run-kunit, a `--patches` file '
        'that is missing, empty or no patch (or a `[PATCH n/m]` in it without a diff, or a '
        'file of a `--patches` directory that would not be read), `--tree` that is no '
        'kernel tree (or one older '
        'than every kernel of `--list-kernels`), an `--out` '
        'that exists and is not empty (or is a file, or cannot be made), an `--expected` '
        'rule that names no arch or suite, a directory that holds no results of run-kunit '
        '(or a `results.json` with no arch)'),
    Exit.INFRA: Meaning(
        'results missing (build/boot/timeout/hang/crash/incomplete KTAP)',
        'results missing: config or build failed, no KTAP (no boot, wrong console), '
        'timeout, a hung guest (`--idle-timeout`), kernel crash or panic, truncated KTAP, '
        'a console that dropped messages after KTAP began (or a kmemleak report after its '
        'scan began), a declared suite or case absent, an arch `scripts/report --require`s '
        'that has no results'),
    Exit.ENVIRONMENT: Meaning(
        'environment',
        'environment: a Debian package, compiler, QEMU binary or firmware missing; disk '
        'full; an unknown `--kernel`; a kernel package that cannot be fetched (network, '
        'signatures, a version the archive removed) or whose `.deb` fails its checksum; '
        'an arch the kernel cannot build; a Debian 13 root that cannot be made'),
    Exit.PATCH: Meaning(
        'a patch did not apply',
        'a patch of `kernel-patches/` or `--patches` did not apply (the message names the '
        'file); on a `--tree` only the tests, `tests-compat` and `--patches` must: a fix '
        'that does not apply there, or is in it already, is skipped and named'),
    Exit.BUSY: Meaning(
        'cache busy',
        'another run holds the cache lock'),
    Exit.MISMATCH: Meaning(
        'results that do not belong together (another tree, series or run; the same arch '
        'twice)',
        '`scripts/report`: results that do not belong together: of another tree, series or '
        'run (`--run-id`), or the same arch in two directories'),
    Exit.FORMAT: Meaning(
        'a results.json of a format this scripts/report does not know',
        '`scripts/report`: a `results.json` of a format it does not know (its `format` '
        'field; a file without one is format 1, older run-kunit)'),
    Exit.NOT_PLACED: Meaning(
        'results complete but --out taken (kept where the message says)',
        'the results are complete but could not be put at `--out` (another run took the '
        'name, the rename failed): they are kept where they were written, and the message '
        'names that directory'),
    Exit.INTERNAL: Meaning(
        'internal error',
        'internal error: a bug of the harness, with its traceback (never 0 or 1, which a CI '
        'would read as a verdict on the kernel)'),
    Exit.INTERRUPTED: Meaning(
        'interrupted',
        'interrupted (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT): the arches that finished keep their results at '
        '`--out`, marked partial (`meta.interrupted`; the others are infra, "interrupted"); '
        'with none finished, the partial results directory is removed'),
}


def epilog(statuses: Iterable[Exit]) -> str:
    """The exit statuses an entry point ends with, for its --help."""
    return 'exit status: ' + ', '.join(f'{int(s)} {MEANINGS[s].brief}' for s in statuses)


class HarnessError(Exception):
    """An error that ends the run with a given status and a one-line cause."""

    def __init__(self, status: Exit, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
