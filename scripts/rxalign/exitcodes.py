"""Exit statuses of every entry point, in one place; the README quotes them."""

from __future__ import annotations

import enum


class Exit(enum.IntEnum):
    OK = 0              # every requested arch booted, ran every suite, passed
    TEST_FAILED = 1     # a test case failed (results are complete)
    USAGE = 2           # bad option or unknown arch
    INFRA = 3           # results missing: build failed, no boot, timeout,
                        # crash mid-suite, incomplete KTAP, vanished suite
    ENVIRONMENT = 4     # missing package, tool or firmware; disk full
    PATCH = 5           # a patch of the series or of --patches did not apply
    BUSY = 6            # another run holds the cache lock
    INTERRUPTED = 130   # Ctrl-C


class HarnessError(Exception):
    """An error that ends the run with a given status and a one-line cause."""

    def __init__(self, status: Exit, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
