// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment: where the IP header of a frame
 * lands once the stack has parsed it, on every allocation path.
 *
 * net_rx_align_iphdr writes an IPv4, IPv6 and 802.1Q frame into a buffer
 * from each allocator that reserves NET_IP_ALIGN itself, as a driver's
 * device would, has eth_type_trans() and skb_vlan_untag() parse it, and
 * checks where the network header is.
 *
 * net_rx_align_fixups runs where the CPU traps on misaligned loads and the
 * kernel counts the emulations: a control that a misaligned load moves the
 * counter, then none for any frame of those paths read as ip_rcv() reads it.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <net/ipv6.h>

#include "rx_align.h"

/*
 * The paths where the allocator itself reserves NET_IP_ALIGN.  On the
 * others the driver reserves it, and where the buffer it reserves from
 * starts is net_rx_align_alloc's check.
 */
static const void *rx_kernel_pad_paths(struct kunit *test, const void *prev,
				       char *desc)
{
	const struct rx_path *path = prev ? (const struct rx_path *)prev + 1 :
					    rx_align_paths;

	for (; path < rx_align_paths + RX_NR_PATHS; path++) {
		if (path->decides == RX_ALLOC && path->ip_align) {
			rx_align_path_desc(path, desc);
			return path;
		}
	}
	return NULL;
}

/* Allocate an MTU-sized @frame through @path, write it and receive it. */
static struct sk_buff *rx_receive_frame(struct kunit *test,
					struct sk_buff **ref,
					const struct rx_path *path,
					enum rx_frame frame)
{
	struct rx_ctx *ctx = test->priv;
	unsigned int len = ETH_FRAME_LEN + rx_frame_hlen(frame) - ETH_HLEN;
	struct sk_buff *skb;
	unsigned int size;

	skb = rx_align_alloc(test, ref, path, len, &size);
	KUNIT_ASSERT_GE(test, skb_tailroom(skb), len);
	rx_align_fill_frame(skb_put(skb, len), frame, len, ctx->dev->dev_addr);
	rx_align_receive(ref, ctx->dev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, *ref, "%s: skb_vlan_untag() failed",
				  path->name);
	KUNIT_ASSERT_EQ(test, (*ref)->protocol, rx_frame_proto(frame));
	return *ref;
}

static void rx_check_iphdr(struct kunit *test, enum rx_frame frame)
{
	const struct rx_path *path = test->param_value;
	struct sk_buff **ref = rx_align_skb_ref(test);
	struct rx_align_seen seen;
	struct sk_buff *skb;

	rx_align_path_applies(test, path);
	skb = rx_receive_frame(test, ref, path, frame);
	if (frame == RX_VLAN_IPV4)
		KUNIT_EXPECT_TRUE(test, skb_vlan_tag_present(skb));
	KUNIT_ASSERT_TRUE(test, rx_align_seen_skb(&seen, skb));
	RX_EXPECT_FRAME(test, path->name, rx_align_frame_names[frame], &seen,
			RX_RULE_IP_ALIGN, 0);
}

static void rx_ipv4_header(struct kunit *test)
{
	rx_check_iphdr(test, RX_IPV4);
}

static void rx_ipv6_header(struct kunit *test)
{
	rx_check_iphdr(test, RX_IPV6);
}

static void rx_vlan_ipv4_header(struct kunit *test)
{
	rx_check_iphdr(test, RX_VLAN_IPV4);
}

static struct kunit_case rx_iphdr_cases[] = {
	KUNIT_CASE_PARAM(rx_ipv4_header, rx_kernel_pad_paths),
	KUNIT_CASE_PARAM(rx_ipv6_header, rx_kernel_pad_paths),
	KUNIT_CASE_PARAM(rx_vlan_ipv4_header, rx_kernel_pad_paths),
	{}
};

static struct kunit_suite rx_iphdr_suite = {
	.name = "net_rx_align_iphdr",
	.init = rx_align_ctx_init,
	.test_cases = rx_iphdr_cases,
};

/* ---- What NET_IP_ALIGN saves: unaligned-access fixups, counted ---- */

/* The control: a deliberately misaligned load must move the counter. */
static void rx_fixup_control(struct kunit *test)
{
	struct rx_align_fixups *f = rx_align_fixups_or_skip(test);
	u32 *words = kunit_kzalloc(test, 16, GFP_KERNEL);
	u64 before, after;
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, words);
	before = rx_align_fixups_read(f);
	v = rx_align_misaligned_load((u8 *)words + 2);
	after = rx_align_fixups_read(f);
	kunit_info(test, "rx_align_fixups: control %llu -> %llu (read %u)\n",
		   before, after, v);
	KUNIT_EXPECT_GT_MSG(test, after, before,
			    "arch %s: a misaligned load did not move the fixup counter",
			    rx_arch());
}

/*
 * Each path's frames, parsed and then read as the stack reads them (the
 * IP checksum over the header, the address words ip_rcv() and ipv6_rcv()
 * look at): with the IP header where NET_IP_ALIGN puts it, no fixups.
 */
static void rx_fixup_frames(struct kunit *test)
{
	const struct rx_path *path = test->param_value;
	struct rx_align_fixups *f = rx_align_fixups_or_skip(test);
	struct sk_buff **ref = rx_align_skb_ref(test);
	enum rx_frame frame;
	struct sk_buff *skb;
	char what[64];

	rx_align_path_applies(test, path);
	for (frame = RX_IPV4; frame < RX_NR_FRAMES; frame++) {
		skb = rx_receive_frame(test, ref, path, frame);
		snprintf(what, sizeof(what), "%s, %s", path->name,
			 rx_align_frame_names[frame]);
		RX_EXPECT_NO_FIXUPS(test, f, skb_network_header(skb),
				    frame == RX_IPV6, what);
	}
}

static struct kunit_case rx_fixup_cases[] = {
	KUNIT_CASE(rx_fixup_control),
	KUNIT_CASE_PARAM(rx_fixup_frames, rx_kernel_pad_paths),
	{}
};

static struct kunit_suite rx_fixup_suite = {
	.name = "net_rx_align_fixups",
	.init = rx_align_ctx_init,
	.test_cases = rx_fixup_cases,
};

kunit_test_suites(&rx_iphdr_suite, &rx_fixup_suite);

MODULE_DESCRIPTION("KUnit tests for where received IP headers land");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
