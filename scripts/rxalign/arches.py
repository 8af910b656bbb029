"""The architecture table: one entry per arch, nothing arch-specific elsewhere."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .paths import QEMU_CONFIGS
from .probes import SH_TBIT, Probe


@dataclasses.dataclass(frozen=True)
class Nic:
    """An emulated NIC for run-kunit --drivers: QEMU's device and what builds its driver."""
    qemu_device: str
    # the Linux driver that binds it, by the name it registers: the drivers
    # suite's driver= and its rx_drivers[] row (QEMU's rtl8139 is a C+ chip,
    # which 8139cp drives; sungem registers as gem, sunhme as hme)
    driver: str
    kconfig: Tuple[str, ...]   # CONFIG_ names, without the prefix
    # the machine builds it in and takes it from -nic (model=), not -device
    onboard: bool = False
    # the MAC address the guest's driver reads whatever QEMU's mac= says
    # (sun4u's hme: the machine's IDPROM address, OpenBIOS gives a PCI hme
    # no local-mac-address); '' when mac= holds
    machine_mac: str = ''

    @property
    def pci(self) -> bool:
        return 'PCI' in self.kconfig


_PCI = ('PCI',)
E1000 = Nic('e1000', 'e1000', _PCI + ('NET_VENDOR_INTEL', 'E1000'))
E1000E = Nic('e1000e', 'e1000e', _PCI + ('NET_VENDOR_INTEL', 'E1000E'))
IGB = Nic('igb', 'igb', _PCI + ('NET_VENDOR_INTEL', 'IGB'))    # QEMU 8.0 and later
E100 = Nic('i82559er', 'e100', _PCI + ('NET_VENDOR_INTEL', 'E100'))
RTL8139_CP = Nic('rtl8139', '8139cp', _PCI + ('NET_VENDOR_REALTEK', '8139CP'))
PCNET32 = Nic('pcnet', 'pcnet32', _PCI + ('NET_VENDOR_AMD', 'PCNET32'))
NE2K_PCI = Nic('ne2k_pci', 'ne2k-pci', _PCI + ('NET_VENDOR_8390', 'NE2K_PCI'))
TULIP = Nic('tulip', 'tulip', _PCI + ('NET_VENDOR_DEC', 'NET_TULIP', 'TULIP'))
VMXNET3 = Nic('vmxnet3', 'vmxnet3', _PCI + ('VMXNET3',))
# on the ISA bus at the card's default port (0x300), found by ne.c's boot probe
NE2K_ISA = Nic('ne2k_isa', 'ne', ('ISA', 'NET_VENDOR_8390', 'NE2000'))
VIRTIO_PCI = Nic('virtio-net-pci', 'virtio_net',
                 _PCI + ('VIRTIO_MENU', 'VIRTIO_PCI', 'VIRTIO_NET'))
# virtio_net's other receive modes (issue 40.2).  QEMU offers the guest TSO
# features only with a vnet_hdr backend, never with the hub the NICs share:
# without mergeable buffers the driver is in small-buffer mode, never in big-
# packet mode.  A legacy device (no VIRTIO_F_VERSION_1) has the 10-byte
# virtio_net_hdr in front of each frame instead of 12 bytes.
VIRTIO_PCI_SMALL = Nic('virtio-net-pci,mrg_rxbuf=off', 'virtio_net', VIRTIO_PCI.kconfig)
VIRTIO_PCI_LEGACY_SMALL = Nic('virtio-net-pci,disable-modern=on,mrg_rxbuf=off', 'virtio_net',
                              VIRTIO_PCI.kconfig)
VIRTIO_PCI_LEGACY = Nic('virtio-net-pci,disable-modern=on', 'virtio_net', VIRTIO_PCI.kconfig)
SUNGEM = Nic('sungem', 'gem', _PCI + ('NET_VENDOR_SUN', 'SUNGEM'))
IBMVETH = Nic('spapr-vlan', 'ibmveth', ('NET_VENDOR_IBM', 'IBMVETH'))
SUNHME = Nic('sunhme', 'hme', _PCI + ('NET_VENDOR_SUN', 'HAPPYMEAL'),
             machine_mac='52:54:00:12:34:56')
# the boards' own NICs
SMC91X = Nic('smc91c111', 'smc91x', ('GPIOLIB', 'NET_VENDOR_SMSC', 'SMC91X'), onboard=True)
LAN9118 = Nic('lan9118', 'smsc911x', ('NET_VENDOR_SMSC', 'SMSC911X'), onboard=True)
XGMAC = Nic('xgmac', 'calxedaxgmac', ('NET_CALXEDA_XGMAC',), onboard=True)
IMX_FEC = Nic('imx.enet', 'fec', ('NET_VENDOR_FREESCALE', 'FEC'), onboard=True)
FTGMAC100 = Nic('ftgmac100', 'ftgmac100', ('NET_VENDOR_FARADAY', 'FTGMAC100'), onboard=True)
# Zynq-7000's Cadence GEM (macb)
CADENCE_GEM = Nic('cadence_gem', 'macb', ('NET_VENDOR_CADENCE', 'MACB'), onboard=True)
# the Quadra 800's onboard DP83932 SONIC (macsonic)
MACSONIC = Nic('dp83932', 'macsonic', ('NET_VENDOR_NATSEMI', 'MACSONIC'), onboard=True)
# sun4m's Am7990 on the SBus (sunlance); the SS-5 has no slot for another
SUNLANCE = Nic('lance', 'sunlance', ('NET_VENDOR_AMD', 'SUNLANCE'), onboard=True)
VIRTIO_MMIO = Nic('virtio-net-device', 'virtio_net',
                  ('VIRTIO_MENU', 'VIRTIO_MMIO', 'VIRTIO_NET'))
# s390's channel I/O transport (virtio_ccw: S390_GUEST, on by default)
VIRTIO_CCW = Nic('virtio-net-ccw', 'virtio_net', ('VIRTIO_MENU', 'VIRTIO_NET'))
# QEMU's USB network function (CDC Ethernet; RNDIS is its other configuration)
USB_NET = Nic('usb-net', 'cdc_ether', ('USB_SUPPORT', 'USB', 'USB_NET_DRIVERS', 'USB_USBNET',
                                       'USB_NET_CDCETHER'))
# the virt machines' PCIe host bridge (ECAM), which kunit.py's configs leave out
_ECAM = ('PCI', 'PCI_HOST_GENERIC')
_X86_NICS = (E1000, E1000E, E100, PCNET32, NE2K_PCI, TULIP, VMXNET3, VIRTIO_PCI)


@dataclasses.dataclass(frozen=True)
class Arch:
    name: str                   # our name, used on the command line and in reports
    kunit_arch: str             # kunit.py --arch (ignored when qemu_config is set)
    cross_compile: str          # CROSS_COMPILE prefix, '' for the host compiler
    packages: Tuple[str, ...]   # Debian packages: compiler, QEMU, firmware
    qemu_binary: str            # what must be on PATH to boot it ('' for UML)
    firmware: Tuple[str, ...] = ()      # files QEMU loads at boot
    qemu_config: Optional[str] = None   # our own QemuArchParams file, where the tree has none
    own_config: str = ''                # why ours boots it even where the tree has one (arch_plan.boot)
    kmemleak_qemu_config: Optional[str] = None  # --debug: boots /init for the kmemleak scan
    # gcc flags that build the guest programs (scripts/initramfs/*.c) with the
    # tree's nolibc, for this kernel's CPU; None: none built, their suites skip
    nolibc_cflags: Optional[Tuple[str, ...]] = None
    # --coverage: the flags that build its /init (scripts/initramfs/gcov-dump.c)
    # with the tree's nolibc where nolibc_cflags is None (its kernel carries no
    # vhost program); both None: no --coverage on this arch
    coverage_cflags: Optional[Tuple[str, ...]] = None
    # the make target of what kunit.py's default config of kunit_arch boots;
    # with a qemu_config of ours, its kernel_path decides (boot.own_image)
    image: str = 'all'
    kconfig: Tuple[str, ...] = ()       # extra kconfig lines for this arch
    slim: Tuple[str, ...] = ()          # cuts on top of scripts/kconfig/slim.config
    # slim.config's cuts of symbols its Kconfig does not offer at all (kunit.py
    # counts a "# CONFIG_X is not set" that .config cannot have as lost)
    slim_absent: Tuple[str, ...] = ()
    default: bool = False               # part of a plain `run-kunit`
    defconfig: str = ''                 # compile-test: the make target of its base config
    compile_enable: Tuple[str, ...] = ()  # compile-test: options its defconfig leaves off
    nics: Tuple[Nic, ...] = ()          # --drivers: the NICs its QEMU machine is given
    nic_bus: Tuple[str, ...] = ()       # --drivers: what the machine's bus needs (CONFIG_ names)
    nic_qdev_bus: str = ''              # --drivers: the QEMU bus the NICs plug into, if not the default
    nic_qemu: Tuple[str, ...] = ()      # --drivers: QEMU options the NICs need first
    # --drivers: the drivers suite's module parameters this machine needs (name=value)
    nic_params: Tuple[str, ...] = ()
    # --drivers: kernel parameters of the NICs' drivers this machine needs
    # (driver.name=value, for a driver of one of its NICs)
    nic_kernel_args: Tuple[str, ...] = ()
    # --drivers: a NIC the guest brings up before the suite (ip=) and does
    # not name, which the suite must leave alone (its bystanders suite)
    bystander: Optional[Nic] = None
    probes: Tuple[Probe, ...] = ()      # compiler bugs to rule out before building
    policy: str = ''                    # one line for docs/arches.md and reports
    # the Debian release (debian_root.RELEASES) whose compiler and QEMU build
    # and boot it when the machine's release is older: --toolchain host
    toolchain: str = ''
    # another machine for that entry's kernel: one build (its directory and
    # the kconfig of every entry that shares it), booted on this entry's QEMU
    # machine; with another toolchain, the same kernel in a directory of its own
    kernel_of: str = ''
    # kernels (kernels.py names) whose Kconfig cannot build this arch, and why
    not_built_by: Tuple[Tuple[str, str], ...] = ()
    dtb: str = ''                       # the device tree it boots with (built by `make dtbs`)

    @property
    def init_cflags(self) -> Optional[Tuple[str, ...]]:
        """The nolibc flags of the --coverage /init (None: it cannot be built)."""
        return self.nolibc_cflags if self.nolibc_cflags is not None else self.coverage_cflags

    @property
    def srcarch(self) -> str:
        """The arch/ directory of its sources (kbuild's SRCARCH)."""
        return 'x86' if self.kunit_arch in ('x86_64', 'i386') else self.kunit_arch

    def qemu_config_path(self, kmemleak: bool = False) -> Optional[Path]:
        name = self.kmemleak_qemu_config if kmemleak else self.qemu_config
        return QEMU_CONFIGS / name if name else None

    def nic_kconfig(self) -> List[str]:
        """The options that build every NIC driver this arch is given."""
        names = dict.fromkeys([*self.nic_bus, *(o for nic in self.nics for o in nic.kconfig)])
        return ['CONFIG_NETDEVICES=y'] + [f'CONFIG_{o}=y' for o in names]

    def nic_macs(self) -> List[str]:
        """The MAC address QEMU gives each of the arch's NICs, in order."""
        return [n.machine_mac or f'52:54:00:12:34:{i + 1:02x}' for i, n in enumerate(self.nics)]

    BYSTANDER_MAC = '52:54:00:12:34:fe'
    # Its name: the bystander is the arch's first virtio NIC on the first PCI
    # slot, and virtio_net registers before the Ethernet drivers.
    BYSTANDER_IFNAME = 'eth0'

    def bystander_kernel_args(self) -> List[str]:
        """ip= brings the bystander up before the suites; the suite is told to
        find it up and leave it so."""
        if not self.bystander:
            return []
        return [f'ip=192.0.2.99::::rxalign:{self.BYSTANDER_IFNAME}:off',
                f'rx_align_drivers_kunit.up_before={self.BYSTANDER_MAC}']

    def nic_qemu_args(self, loop_port: int = 0) -> List[str]:
        """Every NIC on one QEMU hub: the guest's own link, no host network.  A
        lone NIC sends to itself: a UDP socket on the hub whose peer is its own
        address (127.0.0.1:@loop_port) sends every frame back."""
        args: List[str] = list(self.nic_qemu)
        if len(self.nics) == 1:
            if not loop_port:
                raise ValueError(f'{self.name} has one NIC: its loop needs a free UDP port')
            addr = f'127.0.0.1:{loop_port}'
            args += ['-netdev', f'socket,id=rxloop,udp={addr},localaddr={addr}',
                     '-netdev', 'hubport,id=rxloopport,hubid=0,netdev=rxloop']
        bus = f',bus={self.nic_qdev_bus}' if self.nic_qdev_bus else ''
        if self.bystander:
            # first, so that it takes the first PCI slot (and eth0)
            args += ['-netdev', 'hubport,id=rxbystander,hubid=0', '-device',
                     f'{self.bystander.qemu_device},netdev=rxbystander,'
                     f'mac={self.BYSTANDER_MAC},romfile=']
        for i, (nic, address) in enumerate(zip(self.nics, self.nic_macs())):
            mac = f'mac={address}'
            if nic.onboard:
                args += ['-nic', f'hubport,hubid=0,model={nic.qemu_device},{mac}']
            else:
                # no option ROM: nothing boots from the network, and QEMU then
                # needs no ipxe-qemu, which Debian's qemu-system-misc only recommends
                rom = ',romfile=' if nic.pci else ''
                args += ['-netdev', f'hubport,id=rxnic{i},hubid=0',
                         '-device', f'{nic.qemu_device},netdev=rxnic{i},{mac}{bus}{rom}']
        return args


_PPC = ('gcc-powerpc64-linux-gnu', 'binutils-powerpc64-linux-gnu', 'qemu-system-ppc')
_X86_SLIM = tuple(f'# CONFIG_{o} is not set' for o in (
    'ACPI', 'CPU_MITIGATIONS', 'DMI', 'X86_VSYSCALL_EMULATION', 'X86_IOPL_IOPERM', 'X86_16BIT',
    'MODIFY_LDT_SYSCALL', 'X86_5LEVEL', 'X86_INTEL_MEMORY_PROTECTION_KEYS',
    'RANDOMIZE_BASE', 'IOMMU_SUPPORT', 'SERIO', 'DEVPORT'))
# The fixups suite counts alignment traps with a perf software event.
_PERF = ('CONFIG_PERF_EVENTS=y',)
_DATA = 'qemu-system-data'   # the firmware blobs under /usr/share/qemu


def _cross(gcc: str, qemu: str) -> Tuple[str, ...]:
    return (gcc, qemu, _DATA)


# QEMU's sun4u PCI host (hw/pci-host/sabre.c, 7.2 and since) holds one
# interrupt request: a second device's raise replaces the one the CPU has
# taken, and the taken one's clear (ICLR) then matches nothing, so the second
# is never delivered nor looked for again.  A virtio_net that sends raises its
# transmit interrupt right after the receiving NIC's: it is lost, virtio_net's
# byte queue limit (napi_tx, 6.11+) never sees the frame completed and stops
# the queue for good (tx 0 packets; NETDEV WATCHDOG).  Without transmit NAPI
# virtio_net reaps its ring on each send and asks for no transmit interrupt.
_SABRE_VIRTIO_TX = ('virtio_net.napi_tx=0',)
_X86_64_PACKAGES = ('gcc', 'qemu-system-x86', 'seabios')
_QBOOT = ('/usr/share/qemu/qboot.rom',)
_SEABIOS = '/usr/share/seabios/bios-256k.bin'
# --drivers boots SeaBIOS, not kunit.py's qboot: qboot's MP table has no PCI
# interrupt entries, so without ACPI ("can't find IRQ for PCI INT A") a NIC
# without MSI (e1000, e100, ne2k-pci, 8139cp) received only when its
# watchdog polled: two resends per frame, the suite 74 s instead of 6 s.
_X86_NIC_FIRMWARE = ('-bios', Path(_SEABIOS).name)
_ARM_HF = 'arm-linux-gnueabihf-'
_ARM_HF_PACKAGES = _cross('gcc-arm-linux-gnueabihf', 'qemu-system-arm')


def _arm_board(name: str, dtb: str, nics: Tuple[Nic, ...], kconfig: Tuple[str, ...],
               policy: str, nic_bus: Tuple[str, ...] = (), toolchain: str = '',
               nic_params: Tuple[str, ...] = ()) -> Arch:
    """A board that boots the arm entry's multi_v7 kernel: its machine and
    console in scripts/qemu_configs/<name>.py, its device tree, its NICs."""
    return Arch(name=name, kunit_arch='arm', cross_compile=_ARM_HF, packages=_ARM_HF_PACKAGES,
                qemu_binary='qemu-system-arm', qemu_config=f'{name}.py',
                kernel_of='arm', dtb=dtb, kconfig=kconfig, nics=nics, nic_bus=nic_bus,
                nic_params=nic_params, toolchain=toolchain, policy=policy)


ARCHES: Tuple[Arch, ...] = (
    Arch(name='x86_64', kunit_arch='x86_64', cross_compile='',
         packages=_X86_64_PACKAGES, qemu_binary='qemu-system-x86_64',
         firmware=_QBOOT + (_SEABIOS,), default=True, slim=_X86_SLIM,
         kmemleak_qemu_config='x86_64-kmemleak.py', defconfig='x86_64_defconfig',
         nolibc_cflags=(),
         # a second e1000 and virtio_net: two NICs of one driver, each its
         # own case (e1000_2, virtio_net_2), counts and baseline cells
         nics=_X86_NICS + (RTL8139_CP, USB_NET, E1000, VIRTIO_PCI),
         nic_qemu=('-device', 'qemu-xhci') + _X86_NIC_FIRMWARE,
         # the xHCI host interrupts by MSI: without an ACPI table no PCI
         # INTx line reaches it, and its command ring stops
         nic_bus=('PCI_MSI', 'USB_XHCI_HCD'), bystander=VIRTIO_PCI,
         policy='NET_IP_ALIGN 0 (arch override), 4K pages'),
    # x86_64's kernel, built and booted in the Debian 13 root: QEMU 10 has igb
    Arch(name='x86_64-igb', kunit_arch='x86_64', cross_compile='',
         packages=_X86_64_PACKAGES, qemu_binary='qemu-system-x86_64',
         firmware=_QBOOT, kernel_of='x86_64', toolchain='debian-13',
         nics=(IGB, E1000),
         policy='x86_64 pc under QEMU 10 (Debian 13): NET_IP_ALIGN 0 (arch override)'),
    Arch(name='powerpc', kunit_arch='powerpc', cross_compile='powerpc64-linux-gnu-',
         packages=_PPC, qemu_binary='qemu-system-ppc64',
         firmware=('/usr/share/qemu/vof.bin',), qemu_config='powerpc.py',
         own_config='VOF, not SLOF: SLOF takes 9 of the 10 s a boot takes under TCG',
         default=True, defconfig='ppc64_defconfig', nics=(IBMVETH, E1000, VIRTIO_PCI),
         policy='ppc64 pseries: NET_IP_ALIGN 0 (arch override), 64K pages'),
    Arch(name='powerpc32', kunit_arch='powerpc', cross_compile='powerpc64-linux-gnu-',
         packages=_PPC, qemu_binary='qemu-system-ppc',
         firmware=('/usr/share/qemu/openbios-ppc',),
         qemu_config='powerpc32.py', default=True,
         defconfig='pmac32_defconfig',
         # as tools/testing/selftests/nolibc builds ppc (Debian's cross gcc has
         # no 32-bit libgcc: the program is built without it)
         coverage_cflags=('-m32', '-mbig-endian', '-mno-vsx', '-mmultiple'),
         nics=(E1000, E100, RTL8139_CP, PCNET32, NE2K_PCI, TULIP, SUNGEM, VIRTIO_PCI),
         policy='ppc32 g3beige: NET_IP_ALIGN 2 (generic), 4K pages'),
    # The rest of kunit.py 6.12's QEMU configs, plus ppc64le and UML.
    Arch(name='i386', kunit_arch='i386', cross_compile='',
         packages=('gcc', 'qemu-system-x86', 'seabios'), qemu_binary='qemu-system-i386',
         firmware=(_SEABIOS,), slim=_X86_SLIM,
         # 3c515 is ISA, which only 32-bit x86 has
         defconfig='i386_defconfig', compile_enable=('ISA',),
         nics=_X86_NICS + (RTL8139_CP, NE2K_ISA),
         policy='x86 32-bit: NET_IP_ALIGN 0 (arch override)'),
    Arch(name='arm64', kunit_arch='arm64', cross_compile='aarch64-linux-gnu-',
         packages=_cross('gcc-aarch64-linux-gnu', 'qemu-system-arm'),
         qemu_binary='qemu-system-aarch64',
         nics=(E1000E, E1000, RTL8139_CP, TULIP, VIRTIO_PCI), nic_bus=_ECAM,
         policy='NET_IP_ALIGN 0 (arch override), 4K pages'),
    Arch(name='arm', kunit_arch='arm', cross_compile=_ARM_HF, packages=_ARM_HF_PACKAGES,
         qemu_binary='qemu-system-arm',
         # no tulip: on 6.12 its probe gave up without a word (enabling the
         # device, then no netdev; not looked into), which rx_drivers_bound failed
         nics=(E1000E, E1000, RTL8139_CP, PCNET32, NE2K_PCI, VMXNET3, VIRTIO_PCI),
         # the PCIe host's ECAM below 4 GB: the kernel, shared with the
         # Cortex-A9 boards, has no LPAE to reach it above
         nic_bus=_ECAM, nic_qemu=('-machine', 'highmem=off'), kconfig=_PERF,
         policy='ARMv7 virt: NET_IP_ALIGN 2 (generic)'),
    Arch(name='riscv', kunit_arch='riscv', cross_compile='riscv64-linux-gnu-',
         packages=_cross('gcc-riscv64-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-riscv64',
         firmware=('/usr/share/qemu/opensbi-riscv64-generic-fw_dynamic.bin',), image='Image',
         nics=(E1000E, E1000, RTL8139_CP, TULIP, VIRTIO_PCI), nic_bus=_ECAM,
         policy='rv64 virt: NET_IP_ALIGN 2 (generic)'),
    Arch(name='s390', kunit_arch='s390', cross_compile='s390x-linux-gnu-',
         packages=_cross('gcc-s390x-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-s390x', firmware=('/usr/share/qemu/s390-ccw.img',),
         # one virtio-net-ccw, looped back to itself as sunlance is
         nics=(VIRTIO_CCW,),
         policy='NET_IP_ALIGN 2, NET_SKB_PAD 32 (arch override: 256-byte cache lines)'),
    Arch(name='m68k', kunit_arch='m68k', cross_compile='m68k-linux-gnu-',
         packages=_cross('gcc-m68k-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-m68k', image='vmlinux',
         policy='m68k virt: NET_IP_ALIGN 2 (generic), big-endian'),
    # boots m68k's kernel, which runs on virt and on Macs alike (68040)
    Arch(name='m68k-q800', kunit_arch='m68k', cross_compile='m68k-linux-gnu-',
         packages=_cross('gcc-m68k-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-m68k', qemu_config='m68k-q800.py',
         kernel_of='m68k', nics=(MACSONIC,),
         kconfig=('CONFIG_MAC=y', 'CONFIG_SERIAL_PMACZILOG=y', 'CONFIG_SERIAL_PMACZILOG_TTYS=y',
                  'CONFIG_SERIAL_PMACZILOG_CONSOLE=y'),
         policy='Quadra 800 (68040): NET_IP_ALIGN 2 (generic), big-endian'),
    Arch(name='sparc', kunit_arch='sparc', cross_compile='sparc64-linux-gnu-',
         packages=_cross('gcc-sparc64-linux-gnu', 'qemu-system-sparc'),
         qemu_binary='qemu-system-sparc', firmware=('/usr/share/qemu/openbios-sparc32',),
         nics=(SUNLANCE,),
         policy='SPARC32: NET_IP_ALIGN 2 (generic), big-endian'),
    Arch(name='alpha', kunit_arch='alpha', cross_compile='alpha-linux-gnu-',
         packages=_cross('gcc-alpha-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-alpha', firmware=('/usr/share/qemu/palcode-clipper',),
         # clipper routes an interrupt to PCI slots 1-6 only (clipper_map_irq);
         # QEMU's own devices take some of them
         nics=(TULIP, E1000, RTL8139_CP, PCNET32, NE2K_PCI),
         policy='NET_IP_ALIGN 2 (generic), 8K pages'),
    Arch(name='sh', kunit_arch='sh', cross_compile='sh4-linux-gnu-',
         packages=_cross('gcc-sh4-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-sh4', kconfig=_PERF, probes=(SH_TBIT,),
         # Debian 12's GCC 12.2 miscompiles it (the probe), Debian 13's 14.2 does not
         toolchain='debian-13',
         policy='SH-4 r2d: NET_IP_ALIGN 2 (generic)'),
    Arch(name='um', kunit_arch='um', cross_compile='', packages=('gcc',), qemu_binary='',
         policy='UML x86_64: NET_IP_ALIGN 2 (generic: UML does not take x86\'s override)'),
    Arch(name='powerpcle', kunit_arch='powerpc', cross_compile='powerpc64le-linux-gnu-',
         packages=_cross('gcc-powerpc64le-linux-gnu', 'qemu-system-ppc'),
         qemu_binary='qemu-system-ppc64', firmware=('/usr/share/qemu/vof.bin',),
         qemu_config='powerpcle.py',
         own_config='VOF, not SLOF (powerpc)',
         policy='ppc64le pseries: NET_IP_ALIGN 0 (arch override), 64K pages'),
    # Strict-alignment CPUs, the ones NET_IP_ALIGN exists for: a misaligned
    # load traps into the kernel's unaligned-access emulation.
    Arch(name='mips', kunit_arch='mips', cross_compile='mips-linux-gnu-',
         packages=_cross('gcc-mips-linux-gnu', 'qemu-system-mips'),
         qemu_binary='qemu-system-mips', qemu_config='mips.py', kconfig=_PERF,
         nolibc_cflags=('-EB', '-mabi=32'),
         # only four NICs here: on QEMU's malta, slots 0x12-0x15 got an
         # interrupt, the next three IRQ 0 (ne2k-pci, tulip: -EBUSY on open;
         # virtio_net: probe -ENOSPC), which rx_drivers_bound failed
         nics=(E1000, E100, RTL8139_CP, PCNET32),
         policy='MIPS32r2 malta: NET_IP_ALIGN 2 (generic), big-endian'),
    Arch(name='mipsel', kunit_arch='mips', cross_compile='mipsel-linux-gnu-',
         packages=_cross('gcc-mipsel-linux-gnu', 'qemu-system-mips'),
         qemu_binary='qemu-system-mipsel', qemu_config='mipsel.py', kconfig=_PERF,
         policy='MIPS32r2 malta: NET_IP_ALIGN 2 (generic), little-endian'),
    Arch(name='mips64', kunit_arch='mips', cross_compile='mips64-linux-gnuabi64-',
         packages=_cross('gcc-mips64-linux-gnuabi64', 'qemu-system-mips'),
         qemu_binary='qemu-system-mips64', qemu_config='mips64.py', kconfig=_PERF,
         policy='MIPS64r2 malta: NET_IP_ALIGN 2 (generic), big-endian'),
    Arch(name='mips64el', kunit_arch='mips', cross_compile='mips64el-linux-gnuabi64-',
         packages=_cross('gcc-mips64el-linux-gnuabi64', 'qemu-system-mips'),
         qemu_binary='qemu-system-mips64el', qemu_config='mips64el.py', kconfig=_PERF,
         policy='MIPS64r2 malta: NET_IP_ALIGN 2 (generic), little-endian'),
    Arch(name='sparc64', kunit_arch='sparc', cross_compile='sparc64-linux-gnu-',
         packages=_cross('gcc-sparc64-linux-gnu', 'qemu-system-sparc'),
         qemu_binary='qemu-system-sparc64', firmware=('/usr/share/qemu/openbios-sparc64',),
         qemu_config='sparc64.py', kconfig=_PERF,
         # sun4u's root bus has only its two Simba bridges; pciA holds the
         # onboard devices and has no free slot, pciB is empty
         nics=(SUNHME, VIRTIO_PCI, E1000, TULIP), nic_qdev_bus='pciB',
         nic_kernel_args=_SABRE_VIRTIO_TX,
         # --coverage with 7.3's nolibc (6.12's has no sparc); the /init
         # powers off: a reset boots OpenBIOS again
         coverage_cflags=('-DRX_GCOV_STOP=LINUX_REBOOT_CMD_POWER_OFF',),
         policy='UltraSPARC sun4u: NET_IP_ALIGN 2 (generic), big-endian, 8K pages'),
    # sparc64's kernel with virtio_net in the receive modes the entry above
    # lacks (pciB has four slots).  virtio_net sends to hme: without
    # _SABRE_VIRTIO_TX hme lost every frame after the first
    Arch(name='sparc64-virtio', kunit_arch='sparc', cross_compile='sparc64-linux-gnu-',
         packages=_cross('gcc-sparc64-linux-gnu', 'qemu-system-sparc'),
         qemu_binary='qemu-system-sparc64', firmware=('/usr/share/qemu/openbios-sparc64',),
         qemu_config='sparc64.py', kconfig=_PERF, kernel_of='sparc64',
         nics=(SUNHME, VIRTIO_PCI_SMALL, VIRTIO_PCI_LEGACY, VIRTIO_PCI_LEGACY_SMALL),
         nic_qdev_bus='pciB', nic_kernel_args=_SABRE_VIRTIO_TX,
         policy='UltraSPARC sun4u: NET_IP_ALIGN 2 (generic); virtio_net small, legacy '
                'mergeable, legacy small'),
    Arch(name='parisc', kunit_arch='parisc', cross_compile='hppa-linux-gnu-',
         packages=_cross('gcc-hppa-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-hppa', firmware=('/usr/share/qemu/hppa-firmware.img',),
         qemu_config='parisc.py',
         # on the Dino PCI bus.  No e100: its command blocks, one coherent
         # allocation of 256 x ~560 bytes, exceed the 32 pages PCX-L's DMA
         # maps at once: open() panics in pcxl_alloc_range(), "Too many pages
         # to map" (a real B160L's would too).  No tulip: on QEMU 7.2's Dino
         # it passes up none of the frames sent to it (rx 0 packets, Dino
         # "stuck interrupt 2"), which the suite fails as it should.
         nics=(E1000, RTL8139_CP, PCNET32, NE2K_PCI),
         policy='PA-RISC 1.1 B160L, 32-bit: NET_IP_ALIGN 2 (generic), big-endian'),
    # The other byte order and word size of two arches above.
    Arch(name='armeb', kunit_arch='arm', cross_compile='arm-linux-gnueabi-',
         packages=_cross('gcc-arm-linux-gnueabi', 'qemu-system-arm'),
         qemu_binary='qemu-system-arm', qemu_config='armeb.py',
         not_built_by=(('7.3', 'big-endian ARM is deprecated there: CPU_BIG_ENDIAN '
                               'depends on ARCH_MULTI_V5 || BROKEN (arch/arm/mm/Kconfig)'),),
         policy='ARMv7 virt, big-endian (BE8): NET_IP_ALIGN 2 (generic)'),
    Arch(name='riscv32', kunit_arch='riscv', cross_compile='riscv64-linux-gnu-',
         packages=_cross('gcc-riscv64-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-riscv32', qemu_config='riscv32.py',
         own_config='M-mode: Debian 12 has no rv32 OpenSBI for the tree\'s S-mode kernel',
         policy='rv32 virt, M-mode without MMU: NET_IP_ALIGN 2 (generic)'),
    # An ARM CPU that traps on misaligned loads, with PCI.
    Arch(name='armv5', kunit_arch='arm', cross_compile='arm-linux-gnueabi-',
         packages=_cross('gcc-arm-linux-gnueabi', 'qemu-system-arm'),
         qemu_binary='qemu-system-arm', qemu_config='armv5.py',
         dtb='versatile-pb.dtb', kconfig=_PERF,
         slim_absent=('# CONFIG_HIBERNATION is not set', '# CONFIG_SECRETMEM is not set'),
         # no virtio_net: on versatilepb (QEMU 7.2, 6.12) the frames it sent
         # carried 4 bytes in front of the MAC header, and it dropped every
         # frame it received, whatever the sender (a pcap of the hub shows both)
         nics=(SMC91X, RTL8139_CP, E1000, PCNET32, NE2K_PCI, TULIP),
         nic_bus=('PCI', 'PCI_VERSATILE'),
         policy='ARMv5 ARM926EJ-S versatilepb: NET_IP_ALIGN 2 (generic), traps on misaligned loads'),
    # The armv5 kernel on an i.MX25: its FEC has no RACC, so the driver
    # cannot shift the frame by 2 (issue 40.3); QEMU's model receives (a
    # DHCP answer reached Linux's fec on it), one NIC looped back
    Arch(name='armv5-imx25', kunit_arch='arm', cross_compile='arm-linux-gnueabi-',
         packages=_cross('gcc-arm-linux-gnueabi', 'qemu-system-arm'),
         qemu_binary='qemu-system-arm', qemu_config='armv5-imx25.py',
         kernel_of='armv5', dtb='imx25-pdk.dtb',
         kconfig=('CONFIG_ARCH_MXC=y', 'CONFIG_SOC_IMX25=y', 'CONFIG_SERIAL_IMX=y',
                  'CONFIG_SERIAL_IMX_CONSOLE=y',
                  # the FEC's PHY supply is a GPIO-switched fixed regulator
                  'CONFIG_GPIO_MXC=y', 'CONFIG_REGULATOR=y',
                  'CONFIG_REGULATOR_FIXED_VOLTAGE=y',
                  # kunit.py's reboot resets the SoC through its watchdog
                  'CONFIG_WATCHDOG=y', 'CONFIG_IMX2_WDT=y'),
         nics=(IMX_FEC,),
         policy='ARMv5 ARM926EJ-S i.MX25 PDK: NET_IP_ALIGN 2 (generic), traps on '
                'misaligned loads'),
    # Boards with the NICs SoCs carry, booting the arm entry's multi_v7 kernel.
    _arm_board('arm-vexpress', 'vexpress-v2p-ca9.dtb', (LAN9118, VIRTIO_MMIO),
               ('CONFIG_ARCH_VEXPRESS=y',),
               policy='Cortex-A9 vexpress-a9: NET_IP_ALIGN 2 (generic)'),
    _arm_board('arm-highbank', 'highbank.dtb', (XGMAC, XGMAC), ('CONFIG_ARCH_HIGHBANK=y',),
               policy='Cortex-A9 Calxeda Highbank: NET_IP_ALIGN 2 (generic)'),
    # the board's device tree enables all four MACs
    _arm_board('arm-ast2600', 'aspeed-ast2600-evb.dtb', (FTGMAC100,) * 4,
               ('CONFIG_ARCH_ASPEED=y', 'CONFIG_MACH_ASPEED_G6=y', 'CONFIG_SERIAL_8250=y',
                'CONFIG_SERIAL_8250_CONSOLE=y', 'CONFIG_SERIAL_OF_PLATFORM=y',
                # the console is the fifth UART: ttyS4
                'CONFIG_SERIAL_8250_NR_UARTS=5', 'CONFIG_SERIAL_8250_RUNTIME_UARTS=5',
                'CONFIG_WATCHDOG=y', 'CONFIG_ASPEED_WATCHDOG=y'),
               nic_bus=('MDIO_DEVICE', 'MDIO_ASPEED'),
               policy='Cortex-A7 AST2600 EVB: NET_IP_ALIGN 2 (generic)'),
    # the board's device tree enables the first of the SoC's two GEMs: alone,
    # it sends to itself.  tx_csum=0: macb appends the FCS of a frame it is
    # not asked to checksum in software, and QEMU 7.2's GEM sends nothing
    # over 1518 bytes ("TX descriptor ... too large: size 0x5f2 space
    # 0x5ee" under -d guest_errors), so the tagged 1518-byte frame was lost
    _arm_board('arm-zynq', 'zynq-zc702.dtb', (CADENCE_GEM,),
               ('CONFIG_ARCH_ZYNQ=y', 'CONFIG_SERIAL_XILINX_PS_UART=y',
                'CONFIG_SERIAL_XILINX_PS_UART_CONSOLE=y'), nic_params=('tx_csum=0',),
               policy='Cortex-A9 Xilinx Zynq-7000 ZC702: NET_IP_ALIGN 2 (generic)'),
    _arm_board('arm-imx7', 'imx7d-sdb.dtb', (IMX_FEC, IMX_FEC),
               ('CONFIG_ARCH_MXC=y', 'CONFIG_SOC_IMX7D=y', 'CONFIG_SERIAL_IMX=y',
                'CONFIG_SERIAL_IMX_CONSOLE=y',
                # the first ENET's PHY reset line is on a 74HC595 behind spi-gpio
                'CONFIG_GPIO_MXC=y', 'CONFIG_SPI=y', 'CONFIG_SPI_GPIO=y', 'CONFIG_GPIO_74X164=y'),
               # both PHYs sit on the first ENET's MDIO bus, which QEMU models
               # from 8.1 on: 7.2's second ENET finds no PHY
               toolchain='debian-13',
               policy='Cortex-A7 i.MX7 Dual SABRE: NET_IP_ALIGN 2 (generic)'),
    # Debian 12 has no LoongArch cross compiler; Debian 13 has GCC 14 and QEMU 10.
    Arch(name='loongarch64', kunit_arch='loongarch', cross_compile='loongarch64-linux-gnu-',
         packages=_cross('gcc-loongarch64-linux-gnu', 'qemu-system-misc'),
         qemu_binary='qemu-system-loongarch64', qemu_config='loongarch64.py',
         kconfig=_PERF, toolchain='debian-13',
         nics=(E1000E, E1000, RTL8139_CP, TULIP, VIRTIO_PCI), nic_bus=_ECAM,
         policy='LoongArch64 virt (la464): NET_IP_ALIGN 2 (generic), 16K pages'),
)

BY_NAME: Dict[str, Arch] = {a.name: a for a in ARCHES}


def builder(arch: Arch) -> Arch:
    """The entry whose build @arch boots: itself, or its kernel_of."""
    return BY_NAME[arch.kernel_of] if arch.kernel_of else arch


def nic_kernel(arch: Arch) -> bool:
    """Whether @arch's kernel is booted with NICs by any entry (the entry itself
    or a board): then it has their drivers and the drivers suite built in."""
    base = builder(arch)
    return any(a.nics for a in ARCHES if builder(a) is base)


def default_arches() -> List[Arch]:
    return [a for a in ARCHES if a.default]


def select(spec: Optional[str], boards: bool = False) -> List[Arch]:
    """Turn '--arch a,b' or 'all' into table entries; KeyError names the unknown one.
    'all' takes the boards that boot another entry's kernel only with @boards
    (--drivers: their NICs are what they add)."""
    if not spec:
        return default_arches()
    if spec == 'all':
        return [a for a in ARCHES if boards or not a.kernel_of]
    chosen: List[Arch] = []
    for name in (n.strip() for n in spec.split(',')):
        if not name:
            continue
        if name not in BY_NAME:
            raise KeyError(name)
        if BY_NAME[name] not in chosen:
            chosen.append(BY_NAME[name])
    return chosen
