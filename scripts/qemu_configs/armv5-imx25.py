# SPDX-License-Identifier: GPL-2.0
# Freescale i.MX25 PDK (ARM926EJ-S, ARMv5), booting the armv5 entry's kernel:
# a CPU that traps on a misaligned word load, and its one FEC, which has no
# receive shift (RACC) there.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttymxc0',
			   extra_qemu_params=['-machine', 'imx25-pdk', '-m', '128'])
