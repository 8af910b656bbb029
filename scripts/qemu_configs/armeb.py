# SPDX-License-Identifier: GPL-2.0
# ARMv7 virt, big-endian (BE8): the arm entry's machine and CPU in the
# other byte order, so the IP header checks also run where the 16-bit
# EtherType and the addresses are read in network order.  Debian 12 has
# no armeb compiler, but its arm-linux-gnueabi gcc and ld build BE8 code
# (-mbig-endian, ld -EB --be8), which is all the kernel asks for.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='''
CONFIG_ARCH_VIRT=y
CONFIG_CPU_BIG_ENDIAN=y
CONFIG_SERIAL_AMBA_PL011=y
CONFIG_SERIAL_AMBA_PL011_CONSOLE=y''',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'virt'])
