"""Cross compilers known to miscompile the kernel: a probe per bug, run before the build.

A kernel built by a compiler that drops a branch's condition does not fail
to build: it boots silently and times out, five minutes of build later,
looking like a QEMU or kernel problem. A probe compiles a few lines shaped
like the code that goes wrong and reads the machine code, so the run says
what is wrong before it builds anything.

And the environment every build runs in (build_env): ccache in the cache,
reproducible build stamps, no ARCH or CROSS_COMPILE of the caller's.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

from .cache import Cache

# How a command runs: on the machine, or inside a Debian root (toolchains.py).
Runner = Callable[[Sequence[str]], 'subprocess.CompletedProcess[str]']


def run_here(cmd: Sequence[str]) -> 'subprocess.CompletedProcess[str]':
    return subprocess.run(list(cmd), capture_output=True, text=True, check=False)

PROBES = Path(__file__).resolve().parent.parent / 'probes'


@dataclasses.dataclass(frozen=True)
class Probe:
    """A C file whose function `function`, built at -O2, must test a value it
    loaded from memory before branching on it; `bug` says what it means when
    it does not."""
    source: str                 # file name under scripts/probes/
    function: str
    load: str                   # regex: a load, group 1 the register loaded
    test: str                   # regex: a test of a register, group 1 that register
    looks_for: str              # what load and test find, in words
    bug: str
    fixed_by: str = ''          # a toolchain without the bug, in words

    def path(self) -> Path:
        return PROBES / self.source


# Debian 12's sh4-linux-gnu-gcc 12.2.0 deletes the test of a loaded value
# before a branch and branches on a stale T bit (see scripts/probes/sh_tbit.c).
SH_TBIT = Probe(
    source='sh_tbit.c', function='probe_emit',
    load=r'^mov\.l\s+@(?:\([^)]*\)|[^,]+),(r\d+)$',
    test=r'^tst\s+(r\d+),\1$|^cmp/eq\s+#0,(r0)$',
    looks_for='test of the register delay_msec was loaded into',
    bug='drops the T-bit test in front of a conditional branch at -O2 (GCC\'s SH '
        'sh_treg_combine pass), so every kernel it builds is miscompiled: its zImage '
        'decompressor takes its input for NULL and printk_delay() never returns',
    # GCC 14.2 (Debian 13's sh4-linux-gnu-gcc) tests the register: its
    # disassembly is scripts/tests/fixtures/toolchain/sh_tbit-gcc14.2-O2.dis
    fixed_by='--toolchain debian-13 (its sh4-linux-gnu-gcc 14.2 builds it right)')


def function_body(disassembly: str, function: str) -> Optional[List[str]]:
    """The instructions (mnemonic and operands) of one function in `objdump -d
    --no-show-raw-insn` output; None if the function is not there."""
    body: Optional[List[str]] = None
    for line in disassembly.splitlines():
        if re.match(r'^[0-9a-f]+ <(.+)>:$', line):
            if body is not None:
                break
            if line.endswith(f'<{function}>:'):
                body = []
            continue
        if body is None:
            continue
        m = re.match(r'^\s*[0-9a-f]+:\s+(\S.*)$', line)
        if m:
            body.append(m.group(1).split('!')[0].strip())
    return body


def miscompiled(probe: Probe, disassembly: str) -> bool:
    """Whether the disassembled probe branches without testing what it loaded."""
    body = function_body(disassembly, probe.function)
    if not body:
        raise ValueError(f'{probe.function} is not in the disassembly of {probe.source}')
    loaded = {m.group(1) for insn in body if (m := re.search(probe.load, insn))}
    tested = {next(g for g in m.groups() if g) for insn in body
              if (m := re.search(probe.test, insn))}
    return not loaded & tested


def check(probe: Probe, cross_compile: str, run: Runner = run_here,
          tmp_parent: Optional[Path] = None) -> Optional[str]:
    """None if the compiler builds the probe right; else why it cannot be
    used, and what to do.  @run runs the compiler (inside a root, where
    @tmp_parent is a directory that has the same path inside and out)."""
    gcc = f'{cross_compile}gcc'
    if tmp_parent:
        tmp_parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix='rxalign-probe-', dir=tmp_parent) as tmp:
        obj = Path(tmp) / 'probe.o'
        cc = run([gcc, '-O2', '-c', '-o', str(obj), str(probe.path())])
        if cc.returncode != 0:
            return (f'{gcc} cannot compile the probe {probe.path()}: '
                    f'{cc.stderr.strip()[-300:]}; check the compiler')
        dis = run([f'{cross_compile}objdump', '-d', '--no-show-raw-insn', str(obj)])
    try:
        if dis.returncode == 0 and not miscompiled(probe, dis.stdout):
            return None
    except ValueError as e:
        return f'{cross_compile}objdump output not understood: {e}; check binutils'
    if dis.returncode != 0:
        return f'{cross_compile}objdump failed on the probe: {dis.stderr.strip()[-300:]}'
    version = run([gcc, '--version']).stdout.splitlines()
    return (f'{version[0] if version else gcc} {probe.bug} (probe: {probe.path()}: '
            f'{probe.function} has no {probe.looks_for}); put a {gcc} without the bug '
            'first on PATH (a symlink to another GCC for the arch will do), '
            + (f'or run with {probe.fixed_by}, ' if probe.fixed_by else '')
            + 'or leave the arch out of --arch')


CCACHE_SIZE = '5G'


def build_env(cache: Cache, first_build: bool = False) -> Dict[str, str]:
    """The environment of kunit.py and make: ccache in @cache, fixed build stamps.

    @first_build: nothing is built in the build dir yet, so make compiles every
    object once and ccache's preprocessor pass and hashing are pure cost (a full
    x86_64 build: 297 s through ccache, 209 s without); ccache serves the
    builds after it, where a tree that changes back (a mutation run, a series
    edited and restored) meets objects it has seen.  CCACHE_DISABLE rather than
    another CC: make's command lines stay those of every later build, so
    nothing is rebuilt because the compiler's spelling changed.  Not in CI
    (run-kunit --ci): there the first build's objects are what the next
    pipeline's job finds in the ccache it restores.
    """
    env = dict(os.environ)
    if first_build:
        env['CCACHE_DISABLE'] = '1'
    # Not depend mode (CCACHE_DEPEND), although it made cold misses cheaper
    # (a full x86_64 build: 297 s in the default mode, 209 s without ccache):
    # under it, a mutation-test run once booted the skbuff.o of an earlier
    # mutation of the same file.
    env.update(CCACHE_DIR=str(cache.ccache), CCACHE_BASEDIR=str(cache.root),
               CCACHE_NOHASHDIR='1', CCACHE_MAXSIZE=CCACHE_SIZE,
               KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2000',
               KBUILD_BUILD_USER='rx-align', KBUILD_BUILD_HOST='qemu')
    env.pop('ARCH', None)
    env.pop('CROSS_COMPILE', None)
    return env
