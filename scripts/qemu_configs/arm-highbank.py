# SPDX-License-Identifier: GPL-2.0
# Calxeda Highbank (Cortex-A9), booting the arm entry's kernel: its two
# XGMACs (calxedaxgmac).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'highbank'])
