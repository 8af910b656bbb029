// SPDX-License-Identifier: GPL-2.0-only
/*
 * The harness's own facts about an architecture's receive policy: not for
 * upstream (they check compile-time values at run time).
 *
 * net_rx_align_policy prints the values every other verdict depends on,
 * once per run, for the harness's report, and checks what skbuff.h asks of
 * NET_IP_ALIGN and NET_SKB_PAD, so that a mutated header fails a named case.
 */

#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/module.h>

#include "rx_align.h"

/* ---- What skbuff.h asks of the architecture's values ---- */

static void rx_policy_facts(struct kunit *test)
{
	/* The facts every other verdict depends on, for a failure report. */
	kunit_info(test,
		   "rx_align_facts: arch=%s net_ip_align=%u net_skb_pad=%u l1_cache_bytes=%u smp_cache_bytes=%u page_size=%lu efficient_unaligned=%d dma_cache_align=%d bits=%d endian=%s\n",
		   rx_arch(), (unsigned int)NET_IP_ALIGN,
		   (unsigned int)NET_SKB_PAD, (unsigned int)L1_CACHE_BYTES,
		   (unsigned int)SMP_CACHE_BYTES, PAGE_SIZE,
		   IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS),
		   dma_get_cache_alignment(), BITS_PER_LONG,
		   IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? "big" : "little");
}

static void rx_net_skb_pad_sane(struct kunit *test)
{
	/* skbuff.h: "It must be a power of 2." */
	KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(NET_SKB_PAD),
			      "arch %s: NET_SKB_PAD %u is not a power of 2",
			      rx_arch(), (unsigned int)NET_SKB_PAD);
	/* skbuff.h: parts of the stack expect at least 32 bytes */
	KUNIT_EXPECT_GE_MSG(test, NET_SKB_PAD, 32,
			    "arch %s: NET_SKB_PAD %u is below 32",
			    rx_arch(), (unsigned int)NET_SKB_PAD);
}

static void rx_net_ip_align_sane(struct kunit *test)
{
	bool cheap = IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS);

	/* Without the pad, every IP header is misaligned by 2. */
	if (NET_IP_ALIGN == 0)
		KUNIT_EXPECT_TRUE_MSG(test, cheap,
				      "arch %s: NET_IP_ALIGN 0 without HAVE_EFFICIENT_UNALIGNED_ACCESS",
				      rx_arch());
	else
		KUNIT_EXPECT_EQ_MSG(test, (ETH_HLEN + NET_IP_ALIGN) % 4, 0,
				    "arch %s: NET_IP_ALIGN %u does not align the IP header",
				    rx_arch(), NET_IP_ALIGN);
	/* A pad is reserved inside the headroom, not in front of it. */
	KUNIT_EXPECT_LT_MSG(test, NET_IP_ALIGN, NET_SKB_PAD,
			    "arch %s: NET_IP_ALIGN %u is not below NET_SKB_PAD %u",
			    rx_arch(), NET_IP_ALIGN, (unsigned int)NET_SKB_PAD);
}

static struct kunit_case rx_policy_cases[] = {
	KUNIT_CASE(rx_policy_facts),
	KUNIT_CASE(rx_net_skb_pad_sane),
	KUNIT_CASE(rx_net_ip_align_sane),
	{}
};

static struct kunit_suite rx_policy_suite = {
	.name = "net_rx_align_policy",
	.init = rx_align_watch_kernel,
	.test_cases = rx_policy_cases,
};

kunit_test_suite(rx_policy_suite);

MODULE_DESCRIPTION("The harness's facts about receive buffer alignment policy");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
