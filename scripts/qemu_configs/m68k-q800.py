# SPDX-License-Identifier: GPL-2.0
# Macintosh Quadra 800 (68040), booting the m68k entry's kernel (one build
# for virt and the q800: run-kunit passes the kconfig): its onboard SONIC
# (macsonic), the machine's only NIC, and the SCC's first port as console.
# 256 MB, not kunit.py's 1024: with 1 GB the kernel's vmalloc area met a
# mapping already there (WARN in vmap_small_pages_range_noflush(), then
# BUG in ptp_classifier_init() when bpf_prog_alloc() failed).
from ..qemu_config import QemuArchParams

QEMU_ARCH = QemuArchParams(linux_arch='m68k',
			   kconfig='',
			   qemu_arch='m68k',
			   kernel_path='vmlinux',
			   kernel_command_line='console=ttyS0',
			   extra_qemu_params=['-machine', 'q800', '-m', '256'])
