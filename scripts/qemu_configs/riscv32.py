# SPDX-License-Identifier: GPL-2.0
# RV32 virt.  Debian 12's qemu-system-data and opensbi ship OpenSBI for
# rv64 only, and an S-mode kernel needs an SBI firmware below it; so this
# kernel runs in M-mode itself (RISCV_M_MODE, which needs MMU off) and
# QEMU starts it with no firmware.  The skb allocators do not care about
# the MMU; rv32 keeps the generic NET_IP_ALIGN 2 and 32-bit longs.  The
# virt board's syscon reboot device ends QEMU on kunit_shutdown=reboot.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='riscv',
			   kconfig='''
CONFIG_NONPORTABLE=y
CONFIG_ARCH_RV32I=y
# CONFIG_MMU is not set
CONFIG_ARCH_VIRT=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y''',
			   qemu_arch='riscv32',
			   kernel_path='arch/riscv/boot/Image',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-machine', 'virt', '-bios', 'none'])
