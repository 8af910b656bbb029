"""What Kbuild builds a source file with: the Kconfig symbol its Makefile names."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

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
