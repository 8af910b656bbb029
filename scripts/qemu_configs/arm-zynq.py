# SPDX-License-Identifier: GPL-2.0
# Xilinx Zynq-7000 (Cortex-A9) as on the ZC702, booting the arm entry's
# kernel: its first Cadence GEM (macb), alone.  The board's console is the
# second UART (serial0 = &uart1 in its device tree): QEMU gives the first
# -serial to the first UART, so that one goes nowhere.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyPS0',
			   serial='null',
			   extra_qemu_params=['-machine', 'xilinx-zynq-a9', '-serial', 'stdio'])
