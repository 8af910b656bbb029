# SPDX-License-Identifier: GPL-2.0
# PA-RISC 1.1 (QEMU's HP B160L), 32-bit big-endian: a misaligned load traps
# and the kernel emulates it (arch/parisc/kernel/unaligned.c).  QEMU 7.2
# emulates only 32-bit PA-RISC.  Its SeaBIOS-hppa firmware
# (hppa-firmware.img) starts the ELF vmlinux; the console is the 16550 on
# the Dino/LASI chips (8250_parisc, ttyS0); a reboot goes through the
# firmware's PDC reset to a QEMU reset, which -no-reboot turns into an exit.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='parisc',
			   kconfig='''
# CONFIG_64BIT is not set
CONFIG_PCI=y
CONFIG_GSC_DINO=y
CONFIG_GSC_LASI=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_8250_PARISC=y''',
			   qemu_arch='hppa',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'hppa'])
