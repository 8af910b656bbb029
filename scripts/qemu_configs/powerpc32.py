# SPDX-License-Identifier: GPL-2.0
# kunit.py has no 32-bit PowerPC config in 6.12: a Book3S-32 PowerMac (g3beige)
# keeps the generic NET_IP_ALIGN of 2, which no other QEMU target in
# qemu-system-ppc gives us.  Its console is the PMAC Zilog ESCC; CUDA is what
# resets the machine, so QEMU (-no-reboot) exits when KUnit is done.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
# CONFIG_PPC64 is not set
CONFIG_PPC_BOOK3S_32=y
CONFIG_PPC_PMAC=y
CONFIG_SERIAL_PMACZILOG=y
CONFIG_SERIAL_PMACZILOG_CONSOLE=y
CONFIG_ADB_CUDA=y''',
			   qemu_arch='ppc',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyPZ0',
			   extra_qemu_params=['-M', 'g3beige', '-cpu', 'max'])
