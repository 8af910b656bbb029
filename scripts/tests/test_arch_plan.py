"""arch_plan.py: each arch's config, build and boot decided once; make builds what kunit.py boots.

The trees' QEMU configs are fixtures/qemu_configs/<kernel>.txt (each
config's kernel_path, from Debian's linux-source packages): no kernel is
built, the commands are computed from the plan as run_arch runs them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import List, Optional

import pytest

import faults
from rxalign.arch_plan import TREE_CONFIGS, RunSettings, plan
from rxalign.arches import ARCHES, BY_NAME
from rxalign.cache import Cache
from rxalign.kconfig import Profile, option_lines
from rxalign.paths import DEBUG

KERNELS = ('6.12', '7.3')
CONFIG = """from ..qemu_config import QemuArchParams
QEMU_ARCH = QemuArchParams(linux_arch='x', kconfig='', qemu_arch='x',
                           kernel_path='{path}', kernel_command_line='console=ttyS0',
                           extra_qemu_params=[])
"""


def kernel_tree(root: Path, kernel: str) -> Path:
    """A tree with the QEMU configs of @kernel's tools/testing/kunit, and nothing else."""
    configs = root / kernel / TREE_CONFIGS
    configs.mkdir(parents=True)
    listing = (faults.FIXTURES / 'qemu_configs' / f'{kernel}.txt').read_text()
    for line in listing.splitlines():
        if line and not line.startswith('#'):
            name, path = line.split()
            (configs / f'{name}.py').write_text(CONFIG.format(path=path))
    # a git repository: the plan reads the symbols its Kconfig files define
    subprocess.run(['git', 'init', '-q', str(root / kernel)], check=True)
    return root / kernel


def settings(tree: Path, cache: Path, debug: bool) -> RunSettings:
    return RunSettings(tree=tree, cache=Cache(cache), base_id='base', jobs=2, timeout=300,
                       profile=Profile(debug=debug))


def booted(tree: Path, exec_args: List[str]) -> Optional[str]:
    """The kernel_path of the config `kunit.py exec` loads with these arguments
    (kunit.py: --qemu_config=FILE, else --arch=NAME: qemu_configs/NAME.py;
    None: no config, UML)."""
    for a in exec_args:
        if a.startswith('--qemu_config='):
            config = Path(a.split('=', 1)[1])
        elif a.startswith('--arch='):
            config = tree / TREE_CONFIGS / f'{a.split("=", 1)[1]}.py'
        else:
            continue
        if not config.is_file():
            return None
        text = config.read_text()
        return text.split("kernel_path='", 1)[1].split("'", 1)[0]
    raise AssertionError(f'no QEMU config among {exec_args}')


def builds(targets: List[str], kernel_path: Optional[str]) -> bool:
    """Whether make with @targets builds @kernel_path: the target of its name
    (a `vmlinux` target is the top-level one only), or `all`, which builds
    the arch's boot image (as kunit.py's own build relies on)."""
    if 'all' in targets:
        return True
    if kernel_path is None:
        return False
    name = Path(kernel_path).name
    return name in targets and (name != 'vmlinux' or kernel_path == 'vmlinux')


def make_targets(cmd: List[str]) -> List[str]:
    return [a for a in cmd[1:] if not a.startswith('-') and '=' not in a]


@pytest.mark.parametrize('kernel', KERNELS)
@pytest.mark.parametrize('debug', (False, True), ids=('plain', 'debug'))
def test_make_builds_the_image_kunit_py_boots(tmp_path: Path, kernel: str, debug: bool) -> None:
    """Issue 43.2: on 7.3 with --debug, make built mips's vmlinux (the arch
    table's image, taken for a kmemleak boot mips does not have) while
    kunit.py exec booted the tree's mips.py, whose kernel_path is vmlinuz;
    sparc64 built vmlinux and booted arch/sparc/boot/image. Each arch of
    the table, on each kernel, with and without --debug. Seen failing on
    the code before the plan: 7.3 --debug, on mips, mipsel, mips64,
    mips64el (vmlinux, not vmlinuz) and sparc64 (vmlinux, not image)."""
    tree = kernel_tree(tmp_path, kernel)
    s = settings(tree, tmp_path / 'cache', debug)
    wrong = []
    for arch in ARCHES:
        p = plan(arch, s)
        targets = make_targets(list(p.make_command))
        image = booted(tree, list(p.exec_args))
        if not builds(targets, image):
            wrong.append(f'{arch.name}: make {" ".join(targets)}, kunit.py boots {image}')
    assert not wrong


def test_mips_with_debug_on_7_3_builds_vmlinuz(tmp_path: Path) -> None:
    """The case the issue names, spelled out: the tree's mips.py is booted and built."""
    s = settings(kernel_tree(tmp_path, '7.3'), tmp_path / 'cache', debug=True)
    for name, images in (('mips', ('vmlinuz',)), ('sparc64', ('image', 'vmlinux'))):
        p = plan(BY_NAME[name], s)
        assert not p.kmemleak
        assert p.boot.kunit_arg == f'--arch={name}' and p.configure == p.boot
        assert p.make_targets == images


def test_a_board_that_boots_another_image_of_its_builder(tmp_path: Path) -> None:
    """sparc64-virtio boots sparc64's kernel with our sparc64.py (7.3 has no
    sparc64-virtio.py), whose kernel_path is vmlinux, while sparc64 boots
    7.3's sparc64.py, arch/sparc/boot/image: make builds both, by one
    command for both entries (the build dir's stamps are shared). Seen
    failing after main's sparc64-virtio met the plan: make image only."""
    s = settings(kernel_tree(tmp_path, '7.3'), tmp_path / 'cache', debug=False)
    board, sparc = plan(BY_NAME['sparc64-virtio'], s), plan(BY_NAME['sparc64'], s)
    assert board.builder is BY_NAME['sparc64'] and board.boot.image == 'vmlinux'
    assert sparc.boot.image == 'image'
    assert board.make_command == sparc.make_command
    assert board.make_targets == ('image', 'vmlinux')


def test_config_and_exec_read_one_plan(tmp_path: Path) -> None:
    """The board boots its own config on its builder's kernel: config and make
    as the builder (one build dir, one command for all who share it), exec
    as the board; x86_64's --debug boots the kmemleak /init on both."""
    s = settings(kernel_tree(tmp_path, '6.12'), tmp_path / 'cache', debug=True)
    board = plan(BY_NAME['arm-vexpress'], s)
    arm = plan(BY_NAME['arm'], s)
    assert board.build_dir == arm.build_dir and board.builder is BY_NAME['arm']
    assert board.configure == arm.configure and board.make_targets == arm.make_targets
    assert board.boot.kunit_arg.endswith('arm-vexpress.py')
    x86 = plan(BY_NAME['x86_64'], s)
    assert x86.kmemleak and x86.configure == x86.boot
    assert x86.boot.kunit_arg.endswith('x86_64-kmemleak.py')
    assert x86.build_dir.name == 'x86_64-debug'



def kunitconfig_lines(args: List[str]) -> List[str]:
    """Every option line of the --kunitconfig files among @args."""
    return [line for a in args if a.startswith('--kunitconfig=')
            for line in option_lines(Path(a.split('=', 1)[1]))]


def test_debug_leaves_kasan_out_where_the_arch_has_none(tmp_path: Path) -> None:
    """Issue 43: `--debug --kernel 7.3 --arch mips` stopped at kunit.py config
    ("Missing: CONFIG_KASAN_GENERIC=y, CONFIG_KASAN=y"): arch/mips selects
    no HAVE_ARCH_KASAN. The plan leaves the KASAN lines out there and keeps
    them where the arch's Kconfig selects it (under a condition too)."""
    tree = kernel_tree(tmp_path, '7.3')
    for srcarch, text in (('mips', 'config MIPS\n\tselect HAVE_ARCH_SECCOMP\n'),
                          ('x86', 'config X86\n\tselect HAVE_ARCH_KASAN\t\tif X86_64\n')):
        (tree / 'arch' / srcarch).mkdir(parents=True)
        (tree / 'arch' / srcarch / 'Kconfig').write_text(text)
    s = settings(tree, tmp_path / 'cache', debug=True)
    kasan = {'CONFIG_KASAN=y', 'CONFIG_KASAN_GENERIC=y'}
    assert kasan <= set(option_lines(DEBUG))
    for name, has in (('mips', False), ('x86_64', True)):
        p = plan(BY_NAME[name], s)
        assert p.lacks == (() if has else tuple(sorted(kasan)))
        for args in (p.config_args, p.exec_args):
            lines = set(kunitconfig_lines(list(args)))
            assert (kasan <= lines) if has else not kasan & lines
            assert 'CONFIG_PROVE_LOCKING=y' in lines
    assert not plan(BY_NAME['mips'], settings(tree, tmp_path / 'c2', debug=False)).lacks


def test_debug_leaves_kasan_out_where_our_config_turns_its_condition_off(
        tmp_path: Path) -> None:
    """riscv selects HAVE_ARCH_KASAN `if MMU && 64BIT`: riscv64 keeps the
    KASAN lines, riscv32 (M-mode, our QEMU config turns MMU off) does not;
    an `||` condition is left for Kconfig to judge."""
    tree = kernel_tree(tmp_path, '7.3')
    kconfig = tree / 'arch' / 'riscv' / 'Kconfig'
    kconfig.parent.mkdir(parents=True)
    kconfig.write_text('config RISCV\n\tselect HAVE_ARCH_KASAN if MMU && 64BIT\n')
    s = settings(tree, tmp_path / 'cache', debug=True)
    kasan = ('CONFIG_KASAN=y', 'CONFIG_KASAN_GENERIC=y')
    assert plan(BY_NAME['riscv'], s).lacks == ()
    assert plan(BY_NAME['riscv32'], s).lacks == kasan
    kconfig.write_text('config RISCV\n\tselect HAVE_ARCH_KASAN if MMU || 64BIT\n')
    assert plan(BY_NAME['riscv32'], s).lacks == ()
