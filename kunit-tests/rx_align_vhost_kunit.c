// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for where frames a guest sends through vhost_net enter the
 * host's stack.
 *
 * vhost_net's TX path copies each frame of the guest's ring into a buffer
 * of its own (vhost_net_build_xdp()) and hands a batch of them to tun,
 * which builds the skbs around those buffers (tun_xdp_one()): the host
 * receives the frame where vhost_net put it.  Nothing in the kernel plays
 * the guest, so a program in the initramfs does, as QEMU does with
 * vhost=on (scripts/initramfs/rx-vhost-tx.c): it makes a tap, sets up
 * vhost_net on it with one memory region and a split TX ring, and sends
 * each frame the suite gives it, one run per frame.  Each frame
 * must reach ip_rcv() or ipv6_rcv() with its IP header where NET_IP_ALIGN
 * puts it; where the CPU traps on misaligned loads, receiving it must
 * take no unaligned-access fixup.  Without the program every case skips.
 */

#include <kunit/test.h>
#include <linux/hex.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/umh.h>

#include "rx_align.h"

/* where run-kunit's initramfs puts the guest program */
#define RX_VHOST_PROG	"/sbin/rx-vhost-tx"
#define RX_VHOST_IF	"rxvhost0"

struct rx_vhost_frame {
	enum rx_frame frame;
	unsigned int len;
};

static const struct rx_vhost_frame rx_vhost_frames[] = {
	{ RX_IPV4, ETH_ZLEN }, { RX_IPV4, 150 }, { RX_IPV4, 1514 },
	{ RX_IPV6, 150 }, { RX_IPV6, 1514 },
};

/*
 * Run the program with @verb (and the frame to send, in hex): its exit
 * status, or a negative errno when it could not be run (-ENOENT: not in
 * this kernel's initramfs).
 */
static int rx_vhost_run(const char *verb, char *frame)
{
	char *argv[5], *envp[3];
	int ret;

	argv[0] = RX_VHOST_PROG;
	argv[1] = (char *)verb;
	argv[2] = RX_VHOST_IF;
	argv[3] = frame;
	argv[4] = NULL;
	envp[0] = "HOME=/";
	envp[1] = "PATH=/sbin:/bin";
	envp[2] = NULL;
	ret = call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
	/* a wait status: the exit code is its second byte */
	return ret > 0 ? (ret >> 8) & 0xff : ret;
}

static void rx_vhost_destroy(void *unused)
{
	rx_vhost_run("destroy", NULL);
}

/* The tap the program made, up, or skip/fail saying why there is none. */
static struct net_device *rx_vhost_tap(struct kunit *test)
{
	struct net_device *dev;
	int ret = rx_vhost_run("create", NULL);

	if (ret == -ENOENT)
		kunit_skip(test,
			   "%s: no %s in this kernel's initramfs (run-kunit --drivers builds it where arches.py gives the arch nolibc flags)",
			   rx_arch(), RX_VHOST_PROG);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "%s create %s: exit %d (its step is in the kernel log)",
			    RX_VHOST_PROG, RX_VHOST_IF, ret);
	/* destroyed after the tap below is gone: actions run last first */
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_vhost_destroy,
							NULL), 0);
	dev = dev_get_by_name(&init_net, RX_VHOST_IF);
	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "%s: no %s after create",
				  RX_VHOST_PROG, RX_VHOST_IF);
	/* held by the tap's persistence until rx_vhost_destroy() */
	dev_put(dev);
	rtnl_lock();
	ret = dev_open(dev, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "dev_open(%s): %d", dev->name, ret);
	return dev;
}

/* @f, addressed to @dev, in hex: the program's last argument. */
static char *rx_vhost_frame_hex(struct kunit *test, struct net_device *dev,
				const struct rx_vhost_frame *f)
{
	u8 *frame = kunit_kzalloc(test, f->len, GFP_KERNEL);
	char *hex = kunit_kzalloc(test, 2 * f->len + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, frame);
	KUNIT_ASSERT_NOT_NULL(test, hex);
	rx_align_fill_frame(frame, f->frame, f->len, dev->dev_addr);
	bin2hex(hex, frame, f->len);
	return hex;
}

/* One frame where it reached the stack, and the fixups receiving it took. */
static void rx_vhost_judge(struct kunit *test, const struct rx_align_seen *seen,
			   long long fixups)
{
	const char *kind = rx_align_frame_names[seen->frame];
	int want = rx_align_want(RX_RULE_IP_ALIGN, 0);
	bool nh_bad = seen->nh % 4 != want;
	char extra[32];

	snprintf(extra, sizeof(extra), "fixups=%lld", fixups);
	rx_align_report_frame(test, "vhost_net", kind, seen, RX_RULE_IP_ALIGN,
			      want, nh_bad || fixups > 0, extra);
	if (nh_bad)
		KUNIT_FAIL(test, RX_AT "%s %u-byte frame: " RX_NH_FMT,
			   rx_arch(), "vhost_net", kind, seen->len,
			   seen->nh & ~PAGE_MASK, seen->nh % 4,
			   rx_align_rule_name(RX_RULE_IP_ALIGN), want);
	if (fixups > 0)
		KUNIT_FAIL(test,
			   "arch %s, vhost_net, %s %u-byte frame: receiving it took %lld unaligned-access fixup(s)",
			   rx_arch(), kind, seen->len, fixups);
}

static void rx_vhost_tx_frames(struct kunit *test)
{
	long long fixups[ARRAY_SIZE(rx_vhost_frames)];
	struct rx_align_fixups *counter;
	struct net_device *dev;
	struct rx_tap *tap;
	unsigned int i;
	u64 before;
	int ret;

	dev = rx_vhost_tap(test);
	tap = rx_align_tap_add(test, dev, 0, false, false);
	/* tun receives in the vhost worker's context: count on every CPU */
	counter = rx_align_fixups_new(test, true);
	for (i = 0; i < ARRAY_SIZE(rx_vhost_frames); i++) {
		const struct rx_vhost_frame *f = &rx_vhost_frames[i];
		const char *kind = rx_align_frame_names[f->frame];

		char *hex = rx_vhost_frame_hex(test, dev, f);

		reinit_completion(&tap->seen);
		tap->want = tap->n + 1;
		before = counter ? rx_align_fixups_read(counter) : 0;
		ret = rx_vhost_run("send", hex);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0,
				    "%s send, the %s %u-byte frame: exit %d (see the kernel log)",
				    RX_VHOST_PROG, kind, f->len, ret);
		wait_for_completion_timeout(&tap->seen, HZ);
		fixups[i] = counter ?
			    rx_align_fixups_read(counter) - before : -1;
		KUNIT_ASSERT_EQ_MSG(test, tap->n, i + 1,
				    "the %s %u-byte frame sent through vhost_net did not reach %s",
				    kind, f->len, dev->name);
	}
	for (i = 0; i < tap->n; i++)
		rx_vhost_judge(test, &tap->frames[i], fixups[i]);
}

static struct kunit_case rx_vhost_cases[] = {
	KUNIT_CASE(rx_vhost_tx_frames),
	{}
};

static struct kunit_suite rx_vhost_suite = {
	.name = "net_rx_align_drivers_vhost",
	.init = rx_align_watch_kernel,
	.test_cases = rx_vhost_cases,
};

kunit_test_suite(rx_vhost_suite);

MODULE_DESCRIPTION("KUnit tests for where vhost_net puts the frames a guest sends");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
