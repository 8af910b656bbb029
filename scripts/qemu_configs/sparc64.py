# SPDX-License-Identifier: GPL-2.0
# UltraSPARC (sun4u), 64-bit big-endian with 8K pages: SPARC traps on every
# misaligned load and the kernel emulates it (arch/sparc/kernel/unaligned_64.c).
# kunit.py 6.12 has SPARC32 only.  QEMU loads the ELF vmlinux and
# OpenBIOS (openbios-sparc64) starts it; the console is the PCI/ebus 16550
# ("su", ttyS0).  A reboot does not end the guest: OpenBIOS's "boot" returns
# and the kernel panics "Reboot failed!" in a loop, so the suites' verdict
# would end in a crash; power-off ("SUNW,power-off") makes QEMU exit.  kunit.py
# 6.12 appends kunit_shutdown=reboot to this line and the last value wins, so
# the line ends with "--": what follows it goes to init, not to the kernel.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='sparc',
			   kconfig='''
CONFIG_64BIT=y
CONFIG_PCI=y
CONFIG_SERIAL_SUNSU=y
CONFIG_SERIAL_SUNSU_CONSOLE=y''',
			   qemu_arch='sparc64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0 kunit_shutdown=poweroff --',
			   extra_qemu_params=['-M', 'sun4u'])
