# SPDX-License-Identifier: GPL-2.0
# MIPS Malta, 32-bit little-endian (MIPS32r2 24Kf).  A MIPS CPU traps on a misaligned
# load and the kernel emulates it (arch/mips/kernel/unaligned.c), the cost
# NET_IP_ALIGN 2 keeps off the receive path.  QEMU's malta loads the ELF
# vmlinux itself (no zboot wrapper to build); the console is the PIIX4
# 16550 (ttyS0); the board's syscon-reboot register resets it, so
# kunit.py's kunit_shutdown=reboot with -no-reboot ends QEMU.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='mips',
			   kconfig='''
CONFIG_MIPS_MALTA=y
CONFIG_32BIT=y
CONFIG_CPU_MIPS32_R2=y
CONFIG_CPU_LITTLE_ENDIAN=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_POWER_RESET=y
CONFIG_POWER_RESET_SYSCON=y''',
			   qemu_arch='mipsel',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'malta', '-cpu', '24Kf'])
