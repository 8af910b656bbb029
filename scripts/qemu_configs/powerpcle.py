# SPDX-License-Identifier: GPL-2.0
# kunit.py's powerpc config is big-endian ppc64; the same pseries machine runs
# a little-endian kernel (what most ppc64 distributions ship), so the policy
# is checked in both byte orders.  Virtual Open Firmware, not SLOF: see
# powerpc.py.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC64=y
CONFIG_CPU_LITTLE_ENDIAN=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_HVC_CONSOLE=y''',
			   qemu_arch='ppc64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'pseries,x-vof=on', '-cpu', 'power8'])
