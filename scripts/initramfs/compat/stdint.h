/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nolibc before 6.2 has no <stdint.h>, which older uapi headers include
 * (linux/virtio_ring.h, for uintptr_t); its std.h has those types.  On
 * the -idirafter path: a nolibc with its own <stdint.h> wins.
 */
#include <std.h>
