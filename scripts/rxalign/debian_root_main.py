"""The command line of debian_root (scripts/e2e-debian-13): make a Debian root, run in it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Sequence

from .cache import Cache, default_root
from .cli import run_main
from .debian_root import RELEASES, open_root
from .exitcodes import Exit, HarnessError


def main(argv: Sequence[str]) -> int:
    """`python3 -m rxalign.debian_root_main [--bare] RELEASE [CMD...]`: make the root (in
    $RXALIGN_CACHE/roots/); run CMD in it, in the current directory unless --bare."""
    bare = bool(argv) and argv[0] == '--bare'
    argv = argv[1:] if bare else argv
    if not argv or argv[0] not in RELEASES:
        raise HarnessError(Exit.USAGE, 'usage: debian_root [--bare] '
                           f'{"|".join(RELEASES)} [CMD...]')
    root = open_root(RELEASES[argv[0]], Cache(default_root()),
                     lambda m: print(m, file=sys.stderr), bare)
    if len(argv) == 1:
        print(root.path)
        return 0
    shutil.copyfile('/etc/resolv.conf', root.path / 'etc/resolv.conf')
    return subprocess.run(root.command(argv[1:], None if bare else Path.cwd()),
                          check=False).returncode


if __name__ == '__main__':
    sys.exit(run_main('debian_root', lambda: main(sys.argv[1:])))
