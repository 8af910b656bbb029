# SPDX-License-Identifier: GPL-2.0
# ASPEED AST2600 evaluation board (Cortex-A7), booting the arm entry's
# kernel: two of its four FTGMAC100s.  QEMU wires its first serial port to
# the board's console UART, UART5 (ttyS4).  Without an early console on it
# the guest reset itself within a second of starting, silently (QEMU 7.2,
# 6.12; not looked into further): with one it boots and runs.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='earlycon=uart8250,mmio32,0x1e784000 console=ttyS4',
			   extra_qemu_params=['-machine', 'ast2600-evb'])
