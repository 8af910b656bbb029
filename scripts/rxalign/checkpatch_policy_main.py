"""`python3 -m rxalign.checkpatch_policy_main [SERIES]`: checkpatch.pl's
arguments for a patch of SERIES (a source file without), one per line, for
scripts/checkpatch."""

from __future__ import annotations

import sys
from typing import Sequence

from .checkpatch_policy import arguments
from .cli import run_main
from .exitcodes import Exit, HarnessError


def main(argv: Sequence[str]) -> int:
    if len(argv) > 1 or (argv and argv[0].startswith('-')):
        raise HarnessError(Exit.USAGE, 'usage: checkpatch_policy [SERIES]')
    print('\n'.join(arguments(argv[0] if argv else '')))
    return 0


if __name__ == '__main__':
    sys.exit(run_main('checkpatch_policy', lambda: main(sys.argv[1:])))
