"""The commands each arch's run gives kunit.py and make, pinned.

fixtures/qemu-commands.txt holds, for every entry of the arch table on
6.12's and 7.3's QEMU configs (fixtures/qemu_configs/), plain, --drivers,
--debug and --coverage, the three commands run_arch runs (kunit.py config,
make, kunit.py exec: the whole QEMU command kunit.py builds) and the
directory first on their PATH (the TCG-only QEMU wrapper), as the code
computed them before the plan decided them (issue 51): a refactoring that
changes one of them shows here, by arch and line.  Nothing is built or
booted; the fake make puts each board's device tree where `make dtbs` would.

After a change that is meant to change a command: RXALIGN_PIN=1 pytest
scripts/tests/test_qemu_commands.py writes the file anew; review its diff.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

import faults
from rxalign import arches, kunit_driver
from rxalign.arch_plan import RunSettings
from rxalign.cache import Cache
from rxalign.kconfig import Profile
from rxalign.paths import REPO
from rxalign.toolchains import Toolchain
from test_arch_plan import kernel_tree

PINNED = faults.FIXTURES / 'qemu-commands.txt'
VARIANTS = ('plain', 'drivers', 'debug', 'coverage')
# symbols no Kconfig file of the fake trees defines: left out of --kconfig_add
ABSENT = ('MDIO_DEVICE',)
# boards whose device tree the fake trees keep under a vendor directory (6.5 on)
VENDOR_DTS = {'versatile-pb.dtb': 'arm', 'vexpress-v2p-ca9.dtb': 'arm'}


def fake_tree(root: Path, kernel: str) -> Path:
    """@kernel's QEMU configs, a Kconfig that defines every symbol our
    kconfig lines name but ABSENT, and some boards' .dts: a git repository."""
    tree = kernel_tree(root, kernel)
    symbols = {m for a in arches.ARCHES for line in
               (*a.kconfig, *a.slim, *a.nic_kconfig(), 'CONFIG_KUNIT=y')
               for m in re.findall(r'CONFIG_(\w+)', line)}
    symbols |= {m for f in (REPO / 'scripts/kconfig').glob('*.config')
                for m in re.findall(r'CONFIG_(\w+)', f.read_text())}
    (tree / 'Kconfig').write_text(''.join(f'config {s}\n\tbool\n' for s in sorted(symbols)
                                          if s not in ABSENT))
    for dtb, vendor in VENDOR_DTS.items():
        dts = tree / 'arch/arm/boot/dts' / vendor / dtb.replace('.dtb', '.dts')
        dts.parent.mkdir(parents=True, exist_ok=True)
        dts.write_text('/dts-v1/;\n')
    for cmd in (['add', '-A'], ['-c', 'user.name=t', '-c', 'user.email=t@t',
                                                'commit', '-qm', 'tree']):
        subprocess.run(['git', '-C', str(tree), *cmd], check=True)
    return tree


def fake_path(root: Path) -> str:
    """A PATH with git, ccache and every arch's QEMU (never run)."""
    bin_dir = root / 'bin'
    bin_dir.mkdir()
    for name in {a.qemu_binary for a in arches.ARCHES if a.qemu_binary} | {'ccache'}:
        (bin_dir / name).write_text('#!/bin/sh\nexit 1\n')
        (bin_dir / name).chmod(0o755)
    git = subprocess.run(['sh', '-c', 'command -v git'], capture_output=True, text=True,
                         check=True).stdout.strip()
    (bin_dir / 'git').symlink_to(git)
    return str(bin_dir)


def variants(arch: arches.Arch) -> List[str]:
    able = arch.qemu_binary and arches.builder(arch).init_cflags is not None
    return [v for v in VARIANTS if (v != 'drivers' or arch.nics) and (v != 'coverage' or able)]


class Recorder:
    """kunit_driver._run, faked: each command and the first directory of its
    PATH; make puts the boards' device trees where `make dtbs` would."""

    def __init__(self, tree: Path) -> None:
        self.tree = tree
        self.calls: List[Tuple[List[str], str]] = []

    def __call__(self, cmd: List[str], log: Path, env: Dict[str, str], cwd: Path,
                 timeout: Optional[float] = None, watch: object = None,
                 lock: object = None) -> Tuple[int, bool]:
        self.calls.append((list(cmd), env.get('PATH', '').split(':')[0]))
        if cmd[0] == 'make':
            out = Path(next(a for a in cmd if a.startswith('O='))[2:])
            for dts in self.tree.glob('arch/*/boot/dts/**/*.dts'):
                dtb = out / dts.relative_to(self.tree).with_suffix('.dtb')
                dtb.parent.mkdir(parents=True, exist_ok=True)
                dtb.write_text('')
        return 0, False


def commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> List[str]:
    """Every arch's commands on every kernel and variant, one line each."""
    monkeypatch.setenv('PATH', fake_path(tmp_path))
    monkeypatch.setattr(Toolchain, 'version', lambda self, binary: f'{binary} 1.0')
    monkeypatch.setattr(kunit_driver, 'config_lost', lambda tree, build_dir: [])
    # initramfs.kconfig builds the guest programs: a line of the same form
    monkeypatch.setattr(kunit_driver, 'initramfs_kconfig', lambda p, tree, env, log: (
        [f'CONFIG_INITRAMFS_SOURCE="{p.build_dir}/initramfs.list"']
        if p.kmemleak or p.coverage or p.builder.nolibc_cflags is not None else []))
    lines: List[str] = []
    for kernel in ('6.12', '7.3'):
        tree = fake_tree(tmp_path / 'trees', kernel)
        for arch in arches.ARCHES:
            for variant in variants(arch):
                record = Recorder(tree)
                monkeypatch.setattr(kunit_driver, '_run', record)
                s = RunSettings(tree=tree, cache=Cache(tmp_path / 'cache' / variant),
                                base_id=kernel, jobs=2, timeout=300,
                                profile=Profile(debug=variant == 'debug',
                                                coverage=variant == 'coverage'),
                                drivers=variant == 'drivers', filter_glob='net_rx_align*')
                out = tmp_path / 'out' / kernel / variant / arch.name
                kunit_driver.run_arch(arch, s, out, lambda m: None)
                lines += [f'{kernel} {variant} {arch.name}: '
                          + short(f'PATH={path} ' + ' '.join(cmd), tmp_path / 'cache' / variant,
                                  tree, kernel) for cmd, path in record.calls]
    return lines


def short(line: str, cache: Path, tree: Path, kernel: str) -> str:
    """@line without this machine's paths, the lone NIC's UDP port fixed, and
    its --kconfig_add lines (the same in config and exec) as their count and
    digest: the file stays small enough to read."""
    line = line.replace(f'{sys.executable} {tree}/tools/testing/kunit/kunit.py', 'kunit.py')
    line = line.replace(f'{cache}/build/{kernel}/', '<build>/').replace(str(cache), '<cache>')
    line = line.replace(str(REPO), '<repo>').replace(str(cache.parent.parent), '<tmp>')
    line = re.sub(r'127\.0\.0\.1:\d+', '127.0.0.1:<port>', line)
    line = re.sub(r' --make_options=CC=ccache \S*gcc --make_options=HOSTCC=ccache gcc',
                  ' <ccache>', line)
    adds = re.findall(r' --kconfig_add=(.*?)(?= --|$)', line)
    digest = hashlib.sha256('\n'.join(adds).encode()).hexdigest()[:12]
    return re.sub(r'( --kconfig_add=.*?(?= --(?!kconfig_add)|$))+',
                  f' <{len(adds)} kconfig_add {digest}>', line)


def test_every_arch_runs_the_pinned_commands(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    got = commands(tmp_path, monkeypatch)
    if os.environ.get('RXALIGN_PIN'):
        PINNED.write_text('\n'.join(got) + '\n')
    want = PINNED.read_text().splitlines()
    changed = [f'- {w}\n+ {g}' for w, g in zip(want, got) if w != g]
    assert not changed, '\n'.join(changed[:5])
    assert len(got) == len(want)
