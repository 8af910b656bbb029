"""arch_plan.py: the tree's own QEMU config where it has one, ours where it has none."""

from pathlib import Path

from rxalign.arches import BY_NAME
from rxalign.arch_plan import ConfigSource, boot, image_of

CONFIG = """from ..qemu_config import QemuArchParams
QEMU_ARCH = QemuArchParams(linux_arch='mips', kconfig='', qemu_arch='mips',
                           kernel_path='{path}', kernel_command_line='console=ttyS0',
                           extra_qemu_params=['-M', 'malta'])
"""


def _tree(tmp_path: Path, **configs: str) -> Path:
    d = tmp_path / 'tools/testing/kunit/qemu_configs'
    d.mkdir(parents=True)
    for name, path in configs.items():
        (d / f'{name}.py').write_text(CONFIG.format(path=path))
    return tmp_path


def test_the_trees_config_wins_and_decides_the_image(tmp_path: Path) -> None:
    tree = _tree(tmp_path, mips='vmlinuz', sparc64='arch/sparc/boot/image')
    mips = boot(BY_NAME['mips'], tree)
    assert (mips.kunit_arg, mips.image, mips.source) == ('--arch=mips', 'vmlinuz', ConfigSource.TREE)
    assert boot(BY_NAME['sparc64'], tree).image == 'image'


def test_ours_where_the_tree_has_none(tmp_path: Path) -> None:
    b = boot(BY_NAME['mips'], _tree(tmp_path))
    assert b.source == ConfigSource.OURS and b.kunit_arg.endswith('scripts/qemu_configs/mips.py')
    assert b.image == 'vmlinux' and b.config_file is not None and b.config_file.is_file()


def test_ours_where_debian_12_cannot_boot_the_trees(tmp_path: Path) -> None:
    tree = _tree(tmp_path, powerpc='vmlinux', powerpcle='vmlinux', riscv32='arch/riscv/boot/Image')
    for name in ('powerpc', 'powerpcle', 'riscv32'):
        assert BY_NAME[name].own_config
        assert boot(BY_NAME[name], tree).source == ConfigSource.OURS, name


def test_kmemleak_boots_ours_and_kunit_arches_the_tree(tmp_path: Path) -> None:
    tree = _tree(tmp_path, x86_64='arch/x86/boot/bzImage')
    assert boot(BY_NAME['x86_64'], tree, kmemleak=True).kunit_arg.endswith('x86_64-kmemleak.py')
    plain = boot(BY_NAME['x86_64'], tree)
    assert (plain.kunit_arg, plain.image) == ('--arch=x86_64', 'all')


def test_an_unknown_kernel_path_builds_all(tmp_path: Path) -> None:
    tree = _tree(tmp_path, mips='arch/mips/boot/vmlinux.gz.itb')
    assert image_of(tree / 'tools/testing/kunit/qemu_configs/mips.py') == 'all'
