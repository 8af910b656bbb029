"""The arch table and --arch selection."""

from __future__ import annotations

import ast
import dataclasses
import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from default_tree import default_tree
from rxalign import arches, kernels, run_kunit, series
from rxalign.exitcodes import Exit
from rxalign.paths import QEMU_CONFIGS
from rxalign.arch_plan import (MODULE, TREE_CONFIGS, dtb_args, free_udp_port, image_of,
                                nic_exec_args)
from rxalign.paths import TESTS_DIR

SCRIPTS = Path(__file__).resolve().parents[1]


def test_defaults_cover_both_policies() -> None:
    names = [a.name for a in arches.default_arches()]
    assert names == ['x86_64', 'powerpc', 'powerpc32']


def test_select() -> None:
    assert [a.name for a in arches.select('powerpc32,x86_64,x86_64')] == ['powerpc32', 'x86_64']
    assert len(arches.select('all', boards=True)) == len(arches.ARCHES)
    # the boards that boot another entry's kernel add their NICs, not a CPU
    assert [a for a in arches.select('all') if a.kernel_of] == []
    assert len(arches.select('all')) < len(arches.ARCHES)
    assert [a.name for a in arches.select('arm-vexpress')] == ['arm-vexpress']
    with pytest.raises(KeyError):
        arches.select('x86_64,vax')


def test_every_qemu_config_exists() -> None:
    for a in arches.ARCHES:
        path = a.qemu_config_path()
        assert path is None or path.is_file(), a.name


def test_unknown_arch_is_a_usage_error() -> None:
    proc = subprocess.run([str(SCRIPTS / 'run-kunit'), '--arch', 'vax'],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == Exit.USAGE
    assert "unknown arch 'vax'" in proc.stderr and 'x86_64' in proc.stderr


def test_compile_test_reads_its_defconfigs_from_the_arch_table() -> None:
    """compile-test kept its own per-arch DEFCONFIG/BUSES dicts beside the arch
    table (issue 16's review): an arch added to the table had none, and
    `compile-test --arch arm64` was a KeyError traceback."""
    from rxalign import compile_test
    assert not hasattr(compile_test, 'DEFCONFIG') and not hasattr(compile_test, 'BUSES')
    assert arches.BY_NAME['x86_64'].defconfig == 'x86_64_defconfig'
    assert arches.BY_NAME['powerpc32'].defconfig == 'pmac32_defconfig'
    assert 'ISA' in arches.BY_NAME['i386'].compile_enable
    assert compile_test.main(['--arch', 'sh']) == Exit.USAGE   # none for sh: said, not raised


def _value(node: ast.expr, names: Dict[str, object]) -> object:
    """A constant expression of a config file: literals, the module's string
    constants (the tree's riscv.py names its OpenSBI path) and their sums."""
    if isinstance(node, ast.Name):
        return names[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, names), _value(node.right, names)
        assert isinstance(left, str) and isinstance(right, str)
        return left + right
    if isinstance(node, ast.List):
        return [_value(e, names) for e in node.elts]
    return ast.literal_eval(node)


def _qemu_params(path: Path) -> Dict[str, object]:
    """The keyword arguments of a QemuArchParams file, without kunit.py."""
    tree = ast.parse(path.read_text())
    names: Dict[str, object] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            try:
                names[stmt.targets[0].id] = _value(stmt.value, names)
            except (KeyError, ValueError, AssertionError):
                pass    # not a constant: the QemuArchParams call itself
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, 'id', '') == 'QemuArchParams')
    return {k.arg: _value(k.value, names) for k in call.keywords if k.arg}


OWN_CONFIG = [a for a in arches.ARCHES if a.qemu_config]


@pytest.mark.parametrize('arch', OWN_CONFIG, ids=[a.name for a in OWN_CONFIG])
def test_own_qemu_config_agrees_with_its_entry(arch: arches.Arch) -> None:
    """make builds ARCH=kunit_arch and the image; kunit.py boots qemu_arch and
    kernel_path: the two must name the same kernel and the same QEMU.  The
    image is the config's kernel_path, read (image_of), never repeated in
    the entry (issue 51: 21 entries said it twice)."""
    assert arch.image == 'all', f'{arch.name}: image= repeats its QEMU config\'s kernel_path'
    for kmemleak in (False, True):
        path = arch.qemu_config_path(kmemleak)
        if path is None:
            continue
        params = _qemu_params(path)
        assert params['linux_arch'] == arch.kunit_arch, path.name
        if not kmemleak:
            assert f'qemu-system-{params["qemu_arch"]}' == arch.qemu_binary, path.name
        kernel_path = str(params['kernel_path'])
        assert kernel_path.endswith(image_of(path)), path.name


def test_every_qemu_config_has_an_entry() -> None:
    used = {p.name for a in arches.ARCHES for p in (a.qemu_config_path(), a.qemu_config_path(True))
            if p is not None}
    assert used == {p.name for p in QEMU_CONFIGS.glob('*.py')}


def test_names_unique_and_firmware_absolute() -> None:
    names = [a.name for a in arches.ARCHES]
    assert len(names) == len(set(names))
    for a in arches.ARCHES:
        assert all(Path(f).is_absolute() for f in a.firmware), a.name
        assert a.policy, a.name


def test_tree_fixes_come_first_and_say_why() -> None:
    """kernel-patches/tree-fixes/ is applied before the series, on Debian's
    tree only; each patch is git format-patch output with a stable-style
    message: the upstream commit it backports, or why none exists."""
    layers = series.layers()
    names = [layer.name for layer in layers]
    roles = [series.BY_NAME[n].role for n in names]
    # the tree must build first; the fixes to net and net-next before the
    # tests, which may need them; the compat patch right after the tests
    assert roles[0] is series.Role.TREE_FIX and roles.count(series.Role.TREE_FIX) == 1
    tests = roles.index(series.Role.TESTS)
    assert names[tests] == 'net-next' and roles[tests + 1] is series.Role.TESTS_COMPAT
    assert 'net' in names[:tests] and 'net-next-virtio' in names[:tests]
    fixes = list(series.BY_NAME['tree-fixes'].patches())
    assert fixes and list(layers[0].patches) == fixes
    assert not set(fixes) & set(series.mailed_patches())
    assert not series.layers(debian=False)[0].patches
    for patch in fixes:
        text = patch.read_text()
        assert text.startswith('From ') and '\nSubject: [PATCH' in text, patch.name
        assert '\nSigned-off-by: ' in text, patch.name
        assert re.search(r'\ncommit [0-9a-f]{40} upstream\.\n|upstream commit', text), patch.name


# a --toolchain entry is booted by its root's QEMU, which the machine lacks
WITH_NICS = [a for a in arches.ARCHES if a.nics and not a.toolchain]
@pytest.fixture(scope='module')
def tree_configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default kernel's own kunit.py QEMU configs, for the entries booted
    by them: from a tree run-kunit prepared, else out of Debian's tarball;
    skip when the machine has neither (scripts/test installs the package)."""
    return default_tree(tmp_path_factory.mktemp('tree'), f'*/{TREE_CONFIGS}/*.py') / TREE_CONFIGS


@pytest.mark.parametrize('arch', WITH_NICS, ids=[a.name for a in WITH_NICS])
def test_every_nic_plugs_into_its_machine(arch: arches.Arch, tmp_path: Path,
                                          tree_configs: Path) -> None:
    """QEMU, stopped before the first instruction (-S), takes the machine of the
    arch's config and every NIC --drivers gives it; sun4u once said "no
    slot/function available for sunhme" and the guest never started."""
    if shutil.which(arch.qemu_binary) is None:
        pytest.skip(f'{arch.qemu_binary} is not installed')
    path = arch.qemu_config_path() or tree_configs / f'{arch.kunit_arch}.py'
    extra = _qemu_params(path).get('extra_qemu_params', [])
    assert isinstance(extra, list)
    if 'q800' in extra:
        # without -kernel, QEMU's q800 starts from a Mac ROM; -S never runs it
        (tmp_path / 'rom').write_bytes(b'\0' * 4)
        extra = [*extra, '-bios', str(tmp_path / 'rom')]
    cmd = [arch.qemu_binary, '-nodefaults', '-S', '-display', 'none', '-monitor', 'none',
           '-serial', 'none', *map(str, extra), *arch.nic_qemu_args(free_udp_port())]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3, check=False)
    except subprocess.TimeoutExpired:
        return  # still waiting to start: everything plugged in
    assert proc.returncode == 0, proc.stderr


def test_an_older_kernel_takes_its_own_series_where_it_has_one(tmp_path: Path) -> None:
    """kernel-patches/<series>/ is the newest kernel's; for-<kernel>/<series>/
    replaces it on an older one, and an empty one means "nothing to apply"."""
    for d in ('net', 'for-6.1/net', 'for-6.12/net', 'drivers-rfc'):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / 'net/0001-fix.patch').write_text('newest\n')
    (tmp_path / 'for-6.12/net/0001-fix.patch').write_text('backport\n')
    (tmp_path / 'drivers-rfc/0001-drv.patch').write_text('6.12 only\n')
    net = series.BY_NAME['net']
    names = {k: [p.read_text() for p in net.patches(kernels.BY_NAME[k], tmp_path)]
             for k in ('6.1', '6.12', '7.3')}
    assert names == {'6.1': [], '6.12': ['backport\n'], '7.3': ['newest\n']}
    assert not series.DRIVERS.patches(kernels.BY_NAME['7.3'], tmp_path)
    assert series.DRIVERS.patches(kernels.BY_NAME['6.12'], tmp_path)



def test_a_user_tree_takes_the_fixes_where_needed_and_the_tests_strictly() -> None:
    """Issue 42 item 1: on a --tree each fix is taken only where it applies and
    is not there already, but the tests and tests-compat must apply, and a
    6.12 tree takes 6.12's tests-compat. On the old code Layer had no
    where_needed and tests-compat was Debian's trees only: no patch on a --tree."""
    user = series.layers(kernels.BY_NAME['6.12'], debian=False)
    assert [layer.name for layer in user if layer.where_needed] == \
        [s.name for s in series.SERIES if s.role is series.Role.FIX]
    assert {'net', 'net-next-virtio', 'drivers-rfc'} <= \
        {layer.name for layer in user if layer.where_needed}
    compat = next(layer for layer in user if layer.name == 'tests-compat')
    assert compat.patches == series.BY_NAME['tests-compat'].patches(kernels.BY_NAME['6.12'])
    assert compat.patches and not compat.where_needed
    assert not any(layer.where_needed for layer in series.layers(kernels.BY_NAME['6.12']))


OLDER = [k for k in kernels.KERNELS if k != kernels.NEWEST]


@pytest.mark.parametrize('kernel', OLDER, ids=[k.name for k in OLDER])
def test_an_older_kernels_tests_compat_applies_to_the_tests_as_they_are(
        kernel: kernels.Kernel, tmp_path: Path) -> None:
    """for-<kernel>/tests-compat/ is written against kunit-tests/: an edit there
    that moves its context is seen here, before a build on that kernel."""
    patches = series.BY_NAME['tests-compat'].patches(kernel)
    if not patches:
        pytest.skip(f'{kernel.name} takes the tests as they are')
    dest = tmp_path / 'net/core/tests'
    dest.mkdir(parents=True)
    for f in TESTS_DIR.iterdir():
        if f.is_file():
            shutil.copyfile(f, dest / f.name)
    for p in patches:
        proc = subprocess.run(['git', 'apply', '--check', str(p)], cwd=tmp_path,
                              capture_output=True, text=True, check=False)
        assert proc.returncode == 0, f'{p.name}: {proc.stderr}'


BOARDS = [a for a in arches.ARCHES if a.kernel_of]


def test_a_board_boots_with_its_device_tree(tmp_path: Path) -> None:
    """The dtb is found where `make dtbs` puts it, the place of its source in
    the tree: under a vendor directory since 6.5, flat before; one the tree
    lacks is named, for QEMU's error."""
    board = next(a for a in BOARDS if a.dtb)
    build = tmp_path / 'build'
    assert dtb_args(arches.BY_NAME['x86_64'], tmp_path, build) == []
    flat = build / 'arch/arm/boot/dts' / board.dtb
    assert dtb_args(board, tmp_path / 'flat', build) == [f'--qemu_args=-dtb {flat}']   # none
    dts = tmp_path / 'flat/arch/arm/boot/dts' / board.dtb.replace('.dtb', '.dts')
    dts.parent.mkdir(parents=True)
    dts.write_text('')
    assert dtb_args(board, tmp_path / 'flat', build) == [f'--qemu_args=-dtb {flat}']
    dts = tmp_path / 'vendor/arch/arm/boot/dts/arm' / board.dtb.replace('.dtb', '.dts')
    dts.parent.mkdir(parents=True)
    dts.write_text('')
    vendor = build / 'arch/arm/boot/dts/arm' / board.dtb
    assert dtb_args(board, tmp_path / 'vendor', build) == [f'--qemu_args=-dtb {vendor}']


def test_onboard_nics_come_from_nic_and_others_from_device() -> None:
    """A NIC the machine builds in takes an nd_table slot (-nic ...,model=);
    a pluggable one is a -device on its own hub port."""
    onboard = arches.Nic('lan9118', 'smsc911x', ('SMSC911X',), onboard=True)
    plug = arches.Nic('e1000', 'e1000', ('E1000',))
    a = arches.Arch(name='t', kunit_arch='arm', cross_compile='', packages=(), qemu_binary='q',
                    nics=(onboard, plug), nic_qemu=('-machine', 'highmem=off'))
    assert a.nic_qemu_args() == [
        '-machine', 'highmem=off',
        '-nic', 'hubport,hubid=0,model=lan9118,mac=52:54:00:12:34:01',
        '-netdev', 'hubport,id=rxnic1,hubid=0',
        '-device', 'e1000,netdev=rxnic1,mac=52:54:00:12:34:02']


def test_pci_nics_load_no_option_rom() -> None:
    """A PCI NIC's option ROM comes from ipxe-qemu, which --no-install-recommends
    leaves out with qemu-system-misc (Debian 13's loongarch64 QEMU said "failed
    to find romfile efi-e1000e.rom"): none is asked for.  romfile is a property
    of PCI devices only, so the others (virtio-mmio, ccw, USB) go without it."""
    a = arches.Arch(name='t', kunit_arch='riscv', cross_compile='', packages=(),
                    qemu_binary='q', nics=(arches.E1000, arches.TULIP, arches.USB_NET,
                                           arches.VIRTIO_MMIO))
    devices = [arg for arg in a.nic_qemu_args() if arg.startswith(('e1000', 'tulip', 'usb',
                                                                   'virtio'))]
    assert [d.endswith(',romfile=') for d in devices] == [True, True, False, False]


def test_a_lone_nic_sends_to_itself_through_a_looped_socket() -> None:
    """One NIC has no other to send from: a UDP socket netdev on its hub whose
    peer is its own address sends each frame back; with two, no loop."""
    lone = arches.Arch(name='t', kunit_arch='sparc', cross_compile='', packages=(),
                       qemu_binary='q', nics=(arches.SUNLANCE,))
    assert lone.nic_qemu_args(4711) == [
        '-netdev', 'socket,id=rxloop,udp=127.0.0.1:4711,localaddr=127.0.0.1:4711',
        '-netdev', 'hubport,id=rxloopport,hubid=0,netdev=rxloop',
        '-nic', 'hubport,hubid=0,model=lance,mac=52:54:00:12:34:01']
    with pytest.raises(ValueError, match='free UDP port'):
        lone.nic_qemu_args()
    two = dataclasses.replace(lone, nics=(arches.SUNLANCE, arches.E1000))
    assert not any('rxloop' in arg for arg in two.nic_qemu_args(4711))
    assert 0 < free_udp_port() < 65536


def test_an_arch_a_kernel_cannot_build_names_a_kernel_we_run() -> None:
    for a in arches.ARCHES:
        for kernel, why in a.not_built_by:
            assert kernel in kernels.BY_NAME and why, a.name


def test_an_arch_a_kernel_cannot_build_is_refused_with_the_fix() -> None:
    """armeb on 7.3: environment (exit 4), naming the package and the way
    out; on 6.12 and on a --tree (the user's kernel) nothing is refused."""
    armeb = arches.BY_NAME['armeb']
    problem = run_kunit.unbuildable(kernels.BY_NAME['7.3'], armeb)
    assert problem and problem.status == Exit.ENVIRONMENT
    assert 'armeb cannot be built from linux-source-7.3' in problem.message
    assert 'CPU_BIG_ENDIAN' in problem.message and 'another --kernel' in problem.message
    assert run_kunit.unbuildable(kernels.BY_NAME['6.12'], armeb) is None
    assert run_kunit.unbuildable(None, armeb) is None
    assert run_kunit.unbuildable(kernels.BY_NAME['7.3'], arches.BY_NAME['arm']) is None


def test_every_nic_param_is_a_parameter_of_the_drivers_suite() -> None:
    """An arch's nic_params reach the suite on the kernel command line: a name
    the module does not have would be ignored by the kernel, silently."""
    c = (TESTS_DIR / 'rx_align_drivers_kunit.c').read_text()
    params = set(re.findall(r'^module_param_named\((\w+),', c, re.M))
    assert 'tx_csum' in params
    used = [a for a in arches.ARCHES if a.nic_params]
    assert used
    for a in used:
        for p in a.nic_params:
            assert p.split('=', 1)[0] in params, (a.name, p)
            assert f'--kernel_args={MODULE}.{p}' in nic_exec_args(a), a.name


# ---- issue 43 item 9: the drivers, not only QEMU's device names ----

def driver_rows() -> set[str]:
    """The drivers the drivers suite has a row for in rx_drivers[] (by the
    name each registers), positional or designated initializers."""
    text = (TESTS_DIR / 'rx_align_drivers_kunit.c').read_text()
    table = text.split('rx_drivers[] = {', 1)[1].split('\n};', 1)[0]
    return set(re.findall(r'\{\s*(?:\.name\s*=\s*)?"([\w-]+)"', table))


def test_every_nic_names_a_driver_the_suite_judges() -> None:
    """QEMU's rtl8139 is bound by 8139cp, sungem by gem: --list-arches named
    only QEMU's devices, so which driver an arch tests was nowhere said."""
    rows = driver_rows()
    assert {'e1000', 'tulip', '8139cp', 'gem'} <= rows
    for a in arches.ARCHES:
        for nic in a.nics:
            assert nic.driver in rows, (a.name, nic.qemu_device, nic.driver)


def test_the_drivers_a_saved_run_bound_are_its_arch_table_drivers() -> None:
    log = (Path(__file__).resolve().parent / 'fixtures/drivers/sparc64-tulip-unfixed.ktap')
    seen = set(re.findall(r'rx_align_frame: driver=([\w-]+)', log.read_text()))
    assert seen and seen <= {n.driver for n in arches.BY_NAME['sparc64'].nics}, seen


def test_list_arches_names_the_drivers(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_kunit.main(['--list-arches']) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert 'hme (sunhme), virtio_net (virtio-net-pci), e1000, tulip' in rows['sparc64']
    assert '8139cp (rtl8139)' in rows['x86_64'] and 'e100 (i82559er)' in rows['x86_64']


def test_every_nic_is_named_by_the_address_its_driver_reads() -> None:
    """sun4u's hme reads the IDPROM's address, not QEMU's mac=: the drivers
    suite was told 52:54:00:12:34:01, found no such device, and the sparc64
    boards failed rx_drivers_bound ("3 of the 4 NICs named came up")."""
    for a in arches.ARCHES:
        macs = a.nic_macs()
        assert len(set(macs)) == len(macs), a.name
        assert a.BYSTANDER_MAC not in macs, a.name
        for nic, mac in zip(a.nics, macs):
            assert mac == (nic.machine_mac or mac)
    sparc = arches.BY_NAME['sparc64']
    assert sparc.nic_macs()[sparc.nics.index(arches.SUNHME)] == '52:54:00:12:34:56'


def test_x86_pci_nics_boot_a_firmware_that_routes_intx() -> None:
    """kunit.py's qboot gives no MP table entry for a PCI interrupt: without
    ACPI (the slim config) x86_64's e1000, e100, ne2k-pci and 8139cp received
    only when their watchdogs polled (CI, 2026-12-07: two resends of every
    frame, 74 s).  --drivers boots SeaBIOS there, and checks it is installed:
    every firmware a NIC option names is one of the arch's files."""
    def bios(a: arches.Arch) -> List[str]:
        args = a.nic_qemu_args(4711) if a.nics else []
        return [args[i + 1] for i, arg in enumerate(args) if arg == '-bios']

    assert bios(arches.select('x86_64')[0]) == ['bios-256k.bin']
    for a in arches.ARCHES:
        assert all(any(Path(f).name == n for f in a.firmware) for n in bios(a)), a.name


def test_every_nic_kernel_arg_is_for_a_driver_of_the_arch() -> None:
    """A machine's driver parameters reach the kernel command line, each for a
    driver of one of its NICs (a parameter of a driver not built in is
    ignored by the kernel, silently).  sun4u's virtio_net sends without
    transmit NAPI: QEMU's sabre loses its transmit interrupt (arches.py)."""
    used = [a for a in arches.ARCHES if a.nic_kernel_args]
    assert {'sparc64', 'sparc64-virtio'} <= {a.name for a in used}
    for a in used:
        drivers = {n.driver for n in a.nics}
        for arg in a.nic_kernel_args:
            assert re.fullmatch(r'\w+\.\w+=\S+', arg), (a.name, arg)
            assert arg.split('.', 1)[0] in drivers, (a.name, arg)
            assert f'--kernel_args={arg}' in nic_exec_args(a), a.name
    assert 'virtio_net.napi_tx=0' in arches.BY_NAME['sparc64-virtio'].nic_kernel_args
