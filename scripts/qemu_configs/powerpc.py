# SPDX-License-Identifier: GPL-2.0
# kunit.py's powerpc config (big-endian ppc64 pseries, the same kernel config),
# booted with QEMU's Virtual Open Firmware instead of SLOF: SLOF spends about
# 9 s of the 10 s boot under TCG initialising devices the kernel never asks
# for; VOF only serves the client interface prom_init calls, and the suite
# runs in under a second.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='powerpc',
			   kconfig='''
CONFIG_PPC64=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_HVC_CONSOLE=y''',
			   qemu_arch='ppc64',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-M', 'pseries,x-vof=on', '-cpu', 'power8'])
