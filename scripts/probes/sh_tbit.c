// SPDX-License-Identifier: GPL-2.0
/*
 * Does the SH compiler keep the T-bit test in front of a conditional branch?
 *
 * The shape of printk_delay() inside vprintk_emit(): a compare whose result
 * (T) is still live, then a branch on a freshly loaded global. Debian 12's
 * sh4-linux-gnu-gcc 12.2.0 at -O2 deletes the "tst" of delay_msec (its SH
 * sh_treg_combine pass takes the load for an inverted T store) and branches
 * on the stale T of "level == -2". A kernel it builds hangs in its first
 * printk() and its zImage decompressor takes its input for NULL.
 *
 * A correct compiler tests the register it loaded delay_msec into:
 * rxalign.probes looks for that test in probe_emit's disassembly.
 */
int delay_msec;
void probe_mdelay(int ms);
int probe_store(int level);

int probe_emit(int level)
{
	if (level == -2)
		level = -1;
	if (__builtin_expect(delay_msec, 0))
		probe_mdelay(delay_msec);
	return probe_store(level);
}
