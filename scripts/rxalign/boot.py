"""Which QEMU config boots an arch: the tree's own kunit.py config, or ours.

A newer kunit.py carries configs for arches ours were written for (7.3 has
mips, powerpc32, sparc64, ...): where the tree has one, the tree's is used,
so a run tests what the tree's maintainers boot; ours only where the tree
has none, or where Debian 12's QEMU cannot boot the tree's (the arch's
`own_config` says why).  The image QEMU boots is the config's kernel_path,
so the make target follows the config.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import Optional

from .arches import Arch
from .exitcodes import Exit, HarnessError

TREE_CONFIGS = 'tools/testing/kunit/qemu_configs'
# make targets that produce the file a kernel_path names, by its basename
_IMAGES = ('vmlinux', 'vmlinuz', 'zImage', 'Image', 'image', 'bzImage')


class ConfigSource(str, enum.Enum):
    TREE = 'tree'       # the tree's own tools/testing/kunit/qemu_configs/
    OURS = 'ours'       # scripts/qemu_configs/


@dataclasses.dataclass(frozen=True)
class Boot:
    kunit_arg: str              # --arch=NAME (the tree's config) or --qemu_config=PATH (ours)
    image: str                  # the make target of what QEMU boots
    source: ConfigSource        # whose config (build.log shows the kunit.py command)
    config_file: Optional[Path]  # the file that decides, for the build stamp


def tree_config(tree: Path, name: str) -> Optional[Path]:
    path = tree / TREE_CONFIGS / f'{name}.py'
    return path if path.is_file() else None


def image_of(config: Path) -> str:
    """The make target of a config's kernel_path ('all' when it names none we know)."""
    m = re.search(r"kernel_path\s*=\s*'([^']+)'", config.read_text())
    name = Path(m.group(1)).name if m else ''
    return name if name in _IMAGES else 'all'


def boot(arch: Arch, tree: Path, kmemleak: bool = False) -> Boot:
    """How @arch boots from @tree: see the module comment."""
    ours = arch.qemu_config_path(kmemleak)
    if ours is None:
        return Boot(f'--arch={arch.kunit_arch}', arch.image, ConfigSource.TREE,
                    tree_config(tree, arch.kunit_arch))
    theirs = tree_config(tree, arch.name)
    if kmemleak or arch.own_config or theirs is None:
        return Boot(f'--qemu_config={ours}', arch.image, ConfigSource.OURS, ours)
    return Boot(f'--arch={arch.name}', image_of(theirs), ConfigSource.TREE, theirs)




# kunit.py appends " kunit_shutdown=reboot" to the config's command line: a
# trailing "--" hands it to /init as an argument, so the kernel goes on to
# run /init after KUnit (the --debug kmemleak config does the same by hand).
# A kunit_shutdown= of the config's own (sparc64.py: poweroff, before its
# "--") is dropped: the /init ends the machine.
COMMAND_LINE = re.compile(r"(kernel_command_line\s*=\s*)'([^'\\]*)'")
SHUTDOWN = re.compile(r'\s*\bkunit_shutdown=\S*')


def _kernel_part(line: str) -> str:
    """@line without a trailing "--" and without kunit_shutdown=."""
    kernel = line[:-len(' --')] if line.endswith(' --') else line
    return SHUTDOWN.sub('', kernel).strip()


def init_after_suites(b: Boot, build_dir: Path, name: str) -> Boot:
    """@b's QEMU config with its kernel command line ending in "--", written
    into @build_dir: the kernel runs /init after KUnit instead of rebooting."""
    text = b.config_file.read_text() if b.config_file else ''
    found = COMMAND_LINE.findall(text)
    if len(found) != 1:
        raise HarnessError(Exit.INFRA, f'--coverage: cannot make a QEMU config that runs /init '
                           f'after KUnit from {b.config_file or b.kunit_arg}: it has '
                           f'{len(found)} kernel_command_line=\'...\' assignments, not one; '
                           'give the arch a config of its own in scripts/qemu_configs/')
    derived = (f'# Written by rx-align from {b.config_file}: /init runs after KUnit.\n'
               + COMMAND_LINE.sub(lambda m: f"{m.group(1)}'{_kernel_part(m.group(2))} --'",
                                 text))
    path = build_dir / f'qemu-{name}-init.py'
    build_dir.mkdir(parents=True, exist_ok=True)
    if not path.is_file() or path.read_text() != derived:
        path.write_text(derived)     # rewritten only when it changes: the config stamp reads it
    return Boot(f'--qemu_config={path}', b.image, b.source, path)
