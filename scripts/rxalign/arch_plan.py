"""How each arch of a run is configured, built and booted: decided once, read by every step.

kunit.py makes one LinuxSourceTree from its arguments (the QEMU config, the
kunitconfig, the build dir) and its config, build and exec all read it.
run-kunit runs `kunit.py config`, its own make and `kunit.py exec` as
separate steps, so it makes the same decisions here, once per arch, in an
ArchPlan, and each step takes its arguments from that: the image make
builds is the image kunit.py boots (on 7.3 with --debug, make once built
mips's vmlinux while kunit.py booted the vmlinuz the tree's config names).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import List, Optional, Tuple

from .arches import ARCHES, Arch, builder
from .boot import Boot, boot, init_after_suites
from .cache import Cache, Lock
from .kconfig import Profile, arch_lacks, fitted
from .toolchains import Toolchain, Toolchains, host_toolchain


@dataclasses.dataclass(frozen=True)
class RunSettings:
    tree: Path
    cache: Cache
    base_id: str
    jobs: int
    timeout: int
    # our fragments (slim, --debug: a kmemleak scan where the arch can)
    profile: Profile = Profile()
    slim_kept: Tuple[str, ...] = ()         # slim cuts this kernel keeps (kernels.py)
    idle_timeout: float = 60.0              # stop a guest silent this long, as hung
    drivers: bool = False                   # --drivers: the drivers suite, on the arch's NICs
    # kunit.filter_glob: the suites this run boots (declared.suite_glob); '' all built
    filter_glob: str = ''
    # the cache lock: every child inherits its fd, so the lock stays held while
    # any of them lives (a run-kunit killed by SIGKILL leaves them running)
    lock: Optional[Lock] = None
    toolchains: Optional[Toolchains] = None  # None: the machine's own (toolchains.py)
    # ccache in an empty build dir too (bench: its warm scenario reads what the
    # cold one stored; run-kunit --ci: the next pipeline's job does); by
    # default a first build skips it (build_env.py)
    ccache_first_build: bool = False

    def toolchain(self, arch: Arch) -> Toolchain:
        return self.toolchains.for_arch(arch) if self.toolchains else host_toolchain()


@dataclasses.dataclass(frozen=True)
class ArchPlan:
    """One arch of a run: what configures, builds and boots it."""
    arch: Arch                  # the entry booted
    builder: Arch               # the entry whose kernel it boots (itself, or its kernel_of)
    toolchain: Toolchain
    build_dir: Path
    kmemleak: bool              # --debug, where the arch's own config boots the /init scan
    configure: Boot             # the QEMU config `kunit.py config` reads: its kconfig joins .config
    boot: Boot                  # the QEMU config `kunit.py exec` boots
    # the image `configure` boots, any other an entry of the build dir boots,
    # and the device trees of the boards
    make_targets: Tuple[str, ...]
    # lines of our fragments the arch's Kconfig cannot have (KASAN on mips)
    lacks: Tuple[str, ...] = ()
    # --coverage: /init (scripts/initramfs/gcov-dump.c) prints the gcov counters
    # after KUnit; configure and boot are configs that run it
    coverage: bool = False

    @property
    def stamp_files(self) -> Tuple[Path, ...]:
        """The QEMU configs the config stamp reads: the one kunit.py config
        takes, and the builder's kmemleak one (whose change rebuilds as it
        always did)."""
        files = (self.configure.config_file, self.builder.qemu_config_path(True))
        return tuple(dict.fromkeys(f for f in files if f is not None))

    def kunitconfigs(self, fragments: List[Path], kept: Tuple[str, ...],
                     booting: bool) -> List[Path]:
        """--kunitconfig: our fragments less what the entry's Kconfig cannot
        make (kconfig.fitted, which writes its copies into the build dir)."""
        return fitted(self.arch if booting else self.builder, fragments,
                      (*kept, *self.lacks), self.build_dir)


def plan(arch: Arch, s: RunSettings) -> ArchPlan:
    """@arch's plan in the run @s: the only caller of boot() for a run."""
    tc = s.toolchain(arch)
    base = builder(arch)
    kmemleak = s.profile.debug and arch.kmemleak_qemu_config is not None
    configure = boot(base, s.tree, kmemleak)
    # make builds what the builder's config boots, and the image each entry
    # of the build boots if its config names another (sparc64-virtio boots
    # our sparc64.py's vmlinux where 7.3's sparc64.py boots arch/sparc/boot/image):
    # one command for every entry of the build dir ('all' builds every image
    # of the arch, as kunit.py's own build)
    sharing = [a for a in ARCHES if builder(a) is base]
    images = tuple(dict.fromkeys([configure.image, *(
        boot(a, s.tree, s.profile.debug and a.kmemleak_qemu_config is not None).image
        for a in sharing)]))
    dtbs = ('dtbs',) if any(a.dtb for a in sharing) else ()
    suffix = '-'.join(filter(None, (s.profile.build_suffix, tc.build_suffix)))
    build_dir = s.cache.build_dir(s.base_id, base.name, suffix)
    booted = boot(arch, s.tree, kmemleak)
    lacks = arch_lacks(s.tree, base, s.profile.fragments(),
                       [c for c in [configure.config_file] if c])
    if s.profile.coverage:
        configure = init_after_suites(configure, build_dir, base.name)
        booted = init_after_suites(booted, build_dir, arch.name)
    return ArchPlan(arch=arch, builder=base, toolchain=tc, build_dir=build_dir,
                    kmemleak=kmemleak, configure=configure, boot=booted,
                    make_targets=(*(('all',) if 'all' in images else images), *dtbs),
                    lacks=lacks, coverage=s.profile.coverage)
