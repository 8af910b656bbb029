"""What a test kernel carries in its initramfs, and the guest program built for it.

- --debug with a kmemleak QEMU config (x86_64): a static busybox and the /init
  that scans kmemleak after the suites (scripts/initramfs/kmemleak-init).
- --coverage (arch_plan: p.coverage): /init is scripts/initramfs/gcov-dump.c,
  built like rx-vhost-tx below with the arch's init_cflags, which prints
  the gcov counters after the suites (coverage.py reads them).
- A kernel with the drivers suites (kconfig.kernel_kconfig) whose entry gives
  nolibc flags (arches.py: nolibc_cflags): /sbin/rx-vhost-tx, the guest side of
  vhost_net that net_rx_align_drivers_vhost runs (scripts/initramfs/
  rx-vhost-tx.c), built statically against the tree's nolibc and uapi
  headers, with the device nodes it opens.  Elsewhere (and on a tree
  without nolibc) that suite skips, saying so.

The program and the listing are named by a digest of their content, so a
change to either changes CONFIG_INITRAMFS_SOURCE, and with it the config
stamp: the kernel is rebuilt with the new initramfs, never booted with an old one.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .arch_plan import ArchPlan
from .arches import nic_kernel
from .paths import GCOV_DUMP, GUEST_COMPAT, KMEMLEAK_INIT, VHOST_TX

BUSYBOX = Path('/bin/busybox')      # Debian's busybox-static: no libc in the guest
VHOST_TX_GUEST = '/sbin/rx-vhost-tx'    # where the vhost suite runs it from
NOLIBC = 'tools/include/nolibc'         # in the tree: a tree without it builds no program


class GuestBuildError(Exception):
    """A guest program did not build: the message says which step, the log has the rest."""


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:12]


def _run(p: ArchPlan, cmd: List[str], cwd: Path, env: Dict[str, str], log: Path,
         what: str) -> str:
    try:
        proc = subprocess.run(p.toolchain.command(cmd, cwd), cwd=cwd, env=env,
                              capture_output=True, text=True, check=False)
    except OSError as e:
        raise GuestBuildError(f'{what}: {cmd[0]}: {e.strerror}') from e
    with open(log, 'a', encoding='utf-8') as out:
        out.write('$ ' + ' '.join(cmd) + '\n' + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        raise GuestBuildError(f'{what} failed (exit {proc.returncode}, see {log})')
    return proc.stdout.strip()


def _nolibc_program(p: ArchPlan, tree: Path, env: Dict[str, str], log: Path, source: Path,
                    flags: Tuple[str, ...], options: Tuple[str, ...]) -> Path:
    """@source built statically with the tree's nolibc for @p's kernel, in its
    build dir; GuestBuildError if it does not build."""
    headers = p.build_dir / 'guest-headers'
    if not (headers / 'usr/include/linux/vhost.h').is_file():
        headers.mkdir(parents=True, exist_ok=True)
        _run(p, ['make', '-s', f'ARCH={p.builder.kunit_arch}', f'O={headers}', 'headers'],
             tree, env, log, f'make headers (the uapi headers {source.name} includes)')
    cc = f'{p.builder.cross_compile}gcc'
    # -nostdinc drops the compiler's own headers, which 6.1's nolibc wants
    # (stdarg.h); 6.1's nolibc has no stdint.h, which its uapi headers want
    compiler_headers = _run(p, [cc, *flags, '-print-file-name=include'], tree, env, log,
                            f'{cc} -print-file-name')
    built = p.build_dir / f'{source.stem}.new'
    _run(p, [cc, *flags, *options, '-Wall', '-static', '-nostdlib', '-nostdinc',
             '-isystem', compiler_headers, '-I', str(tree / NOLIBC),
             '-isystem', str(headers / 'usr/include'), '-idirafter', str(GUEST_COMPAT),
             '-include', 'nolibc.h', '-o', str(built), str(source),
             *(('-lgcc',) if p.builder.nolibc_cflags is not None else ())],
         tree, env, log, f'building {source.name} with the tree\'s nolibc')
    program = p.build_dir / f'{source.stem}-{_digest(built.read_bytes())}'
    built.replace(program)
    return program


def vhost_tx(p: ArchPlan, tree: Path, env: Dict[str, str], log: Path) -> Path:
    """rx-vhost-tx for @p's kernel, in its build dir; GuestBuildError if it does not build."""
    flags = p.builder.nolibc_cflags
    assert flags is not None
    return _nolibc_program(p, tree, env, log, VHOST_TX, flags, ('-Os',))


def gcov_dump(p: ArchPlan, tree: Path, env: Dict[str, str], log: Path) -> Path:
    """The --coverage /init for @p's kernel; GuestBuildError if it cannot be built.
    -O2, not -Os: ppc32's -Os calls libgcc's register save helpers."""
    flags = p.builder.init_cflags
    if flags is None:
        raise GuestBuildError(f'--coverage: {p.builder.name} has no nolibc flags for its /init '
                              '(nolibc_cflags or coverage_cflags in scripts/rxalign/arches.py)')
    if not (tree / NOLIBC / 'nolibc.h').is_file():
        raise GuestBuildError(f'--coverage: the tree has no {NOLIBC}/nolibc.h to build '
                              f'{GCOV_DUMP.name} with')
    return _nolibc_program(p, tree, env, log, GCOV_DUMP, flags, ('-O2',))


def kconfig(p: ArchPlan, tree: Path, env: Dict[str, str], log: Path) -> List[str]:
    """The --kconfig_add lines that build @p's initramfs into its kernel (none
    when it carries nothing), after building what goes in it."""
    entries: List[str] = []
    if p.kmemleak:
        entries += ['dir /bin 0755 0 0', f'file /bin/busybox {BUSYBOX} 0755 0 0',
                    'dir /debug 0755 0 0', f'file /init {KMEMLEAK_INIT} 0755 0 0']
    if p.coverage:
        entries += [f'file /init {gcov_dump(p, tree, env, log)} 0755 0 0']
    vhost: Optional[Path] = None
    if (p.builder.nolibc_cflags is not None and nic_kernel(p.builder)
            and (tree / NOLIBC / 'nolibc.h').is_file()):
        vhost = vhost_tx(p, tree, env, log)
        entries += ['nod /dev/kmsg 0600 0 0 c 1 11', 'dir /dev/net 0755 0 0',
                    'nod /dev/net/tun 0600 0 0 c 10 200',        # TUN_MINOR
                    'nod /dev/vhost-net 0600 0 0 c 10 238',     # VHOST_NET_MINOR
                    'dir /sbin 0755 0 0', f'file {VHOST_TX_GUEST} {vhost} 0755 0 0']
    if not entries:
        return []
    text = '\n'.join(['dir /dev 0755 0 0', 'nod /dev/console 0600 0 0 c 5 1', *entries]) + '\n'
    listing = p.build_dir / f'initramfs-{_digest(text.encode())}.list'
    listing.write_text(text)
    return ['CONFIG_BLK_DEV_INITRD=y', f'CONFIG_INITRAMFS_SOURCE="{listing}"']
