# SPDX-License-Identifier: GPL-2.0
# ARM Versatile Express with a Cortex-A9 tile, booting the arm entry's
# kernel (one multi_v7 build for virt and the boards; run-kunit passes the
# kconfig and the device tree): its lan9118 (smsc911x), and a virtio-mmio
# NIC (QEMU adds the transports to the device tree) to send from.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='arm',
			   kconfig='',
			   qemu_arch='arm',
			   kernel_path='arch/arm/boot/zImage',
			   kernel_command_line='console=ttyAMA0',
			   extra_qemu_params=['-machine', 'vexpress-a9'])
