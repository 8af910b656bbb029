"""`python3 -m rxalign.deps_main PKG...`: install what is missing (scripts/lib.sh)."""

from __future__ import annotations

import sys
from typing import Sequence

from .cli import run_main
from .deps import ensure_packages
from .exitcodes import HarnessError


def main(argv: Sequence[str]) -> int:
    """`python3 -m rxalign.deps_main PKG...`: what the shell entry points call."""
    try:
        ensure_packages(argv, print)
    except HarnessError as e:
        print(f'error: {e.message}', file=sys.stderr)
        return int(e.status)
    return 0


if __name__ == '__main__':
    sys.exit(run_main('deps', lambda: main(sys.argv[1:])))
