"""Each kernel's crash and report formats as its own source prints them.

fixtures/formats/<kernel>.txt holds, for every entry of rxalign.crashes that
the kernel prints, the lines of its source file that hold the entry's
literal ("file<TAB>line"), and the lines that give x86's trap oops its title.
The tests check the tables against these files on every machine, and compare
them with the tree where this machine has one (a run-kunit --kernel of it
prepared one, or its Debian package is installed).  After a kernel or the
tables change: `PYTHONPATH=scripts python3 scripts/tests/format_sources.py
KERNEL TREE` writes the kernel's file again from its tree.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from rxalign.crashes import CRASH_FORMATS, REPORT_FORMATS

FIXTURES = Path(__file__).resolve().parent / 'fixtures' / 'formats'
# x86's die() header: "%s: %04lx [#%d]..." of 6.1, "Oops: %s: ..." since 6.9
DIE_HEADER_FILE = 'arch/x86/kernel/dumpstack.c'
DIE_HEADER = re.compile(r'"((?:Oops: )?%s: %04lx \[#%d\](?:%s)*)\\n"')
# the title of a trap the header prints: exc_divide_error()'s
TRAP_TITLE = ('arch/x86/kernel/traps.c', '"divide error"')


def formats(kernel: str) -> List[Tuple[str, str]]:
    """(file, literal) of every format @kernel prints, and the trap title."""
    return sorted({(f.file, f.literal) for f in CRASH_FORMATS if kernel in f.kernels}
                  | {(f.source.split()[0], f.literal) for f in REPORT_FORMATS
                     if kernel in f.kernels} | {TRAP_TITLE})


def derive(tree: Path, kernel: str) -> List[str]:
    """The fixture's lines, read from @tree: each source line holding a literal."""
    found = set()
    for file, literal in formats(kernel):
        path = tree / file
        lines = path.read_text(errors='replace').splitlines() if path.is_file() else []
        found |= {f'{file}\t{ln.strip()}' for ln in lines if literal in ln}
    return sorted(found)


def fixture(kernel: str) -> List[str]:
    return (FIXTURES / f'{kernel}.txt').read_text().splitlines()


def unprinted(kernel: str, lines: Sequence[str]) -> List[str]:
    """The formats of @kernel that no line of @lines holds, as the tables say them."""
    return [f'{file}: {literal!r}' for file, literal in formats(kernel)
            if not any(ln.startswith(f'{file}\t') and literal in ln for ln in lines)]


def trap_oops(lines: Sequence[str]) -> Optional[str]:
    """The first line of a divide error's oops as the kernel of @lines prints
    it: its die() header, %s the trap's title, the flags left out."""
    headers = [m.group(1) for ln in lines if ln.startswith(f'{DIE_HEADER_FILE}\t')
               for m in [DIE_HEADER.search(ln)] if m]
    titles = [ln for ln in lines if ln.startswith(f'{TRAP_TITLE[0]}\t') and TRAP_TITLE[1] in ln]
    if len(headers) != 1 or not titles:
        return None
    line = headers[0].replace('%s', TRAP_TITLE[1].strip('"'), 1)
    return line.replace('%04lx', '0000').replace('%d', '1').replace('%s', '')


def main(argv: Sequence[str]) -> int:
    if len(argv) != 2:
        print('usage: format_sources.py KERNEL TREE', file=sys.stderr)
        return 2
    kernel, tree = argv[0], Path(argv[1])
    lines = derive(tree, kernel)
    missing = unprinted(kernel, lines)
    if missing:
        print(f'{tree} does not print:\n' + '\n'.join(missing), file=sys.stderr)
        return 1
    FIXTURES.mkdir(exist_ok=True)
    (FIXTURES / f'{kernel}.txt').write_text(''.join(f'{ln}\n' for ln in lines))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
