# SPDX-License-Identifier: GPL-2.0
# LoongArch64 on QEMU's virt machine, the CPU QEMU models best (max: la464).
# kunit.py 7.3's own tools/testing/kunit/qemu_configs/loongarch.py, here so
# that 6.12's kunit.py (which has none) boots it the same way: QEMU loads
# the ELF vmlinux.elf itself (no EFI stub, no firmware); the console is the
# virt board's 16550 (ttyS0); pvpanic ends QEMU on a panic.  6.12's kunit.py
# appends kunit_shutdown=reboot after this command line, and the reboot only
# ends QEMU (-no-reboot) through the board's syscon-reboot register, whose
# driver 7.3's config leaves out: without it the guest printed "reboot:
# Restarting system" and spun until the idle timeout.
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='loongarch',
			   kconfig='''
CONFIG_EFI_STUB=n
CONFIG_PCI_HOST_GENERIC=y
CONFIG_PVPANIC=y
CONFIG_PVPANIC_PCI=y
CONFIG_POWER_RESET=y
CONFIG_POWER_RESET_SYSCON=y
CONFIG_POWER_RESET_SYSCON_POWEROFF=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_SERIAL_OF_PLATFORM=y
''',
			   qemu_arch='loongarch64',
			   kernel_path='arch/loongarch/boot/vmlinux.elf',
			   kernel_command_line='console=ttyS0 kunit_shutdown=poweroff',
			   extra_qemu_params=[
					   '-machine', 'virt',
					   '-device', 'pvpanic-pci',
					   '-cpu', 'max',])
