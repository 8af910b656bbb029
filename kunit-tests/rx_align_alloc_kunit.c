// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment: the skb allocators.
 *
 * NET_IP_ALIGN is the pad a driver puts in front of a received Ethernet
 * frame so that the IP header behind the 14-byte MAC header starts on a
 * 4-byte boundary.  An architecture that loads unaligned words cheaply sets
 * it to 0, because the pad makes the device's DMA start unaligned, and that
 * costs more than the misaligned IP header.  NET_SKB_PAD is the headroom
 * every rx allocator keeps in front of the frame.
 *
 * net_rx_align_alloc allocates receive buffers through every allocator a
 * driver uses and checks the headroom, the alignment of the address the
 * device writes to, and that no path hands out less room than asked.
 */

#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/module.h>

#include "rx_align.h"

/* RX_AT for one path and frame length: rx_arch(), the path's name, len. */
#define RX_AT_LEN "arch %s, %s, len %u: "

/* ---- Every allocation path, each used the way drivers use it ---- */

/* The headroom a path leaves before the frame. */
static unsigned int rx_pad(const struct rx_path *path)
{
	return path->xdp_pad ? XDP_PACKET_HEADROOM : NET_SKB_PAD;
}

static unsigned int rx_ip_align(const struct rx_path *path)
{
	return path->ip_align ? NET_IP_ALIGN : 0;
}

/* A 9000-byte MTU with 802.1Q: the largest frame drivers ask for. */
#define RX_JUMBO_LEN	(9000 + VLAN_ETH_HLEN)

/* The largest frame we ask of a path: one page, or a jumbo frame. */
static unsigned int rx_max_len(const struct rx_path *path)
{
	if (path->frag_only)
		return SKB_WITH_OVERHEAD(PAGE_SIZE) - rx_align_reserve(path);
	return RX_JUMBO_LEN;
}

/* Small frames, the Ethernet minimum, MTU-sized and jumbo frames. */
static const unsigned int rx_fixed_lens[] = {
	1, ETH_ZLEN, 64, 128, 256, 512, 1000, 1500, ETH_FRAME_LEN,
	ETH_FRAME_LEN + VLAN_HLEN, 1536, 2048, 4000, RX_JUMBO_LEN,
};

/*
 * The frame lengths a path is asked for: the fixed ones it can hold, and
 * both sides of the one-page limit of the fragment allocators (computed
 * from PAGE_SIZE and the path's headroom: ppc64 has 64K pages).
 */
static unsigned int rx_sweep(const struct rx_path *path, unsigned int *lens)
{
	unsigned int page = SKB_WITH_OVERHEAD(PAGE_SIZE) -
			    rx_align_reserve(path);
	unsigned int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(rx_fixed_lens); i++)
		if (rx_fixed_lens[i] <= rx_max_len(path))
			lens[n++] = rx_fixed_lens[i];
	lens[n++] = page;
	if (page + 1 <= rx_max_len(path))
		lens[n++] = page + 1;
	return n;
}

#define RX_MAX_SWEEP (ARRAY_SIZE(rx_fixed_lens) + 2)

/* RX_ALLOC paths: the headroom and DMA start are the API's promise. */
static void rx_check_api(struct kunit *test, const struct rx_path *path,
			 struct sk_buff *skb, unsigned int len)
{
	unsigned long dma = (unsigned long)skb->data - rx_ip_align(path);
	/*
	 * skb->head is SMP_CACHE_BYTES aligned on every path: page fragments
	 * are carved in SKB_DATA_ALIGN()ed sizes from page-aligned pages, the
	 * small-head cache is SLAB_HWCACHE_ALIGN and larger kmalloc heads are
	 * power-of-two sized, hence naturally aligned.  The pad is a power of
	 * two, so the address the device writes to is aligned to both.
	 */
	unsigned long align = min_t(unsigned long, rx_pad(path),
				    SMP_CACHE_BYTES);

	KUNIT_EXPECT_EQ_MSG(test, skb_headroom(skb),
			    rx_pad(path) + rx_ip_align(path),
			    RX_AT_LEN
			    "headroom %u, the API promises a pad of %u + NET_IP_ALIGN %u",
			    rx_arch(), path->name, len, skb_headroom(skb),
			    rx_pad(path), rx_ip_align(path));
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(dma, align),
			      RX_AT_LEN
			      "DMA start (data - %u) at page offset %lu, not aligned to %lu",
			      rx_arch(), path->name, len, rx_ip_align(path),
			      dma & ~PAGE_MASK, align);
	KUNIT_EXPECT_GE_MSG(test, skb->truesize,
			    SKB_TRUESIZE(skb_headroom(skb) + len),
			    RX_AT_LEN "truesize %u below the buffer handed out",
			    rx_arch(), path->name, len, skb->truesize);
}

/*
 * RX_BUILD paths: the driver carved @size bytes and reserved the pad; the
 * kernel decides where the head is, where skb_shared_info goes and what
 * the skb is charged.
 */
static void rx_check_built(struct kunit *test, const struct rx_path *path,
			   struct sk_buff *skb, unsigned int len,
			   unsigned int size)
{
	unsigned long head = (unsigned long)skb->head;
	/* where the driver's device writes: head + the pad */
	unsigned long dma = (unsigned long)skb->data - rx_ip_align(path);

	/* skb_shared_info inside the buffer, aligned for its atomics */
	KUNIT_EXPECT_LE_MSG(test, skb_end_offset(skb) +
			    sizeof(struct skb_shared_info), size,
			    RX_AT_LEN
			    "skb_shared_info at %u overruns the %u-byte buffer",
			    rx_arch(), path->name, len, skb_end_offset(skb),
			    size);
	RX_EXPECT_SHINFO(test, (unsigned long)skb_shinfo(skb), path->name);
	/* whoever holds the skb is charged for the whole buffer */
	KUNIT_EXPECT_GE_MSG(test, skb->truesize, size,
			    RX_AT_LEN "truesize %u below the %u-byte buffer",
			    rx_arch(), path->name, len, skb->truesize, size);
	/* Every buffer size here is SKB_HEAD_ALIGN()ed, so is every head. */
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(head, SMP_CACHE_BYTES),
			      RX_AT_LEN
			      "head at page offset %lu, not aligned to SMP_CACHE_BYTES %u",
			      rx_arch(), path->name, len, head & ~PAGE_MASK,
			      (unsigned int)SMP_CACHE_BYTES);
	KUNIT_EXPECT_TRUE_MSG(test,
			      IS_ALIGNED(dma, min_t(unsigned long, rx_pad(path),
						    SMP_CACHE_BYTES)),
			      RX_AT_LEN
			      "DMA start (head + %lu) at page offset %lu, not aligned to the pad %u",
			      rx_arch(), path->name, len, dma - head,
			      dma & ~PAGE_MASK, rx_pad(path));
}

static void rx_alloc_path(struct kunit *test)
{
	const struct rx_path *path = test->param_value;
	struct sk_buff **ref = rx_align_skb_ref(test);
	unsigned int lens[RX_MAX_SWEEP];
	unsigned int i, n, size;
	struct sk_buff *skb;

	rx_align_path_applies(test, path);
	n = rx_sweep(path, lens);
	for (i = 0; i < n; i++) {
		skb = rx_align_alloc(test, ref, path, lens[i], &size);
		KUNIT_EXPECT_GE_MSG(test, skb_tailroom(skb), lens[i],
				    RX_AT_LEN "tailroom %d is less than asked",
				    rx_arch(), path->name, lens[i],
				    skb_tailroom(skb));
		if (path->decides == RX_ALLOC)
			rx_check_api(test, path, skb, lens[i]);
		else
			rx_check_built(test, path, skb, lens[i], size);
	}
	kunit_info(test, "%s: %u frame lengths up to %u\n", path->name, n,
		   lens[n - 1]);
}

KUNIT_ARRAY_PARAM(rx_paths, rx_align_paths, rx_align_path_desc);

static struct kunit_case rx_alloc_cases[] = {
	KUNIT_CASE_PARAM(rx_alloc_path, rx_paths_gen_params),
	{}
};

static struct kunit_suite rx_alloc_suite = {
	.name = "net_rx_align_alloc",
	.init = rx_align_ctx_init,
	.test_cases = rx_alloc_cases,
};

kunit_test_suite(rx_alloc_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment in the skb allocators");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
