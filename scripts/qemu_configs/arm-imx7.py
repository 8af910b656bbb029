# SPDX-License-Identifier: GPL-2.0
# NXP i.MX7 Dual SABRE (Cortex-A7), booting the arm entry's kernel: its
# two ENETs (fec).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttymxc0',
			   extra_qemu_params=['-machine', 'mcimx7d-sabre'])
