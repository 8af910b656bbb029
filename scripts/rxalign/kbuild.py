"""What Kbuild builds a source file with: the Kconfig symbol its Makefile names."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import List, Optional, Tuple

# kconfig_symbol()'s answer for an obj-y object: built whenever its directory is.
BUILTIN = 'y'


def kconfig_symbol(src: Path, path: str) -> Optional[str]:
    """FOO of obj-$(CONFIG_FOO) += file.o in the file's Makefile, BUILTIN for obj-y;
    for a part of a module of several objects (mod-objs := file.o ..., as
    tulip.o is made of tulip_core.o and others), the module's."""
    d, name = os.path.split(path)
    lines = (src / d / 'Makefile').read_text().replace('\\\n', ' ').splitlines()

    def listed(obj: str, text: str) -> bool:
        return re.search(rf'(?<![\w/.-]){re.escape(obj)}(?![\w.])', text) is not None

    def owner(obj: str) -> Optional[str]:
        for line in lines:
            m = re.match(r'\s*obj-(?:\$\(CONFIG_(\w+)\)|(y))\s*[:+]?=(.*)', line)
            if m and listed(obj, m.group(3)):
                return m.group(1) or BUILTIN
        return None

    obj = name[:-2] + '.o'
    if (sym := owner(obj)) is not None:
        return sym
    for line in lines:
        m = re.match(r'\s*([\w-]+)-(?:objs|y)\s*[:+]?=(.*)', line)
        if m and m.group(1) != 'obj' and listed(obj, m.group(2)):
            return owner(m.group(1) + '.o')
    return None


def _block(kconfig: str, sym: str) -> str:
    """The lines of `config SYM` in a Kconfig text, up to the next entry."""
    m = re.search(rf'^\s*(?:menu)?config\s+{sym}\s*$(.*?)(?=^\s*(?:menu)?config\s|^\s*end|^\s*menu\s|\Z)',
                  kconfig, re.M | re.S)
    return m.group(1) if m else ''


def arch_only(src: Path, path: str, sym: str) -> Optional[Tuple[str, str]]:
    """(the dependency, its arch) where `config SYM`, defined beside @path,
    depends on a symbol that only arch/<arch>/ defines: the file builds for
    that arch alone (xtsonic.c: XTENSA_PLATFORM_XT2000, xtensa); else None."""
    d = src / os.path.dirname(path)
    deps: List[str] = []
    for kconfig in sorted(d.glob('Kconfig*')):
        for line in _block(kconfig.read_text(errors='replace'), sym).splitlines():
            m = re.match(r'\s*depends\s+on\s+(.*)', line)
            # only a conjunction names what the symbol needs (`X || COMPILE_TEST` does not)
            if m and not re.search(r'\|\||!', m.group(1)):
                deps += re.findall(r'\b[A-Z][A-Z0-9_]*\b', m.group(1))
    for dep in deps:
        defined = re.compile(rf'^\s*(?:menu)?config\s+{dep}\s*$', re.M)
        where = {p.relative_to(src).parts[:2] for p in src.rglob('Kconfig*')
                 if p.is_file() and defined.search(p.read_text(errors='replace'))}
        if where and all(w[0] == 'arch' for w in where) and len(where) == 1:
            return dep, next(iter(where))[1]
    return None
