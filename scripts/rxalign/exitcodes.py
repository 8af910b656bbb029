"""Exit statuses of every entry point, in one place; the README quotes them."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    OK = 0              # every requested arch booted, ran every suite, passed
    TEST_FAILED = 1     # a test case failed, or skipped without a reason (results complete)
    USAGE = 2           # bad option, unknown arch, a file that is not what it should be
    INFRA = 3           # results missing: build failed, no boot, timeout, hang, crash,
                        # incomplete KTAP, vanished suite, an arch the merge requires
    ENVIRONMENT = 4     # missing package, tool or firmware; disk full
    PATCH = 5           # a patch of the series or of --patches did not apply
    BUSY = 6            # another run holds the cache lock
    MISMATCH = 7        # results that do not belong together: another tree, series or
                        # run, or the same arch twice
    FORMAT = 8          # scripts/report: a results file of a format it does not know
    NOT_PLACED = 9      # complete results that could not be put at --out: kept, the message
                        # says where
    INTERNAL = 70       # a bug of ours (sysexits' EX_SOFTWARE): never 0, never 1
    INTERRUPTED = 130   # Ctrl-C


class HarnessError(Exception):
    """An error that ends the run with a given status and a one-line cause."""

    def __init__(self, status: Exit, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
