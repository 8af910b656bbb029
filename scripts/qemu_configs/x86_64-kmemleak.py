# SPDX-License-Identifier: GPL-2.0
# x86_64 for run-kunit --debug: kunit.py's own x86_64 machine, but the kernel
# must not shut down after KUnit, because the kmemleak scan needs a userspace
# write (scripts/initramfs/kmemleak-init, built into the kernel).  kunit.py
# appends "kunit_shutdown=reboot" to this command line; the trailing "--"
# hands it to /init as an argument instead, and /init resets the machine.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='x86_64',
			   kconfig='''
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y''',
			   qemu_arch='x86_64',
			   kernel_path='arch/x86/boot/bzImage',
			   kernel_command_line='console=ttyS0 --',
			   extra_qemu_params=['-bios', 'qboot.rom'])
