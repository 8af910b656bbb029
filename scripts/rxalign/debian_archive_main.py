"""`python3 -m rxalign.debian_archive_main [VERSION]`: the path of a kernel's
Debian tarball, fetched into the cache if need be (scripts/checkpatch)."""

from __future__ import annotations

import sys
from typing import Sequence

from .cache import Cache, default_root
from .cli import run_main
from .debian_archive import tarball
from .exitcodes import Exit, HarnessError
from .kernels import BY_NAME, NEWEST


def main(argv: Sequence[str]) -> int:
    """`python3 -m rxalign.debian_archive_main VERSION`: the path of that kernel's tarball."""
    name = argv[0] if argv else NEWEST.name
    if name not in BY_NAME or len(argv) > 1:
        raise HarnessError(Exit.USAGE, f'usage: debian_archive [{"|".join(BY_NAME)}]')
    print(tarball(BY_NAME[name], Cache(default_root()), lambda m: print(m, file=sys.stderr)).path)
    return 0


if __name__ == '__main__':
    sys.exit(run_main('debian_archive', lambda: main(sys.argv[1:])))
