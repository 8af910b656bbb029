# SPDX-License-Identifier: GPL-2.0
# ARM Versatile/PB (ARM926EJ-S, ARMv5): an ARM CPU that traps on a misaligned
# word load, which arch/arm/mm/alignment.c then emulates, the cost
# NET_IP_ALIGN 2 keeps off the receive path (ARMv6 and later load unaligned
# words themselves).  The board's smc91c111 and its PCI bus take the NICs.
# The board has 256 MB below its devices (QEMU refuses more): the -m after
# kunit.py's own wins.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
# CONFIG_ARCH_MULTI_V7 is not set
CONFIG_ARCH_MULTI_V5=y
CONFIG_ARCH_VERSATILE=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'versatilepb', '-m', '256'])
