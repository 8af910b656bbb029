"""How each arch of a run is configured, built and booted: decided once, read by every step.

kunit.py makes one LinuxSourceTree from its arguments (the QEMU config, the
kunitconfig, the build dir) and its config, build and exec all read it.
run-kunit runs `kunit.py config`, its own make and `kunit.py exec` as
separate steps, so it makes the same decisions here, once per arch, in an
ArchPlan, and each step takes its arguments from that: the image make
builds is the image kunit.py boots (on 7.3 with --debug, make once built
mips's vmlinux while kunit.py booted the vmlinuz the tree's config names).

The plan holds the whole of each command: the kunit.py arguments of config
and exec, the --kconfig_add lines, what shapes the QEMU command (panic=-1,
the NICs of --drivers, a board's device tree, the TCG-only QEMU first on
PATH) and make's.  Only the initramfs lines come later, from the guest
programs the run builds (initramfs.py).  run-kunit, bench and the tests
read the same plan.

Which QEMU config boots an arch: the tree's own kunit.py config, or ours.
A newer kunit.py carries configs for arches ours were written for (7.3 has
mips, powerpc32, sparc64, ...): where the tree has one, the tree's is used,
so a run tests what the tree's maintainers boot; ours only where the tree
has none, or where Debian 12's QEMU cannot boot the tree's (the arch's
`own_config` says why).  The image QEMU boots is the config's kernel_path,
so the make target follows the config: ours are read as the tree's are
(image_of); the arch table's `image` is the target only where kunit.py's
default config of the kernel arch boots it.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import re
import shlex
import shutil
import socket
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .arches import ARCHES, Arch, builder
from .build_env import build_env
from .cache import Cache, Lock
from .exitcodes import Exit, HarnessError
from .kconfig import Profile, arch_lacks, defined_here, fitted, kernel_kconfig, tree_symbols
from .toolchains import Toolchain, Toolchains, env_for, host_toolchain

KUNIT_PY = 'tools/testing/kunit/kunit.py'
KUNIT_GRACE = 30    # kunit.py's own --timeout is later than ours: ours decides
# The drivers suite takes over the NICs it is given (module parameter), by MAC
# address: their interface names follow the drivers' probe order.
MODULE = 'rx_align_drivers_kunit'    # the drivers suite's module: its parameters
NICS_PARAM = f'{MODULE}.nics'
# The helpers print a passing frame's rx_align_frame: line only when asked: the
# reports tabulate every frame, a plain kunit.py run shows the failing ones.
FRAME_LINES_ARG = '--kernel_args=rx_align_kunit_helpers.frame_lines=1'


# Which QEMU config boots an arch: the tree's own kunit.py config, or ours.
TREE_CONFIGS = 'tools/testing/kunit/qemu_configs'
# make targets that produce the file a kernel_path names, by its basename
_IMAGES = ('vmlinux', 'vmlinuz', 'vmlinux.elf', 'zImage', 'Image', 'image', 'bzImage')


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
        # the kmemleak config boots what kunit.py's default config does
        return Boot(f'--qemu_config={ours}', arch.image if kmemleak else image_of(ours),
                    ConfigSource.OURS, ours)
    return Boot(f'--arch={arch.name}', image_of(theirs), ConfigSource.TREE, theirs)




# kunit.py appends " kunit_shutdown=reboot" to the config's command line: a
# trailing "--" hands it to /init as an argument, so the kernel goes on to
# run /init after KUnit (the --debug kmemleak config does the same by hand).
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
    # kunit.py config's and exec's arguments: the build dir, our fragments, the
    # QEMU config, the compilers (kunit_args)
    config_args: Tuple[str, ...] = ()
    exec_args: Tuple[str, ...] = ()
    # --kconfig_add: the lines of every entry that boots this kernel
    # (kconfig.kernel_kconfig) whose symbol the tree defines; those it does
    # not are left out, and named in build.log
    kconfig_add: Tuple[str, ...] = ()
    kconfig_gone: Tuple[str, ...] = ()
    # kunit.py exec after the --kconfig_add lines: the timeout, the console,
    # panic=-1, the NICs (--drivers), the suites, the board's device tree
    exec_tail: Tuple[str, ...] = ()
    make_command: Tuple[str, ...] = ()   # the make `kunit.py build` would run
    # a kernel is in the build dir already (the stamps may skip its build;
    # a first build skips ccache, build_env.py)
    built: bool = False
    # the environment of kunit.py and make (build_env.py), in the toolchain's
    # locale, the TCG-only QEMU first on PATH (tcg_only)
    env: Dict[str, str] = dataclasses.field(default_factory=dict)

    @property
    def stamp_files(self) -> Tuple[Path, ...]:
        """The QEMU configs the config stamp reads: the one kunit.py config
        takes, and the builder's kmemleak one (whose change rebuilds as it
        always did)."""
        files = (self.configure.config_file, self.builder.qemu_config_path(True))
        return tuple(dict.fromkeys(f for f in files if f is not None))


def plan(arch: Arch, s: RunSettings) -> ArchPlan:
    """@arch's plan in the run @s: the only caller of boot() for a run."""
    tc = s.toolchain(arch)
    base = builder(arch)
    suffix = '-'.join(filter(None, (s.profile.build_suffix, tc.build_suffix)))
    build_dir = s.cache.build_dir(s.base_id, base.name, suffix)
    build_dir.mkdir(parents=True, exist_ok=True)
    built = kernel_built(build_dir)
    env = env_for(tc, build_env(s.cache, first_build=not built and not s.ccache_first_build))
    kmemleak = s.profile.debug and arch.kmemleak_qemu_config is not None
    configure, booted = boot(base, s.tree, kmemleak), boot(arch, s.tree, kmemleak)
    lacks = arch_lacks(s.tree, base, s.profile.fragments(),
                       [c for c in [configure.config_file] if c])
    # our fragments less what the entry's Kconfig cannot make (kconfig.fitted,
    # which writes its copies into the build dir): config as the builder,
    # exec as the entry booted
    kunitconfigs = [fitted(a, s.profile.fragments(), (*s.slim_kept, *lacks), build_dir)
                    for a in (base, arch)]
    kconfig_add, gone = defined_here(kernel_kconfig(arch, s.profile), tree_symbols(s.tree))
    if s.profile.coverage:
        configure = init_after_suites(configure, build_dir, base.name)
        booted = init_after_suites(booted, build_dir, arch.name)
    targets = make_targets(base, configure.image, s)
    wrappers = tcg_only(arch, s.cache, tc)
    if wrappers:
        env['PATH'] = f'{wrappers}:{env.get("PATH", "")}'
    return ArchPlan(arch=arch, builder=base, toolchain=tc, build_dir=build_dir,
                    kmemleak=kmemleak, configure=configure, boot=booted,
                    make_targets=targets, lacks=lacks, coverage=s.profile.coverage,
                    config_args=kunit_args(base, configure, build_dir, kunitconfigs[0]),
                    exec_args=kunit_args(arch, booted, build_dir, kunitconfigs[1]),
                    kconfig_add=tuple(kconfig_add), kconfig_gone=tuple(gone),
                    exec_tail=exec_tail(arch, s, build_dir),
                    make_command=make_command(base, targets, build_dir, s.jobs),
                    built=built, env=env)


def kernel_built(build_dir: Path) -> bool:
    return (build_dir / 'vmlinux').is_file() or (build_dir / 'linux').is_file()


def make_targets(base: Arch, image: str, s: RunSettings) -> Tuple[str, ...]:
    """make builds what the builder's config boots, and the image each entry
    of the build dir boots if its config names another (sparc64-virtio boots
    our sparc64.py's vmlinux where 7.3's sparc64.py boots arch/sparc/boot/image):
    one command for every entry of the build dir ('all' builds every image
    of the arch, as kunit.py's own build); `dtbs` where a board boots one."""
    sharing = [a for a in ARCHES if builder(a) is base]
    images = tuple(dict.fromkeys([image, *(
        boot(a, s.tree, s.profile.debug and a.kmemleak_qemu_config is not None).image
        for a in sharing)]))
    dtbs = ('dtbs',) if any(a.dtb for a in sharing) else ()
    return (*(('all',) if 'all' in images else images), *dtbs)


def kunit_args(arch: Arch, b: Boot, build_dir: Path,
               kunitconfigs: List[Path]) -> Tuple[str, ...]:
    """Arguments every kunit.py subcommand gets, so config and build agree:
    config as the entry that builds the kernel (@arch its builder, @b the
    config kunit.py config reads), exec as the one that boots it."""
    args = [f'--build_dir={build_dir}', *(f'--kunitconfig={k}' for k in kunitconfigs),
            b.kunit_arg]
    if arch.cross_compile:
        args.append(f'--cross_compile={arch.cross_compile}')
    return (*args, *(f'--make_options={o}' for o in make_options(arch)))


def make_options(arch: Arch) -> List[str]:
    """What make gets besides ARCH and O: the compilers, through ccache."""
    if not shutil.which('ccache'):
        return []
    return [f'CC=ccache {arch.cross_compile}gcc', 'HOSTCC=ccache gcc']


def make_command(base: Arch, targets: Tuple[str, ...], build_dir: Path,
                 jobs: int) -> Tuple[str, ...]:
    """The make `kunit.py build` runs (kunit_kernel.py), for the one image QEMU
    boots: `all compile_commands.json` builds every boot wrapper of the arch
    (ppc32 links and gzips four zImages nobody boots) and an editor index."""
    cmd = ['make', *targets, f'ARCH={base.kunit_arch}', f'O={build_dir}',
           f'--jobs={jobs}', *make_options(base)]
    if base.cross_compile:
        cmd.append(f'CROSS_COMPILE={base.cross_compile}')
    return tuple(cmd)


def exec_tail(arch: Arch, s: RunSettings, build_dir: Path) -> Tuple[str, ...]:
    """kunit.py exec's arguments after the --kconfig_add lines: its timeout,
    the console as it comes, the frame lines, and the QEMU command's own."""
    return (f'--timeout={s.timeout + KUNIT_GRACE}', '--raw_output=all', FRAME_LINES_ARG,
            *panic_args(arch), *(nic_exec_args(arch) if s.drivers else []),
            *([s.filter_glob] if s.filter_glob else []), *dtb_args(arch, s.tree, build_dir))


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 nobody holds now: a lone NIC's loop (arches)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind(('127.0.0.1', 0))
        return int(sock.getsockname()[1])


def nic_exec_args(arch: Arch) -> List[str]:
    """kunit.py exec: the arch's NICs on one hub, and how many the suite must find."""
    port = free_udp_port() if len(arch.nics) == 1 else 0
    return [f'--qemu_args={shlex.join(arch.nic_qemu_args(port))}',
            f'--kernel_args={NICS_PARAM}={",".join(arch.nic_macs())}',
            *(f'--kernel_args={a}' for a in arch.bystander_kernel_args()),
            *(f'--kernel_args={MODULE}.{p}' for p in arch.nic_params),
            *(f'--kernel_args={a}' for a in arch.nic_kernel_args)]


def dtb_args(arch: Arch, tree: Path, build_dir: Path) -> List[str]:
    """kunit.py exec: the board's device tree, where `make dtbs` puts it: the
    place of its source in @tree (under a vendor directory since 6.5, flat
    before), in @build_dir."""
    if not arch.dtb:
        return []
    found = sorted(tree.glob(f'arch/{arch.srcarch}/boot/dts/**/{Path(arch.dtb).stem}.dts'))
    # one the tree lacks is left to QEMU, whose error names the file
    path = (build_dir / found[0].relative_to(tree).with_suffix('.dtb') if found
            else build_dir / 'arch' / arch.kunit_arch / 'boot/dts' / arch.dtb)
    return [f'--qemu_args=-dtb {shlex.quote(str(path))}']


def panic_args(arch: Arch) -> List[str]:
    """A panic ends the guest at once: the kernel reboots (panic=-1) and kunit.py's
    QEMU, started with -no-reboot, exits. UML has no QEMU to exit; the console
    watch stops it."""
    return ['--kernel_args=panic=-1'] if arch.qemu_binary else []


TCG_ONLY = """#!{python}
# Written by rx-align: {real} in TCG only.  kunit.py of newer trees (7.3)
# asks for "-accel kvm -accel hvf -accel tcg"; where /dev/kvm exists but
# nested KVM hangs, the guest then never prints.  The same arguments
# without the kvm and hvf accelerators.
import os
import sys

args = sys.argv[1:]
keep = [a for i, a in enumerate(args)
        if not (a == '-accel' and i + 1 < len(args) and args[i + 1].split(',')[0] in ('kvm', 'hvf'))
        and not (i > 0 and args[i - 1] == '-accel' and a.split(',')[0] in ('kvm', 'hvf'))]
os.execv({real!r}, [{real!r}] + keep)
"""


def tcg_only(arch: Arch, cache: Cache, toolchain: Optional[Toolchain] = None,
             path: Optional[str] = None) -> Optional[Path]:
    """A wrapper for the arch's QEMU that keeps it in TCG (the QEMU of
    @toolchain's root, where it has one: the wrapper runs in there; else the
    one on @path, by default $PATH): the directory to put first on PATH, or
    None where there is no QEMU to wrap."""
    root = toolchain.root if toolchain else None
    if not arch.qemu_binary:
        return None
    real = root.which(arch.qemu_binary) if root else shutil.which(arch.qemu_binary, path=path)
    if not real:
        return None
    wrappers = cache.root / 'tcg-only' / (toolchain.build_suffix if toolchain else '')
    wrappers.mkdir(parents=True, exist_ok=True)
    wrapper = wrappers / arch.qemu_binary
    text = TCG_ONLY.format(python=sys.executable, real=real)
    if not wrapper.is_file() or wrapper.read_text() != text:
        tmp = wrapper.with_suffix('.tmp')
        tmp.write_text(text)
        tmp.chmod(0o755)
        os.replace(tmp, wrapper)
    return wrappers
