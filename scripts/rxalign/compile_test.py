"""scripts/compile-test: build every C file the series touches, per arch.

For each file under drivers/ or net/ that a kernel-patches/ patch changes,
the Kconfig symbol that builds it is read from its Makefile and set to m
on top of the arch's defconfig, in a build dir of its own (an obj-y file,
say net/core/skbuff.c, needs none); then `make path/to/file.o`.  A symbol the arch cannot enable (say a PCI driver
without PCI) is reported as skipped with the reason, never as a pass, and a
file no selected arch can build fails the run.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .kernels import DEFAULT
from . import arches, deps, series, tree
from .cache import Cache, Lock, default_root
from .cli import run_main
from .exitcodes import Exit, HarnessError
from .fmt import seconds as fmt_seconds
from .kbuild import BUILTIN, arch_only, kconfig_symbol
from .build_env import build_env

def _make(arch: arches.Arch, src: Path, build: Path, args: List[str], log: Path,
          jobs: int, env: Dict[str, str]) -> int:
    cmd = ['make', f'O={build}', f'ARCH={arch.kunit_arch}', f'-j{jobs}']
    if arch.cross_compile:
        cmd.append(f'CROSS_COMPILE={arch.cross_compile}')
    cmd += [f'CC=ccache {arch.cross_compile}gcc', 'HOSTCC=ccache gcc', *args]
    with open(log, 'a', encoding='utf-8') as out:
        out.write('$ ' + ' '.join(cmd) + '\n')
        out.flush()
        return subprocess.run(cmd, cwd=src, stdout=out, stderr=subprocess.STDOUT,
                              env=env, check=False).returncode


def compile_arch(arch: arches.Arch, src: Path, build: Path, files: List[str], log: Path,
                 jobs: int) -> List[Tuple[str, str, str]]:
    build.mkdir(parents=True, exist_ok=True)
    # no .config yet: a first build, compiled without ccache (build_env.py)
    env = build_env(Cache(default_root()), first_build=not (build / '.config').is_file())
    symbols: Dict[str, Optional[str]] = {f: kconfig_symbol(src, f) for f in files}
    if _make(arch, src, build, [arch.defconfig], log, jobs, env) != 0:
        return [(f, 'FAIL', f'{arch.defconfig} failed (see {log})') for f in files]
    enable = [a for opt in arch.compile_enable for a in ('--enable', opt)]
    enable += [a for s in symbols.values() if s and s != BUILTIN for a in ('--module', s)]
    subprocess.run([str(src / 'scripts/config'), '--file', str(build / '.config'), *enable],
                   check=True)
    _make(arch, src, build, ['olddefconfig'], log, jobs, env)
    config = (build / '.config').read_text()
    results = []
    for f, sym in symbols.items():
        if not sym:
            results.append((f, 'SKIP', 'no obj-$(CONFIG_...) or obj-y line for it in its '
                                       'Makefile'))
        elif sym != BUILTIN and not re.search(rf'^CONFIG_{sym}=[ym]$', config, re.M):
            results.append((f, 'SKIP', f'CONFIG_{sym} cannot be enabled on {arch.name} '
                                       '(dependencies)'))
        elif _make(arch, src, build, [f[:-2] + '.o'], log, jobs, env) != 0:
            results.append((f, 'FAIL', f'does not build (see {log})'))
        else:
            results.append((f, 'PASS', 'obj-y' if sym == BUILTIN else f'CONFIG_{sym}=m'))
    return results


def _arch_only(src: Path, f: str) -> str:
    """Why no arch of the table can build @f, or '': its Kconfig symbol depends
    on one that only an arch without an entry (no Debian cross compiler) defines."""
    sym = kconfig_symbol(src, f)
    found = arch_only(src, f, sym) if sym and sym != BUILTIN else None
    if not found:
        return ''
    dep, arch = found
    if arch in {a.srcarch for a in arches.ARCHES}:
        return ''
    return (f'CONFIG_{sym} depends on {dep}, which only arch/{arch}/ defines, and no entry '
            f'of the arch table builds {arch} (scripts/rxalign/arches.py)')


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='compile-test', description=__doc__.split('\n')[0])
    p.add_argument('--arch', default='x86_64,powerpc,i386')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    p.add_argument('--log-dir', type=Path, default=Path('kunit-results/compile-test'))
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        selected = arches.select(args.arch)
    except KeyError as e:
        print(f'compile-test: error: unknown arch {e.args[0]!r}', file=sys.stderr)
        return int(Exit.USAGE)
    no_defconfig = [a.name for a in selected if not a.defconfig]
    if no_defconfig:
        print(f'compile-test: error: {", ".join(no_defconfig)}: no defconfig in the arch table '
              '(scripts/rxalign/arches.py); use an arch that has one: '
              f'{", ".join(a.name for a in arches.ARCHES if a.defconfig)}', file=sys.stderr)
        return int(Exit.USAGE)
    patches = series.mailed_patches()
    files = series.touched_c_files(patches)
    if not files:
        print('compile-test: the series touches no C file under drivers/ or net/')
        return 0
    failed = 0
    built: Dict[str, int] = {f: 0 for f in files}
    try:
        deps.ensure_packages(deps.build_packages(selected) + deps.kernel_packages(DEFAULT), print)
        cache = Cache(default_root())
        base = tree.debian_base(DEFAULT, cache, print)
        args.log_dir.mkdir(parents=True, exist_ok=True)
        with Lock(cache):
            src = tree.prepare(cache, base, series.layers(), print).path
            for a in selected:
                start = time.monotonic()
                log = (args.log_dir / f'{a.name}.log').resolve()
                log.write_text('')
                for f, status, why in compile_arch(a, src, cache.build_dir(
                        base.base_id, a.name, 'compile'), files, log, args.jobs):
                    print(f'[{a.name}] {status} {f}: {why}', flush=True)
                    failed += status == 'FAIL'
                    built[f] += status == 'PASS'
                print(f'[{a.name}] done in {fmt_seconds(time.monotonic() - start)}', flush=True)
    except HarnessError as e:
        print(f'compile-test: error: {e.message}', file=sys.stderr)
        return int(e.status)
    for f in (f for f, n in built.items() if not n):
        only = _arch_only(src, f)
        if only:
            # say why and go on: no arch of the table can build it either
            print(f'compile-test: skipped {f}: {only}')
            continue
        print(f'compile-test: error: {f} was compiled on none of {args.arch}: add an arch '
              'that can build it', file=sys.stderr)
        failed += 1
    return int(Exit.TEST_FAILED) if failed else 0


if __name__ == '__main__':
    sys.exit(run_main('compile-test', main))
