"""Where things are in this repository.

The entry points (run-kunit, compile-test, series-check, bench, ...) all
need these; they take them from here rather than from each other.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SERIES_DIR = REPO / 'kernel-patches'
TESTS_DIR = REPO / 'kunit-tests'
KUNITCONFIG = REPO / 'kunitconfig'
SLIM = REPO / 'scripts/kconfig/slim.config'
DEBUG = REPO / 'scripts/kconfig/debug.config'
DRIVERS = REPO / 'scripts/kconfig/drivers.config'
COVERAGE = REPO / 'scripts/kconfig/coverage.config'
SCRIPTS = REPO / 'scripts'
QEMU_CONFIGS = REPO / 'scripts/qemu_configs'
PROBES = REPO / 'scripts/probes'
KMEMLEAK_INIT = REPO / 'scripts/initramfs/kmemleak-init'
VHOST_TX = REPO / 'scripts/initramfs/rx-vhost-tx.c'
GCOV_DUMP = REPO / 'scripts/initramfs/gcov-dump.c'     # the --coverage /init
# headers an older nolibc lacks, searched after the tree's (-idirafter)
GUEST_COMPAT = REPO / 'scripts/initramfs/compat'
MUTATION_PATCHES = REPO / 'scripts/mutations'
# In a kernel tree our series prepared: the semantic patch scripts/pad-sites runs.
COCCI = 'scripts/coccinelle/api/net_ip_align.cocci'
