"""Which files a --coverage kernel builds with gcov, as Makefile lines of its tree.

Kbuild compiles an object with CFLAGS_GCOV when CONFIG_GCOV_KERNEL=y and
its Makefile says `GCOV_PROFILE_<obj>.o := y` (or `GCOV_PROFILE := y` for
the whole directory).  The lines go into the tree as one commit of its own
on top of everything else (tree.Layer.gcov), made from the tree itself:

- the receive files (RECEIVE_FILES), each by its path;
- each NIC driver of the arch table, by its Kconfig symbol: the Makefile
  under drivers/net/ that builds it (`obj-$(CONFIG_E1000) += e1000.o`), and
  for a driver of several objects (`e1000-objs := e1000_main.o ...`) each of
  them; a driver built as a directory of its own (`obj-$(CONFIG_X) += x/`)
  whose Makefile does not name the symbol again gets `GCOV_PROFILE := y`.

Without CONFIG_GCOV_KERNEL the lines change no command line: an object of
the normal build dirs would not be rebuilt for them.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Sequence, Tuple

from .arches import ARCHES

# The files of the receive path: where headroom is decided for every arch.
RECEIVE_FILES: Tuple[str, ...] = (
    'net/core/skbuff.c', 'net/core/gro.c', 'net/core/dev.c', 'net/core/xdp.c',
    'net/core/page_pool.c', 'net/core/filter.c',
    'drivers/net/veth.c', 'drivers/net/tun.c', 'drivers/net/virtio_net.c',
    'drivers/vhost/net.c',
)
DRIVERS_DIR = 'drivers/net'
COMMIT_MESSAGE = ('rx-align: build the receive files with gcov (run-kunit --coverage)\n\n'
                  'Not for upstream: the harness adds this commit on top of the series\n'
                  'when it measures which lines of the receive path ran.\n')

Log = Callable[[str], None]


class ProfileError(Exception):
    """A receive file the tree does not have: the message names it."""


def driver_symbols() -> Tuple[str, ...]:
    """The Kconfig symbol of every NIC driver of the arch table (a Nic's last
    kconfig entry is its driver's), in table order."""
    return tuple(dict.fromkeys(n.kconfig[-1] for a in ARCHES for n in a.nics))


@dataclasses.dataclass(frozen=True)
class Line:
    makefile: str               # tree-relative
    text: str                   # `GCOV_PROFILE_x.o := y` or `GCOV_PROFILE := y`


def _logical_lines(text: str) -> List[str]:
    """Makefile lines with their backslash continuations joined."""
    return re.sub(r'\\\n', ' ', text).splitlines()


def _components(lines: Sequence[str], stem: str) -> List[str]:
    """The objects of composite object @stem (`stem-objs := a.o b.o`,
    `stem-y += c.o`, `stem-$(CONFIG_X) += d.o`); [] when it is a plain one."""
    pattern = re.compile(rf'^\s*{re.escape(stem)}-(?:objs|y|\$\(CONFIG_\w+\))\s*[:+]?=(.*)$')
    found: List[str] = []
    for line in lines:
        m = pattern.match(line)
        if m:
            found += [w for w in m.group(1).split() if w.endswith('.o')]
    return found


def driver_lines(tree: Path, symbol: str) -> List[Line]:
    """The lines that build the driver of CONFIG_@symbol with gcov ([]: no
    Makefile under drivers/net/ builds it)."""
    pattern = re.compile(rf'^\s*obj-\$\(CONFIG_{re.escape(symbol)}\)\s*[:+]?=(.*)$')
    hits: List[Tuple[Path, List[str], str]] = []
    for mk in sorted((tree / DRIVERS_DIR).rglob('Makefile')):
        lines = _logical_lines(mk.read_text(errors='replace'))
        for line in lines:
            m = pattern.match(line)
            if m:
                hits += [(mk, lines, target) for target in m.group(1).split()]
    dirs_with_own = {mk.parent for mk, _, _ in hits}
    out: List[Line] = []
    for mk, lines, target in hits:
        rel = str(mk.relative_to(tree))
        if target.endswith('/'):
            sub = mk.parent / target
            if sub not in dirs_with_own and (sub / 'Makefile').is_file():
                out.append(Line(str((sub / 'Makefile').relative_to(tree)), 'GCOV_PROFILE := y'))
        elif target.endswith('.o'):
            stem = target[:-2]
            for obj in _components(lines, stem) or [target]:
                out.append(Line(rel, f'GCOV_PROFILE_{obj} := y'))
    return out


def source_line(tree: Path, source: str) -> Line:
    """The line that builds @source (tree-relative .c) with gcov."""
    path = tree / source
    if not path.is_file() or not (path.parent / 'Makefile').is_file():
        raise ProfileError(f'{source} (or the Makefile beside it) is not in the tree: '
                           'update RECEIVE_FILES in scripts/rxalign/gcov_profile.py')
    return Line(str(Path(source).parent / 'Makefile'), f'GCOV_PROFILE_{path.stem}.o := y')


def lines_for(tree: Path, sources: Iterable[str], symbols: Iterable[str],
              log: Log) -> List[Line]:
    """Every line, each once: the sources', then the drivers' (one the tree
    does not build is named in @log, not an error: an older tree)."""
    out = [source_line(tree, s) for s in sources]
    for symbol in symbols:
        found = driver_lines(tree, symbol)
        if not found:
            log(f'--coverage: no Makefile under {DRIVERS_DIR}/ builds CONFIG_{symbol}: '
                'not profiled')
        out += found
    return list(dict.fromkeys(out))


def write(tree: Path, lines: Sequence[Line]) -> List[str]:
    """Append @lines to their Makefiles; the Makefiles written."""
    by_file: Dict[str, List[str]] = {}
    for line in lines:
        by_file.setdefault(line.makefile, []).append(line.text)
    for makefile, texts in by_file.items():
        with open(tree / makefile, 'a', encoding='utf-8') as mk:
            mk.write('\n# rx-align --coverage\n' + ''.join(f'{t}\n' for t in texts))
    return sorted(by_file)
