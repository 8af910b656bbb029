// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment on the XDP paths, where the
 * kernel, not the driver, decides where a received frame lands:
 *
 *  - generic XDP grows the head of an skb its program cannot run on in
 *    place, or copies it into a page_pool buffer (skb_cow_data_for_xdp())
 *    for a program that takes multi-buffer frames;
 *  - an xdp_frame becomes an skb again in cpumap and veth
 *    (xdp_build_skb_from_frame()).
 *
 * Each case runs a real XDP program ("return XDP_PASS", run by the BPF
 * interpreter or JIT) on the real path and checks where the IP header is
 * when the frame reaches the stack.
 */

#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/module.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "rx_align.h"

KUNIT_DEFINE_ACTION_WRAPPER(rx_rxq_unreg, xdp_rxq_info_unreg,
			    struct xdp_rxq_info *);

/* ---- Generic XDP: what __netif_receive_skb_core() runs ---- */

static const struct rx_generic_param rx_generic_params[] = {
	{ "legacy_prog_linear_ipv4", false, false, RX_IPV4, ETH_FRAME_LEN },
	{ "legacy_prog_nonlinear_ipv4", false, true, RX_IPV4, ETH_FRAME_LEN },
	{ "legacy_prog_linear_vlan_ipv4", false, false, RX_VLAN_IPV4,
	  ETH_FRAME_LEN + VLAN_HLEN },
	/*
	 * The copy starts at the MAC header: without one, the IP header is
	 * first, and a pad meant for an Ethernet header would misalign it.
	 */
	{ "legacy_prog_l3_linear_ipv4", false, false, RX_IPV4, ETH_DATA_LEN,
	  .l3 = true },
	{ "frags_prog_l3_linear_ipv4", true, false, RX_IPV4, ETH_DATA_LEN,
	  .l3 = true },
	{ "frags_prog_l3_nonlinear_ipv6", true, true, RX_IPV6, ETH_DATA_LEN,
	  .l3 = true },
	/* tun's headroom follows ndo_set_rx_headroom(): not always aligned */
	{ "frags_prog_l3_linear_ipv4_headroom_2", true, false, RX_IPV4,
	  ETH_DATA_LEN, .l3 = true, .reserve = 2 },
};

KUNIT_ARRAY_PARAM_DESC(rx_generic, rx_generic_params, name);

static void rx_generic_xdp(struct kunit *test)
{
	rx_align_generic_xdp(test, test->param_value);
}

/* ---- xdp_frame -> skb, as cpumap and veth do for redirected frames ---- */

struct rx_frame_param {
	const char *name;
	bool bulk;		/* the sk_buff from napi_skb_cache_get_bulk() */
	enum rx_frame frame;
};

static const struct rx_frame_param rx_frame_params[] = {
	{ "xdp_build_skb_from_frame_ipv4", false, RX_IPV4 },
	{ "xdp_build_skb_from_frame_ipv6", false, RX_IPV6 },
	{ "__xdp_build_skb_from_frame_bulk_ipv4", true, RX_IPV4 },
	{ "__xdp_build_skb_from_frame_bulk_vlan_ipv4", true, RX_VLAN_IPV4 },
};

KUNIT_ARRAY_PARAM_DESC(rx_frame, rx_frame_params, name);

static void rx_xdp_frame_to_skb(struct kunit *test)
{
	const struct rx_frame_param *p = test->param_value;
	/* What an XDP driver leaves in front of the frame. */
	unsigned int headroom = XDP_PACKET_HEADROOM + NET_IP_ALIGN;
	struct net_device *dev = rx_align_dummy_netdev(test);
	struct sk_buff **ref = rx_align_skb_ref(test);
	struct page_pool_params pp = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct xdp_rxq_info *rxq;
	struct xdp_frame *xframe;
	struct page_pool *pool;
	struct rx_align_seen seen;
	struct xdp_buff xdp;
	struct sk_buff *skb;
	struct page *page;
	void *data, *bulk = NULL;

	pool = rx_align_page_pool(test, &pp);
	rxq = kunit_kzalloc(test, sizeof(*rxq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rxq);
	KUNIT_ASSERT_EQ(test, xdp_rxq_info_reg(rxq, dev, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_rxq_unreg,
							rxq), 0);
	KUNIT_ASSERT_EQ(test, xdp_rxq_info_reg_mem_model(rxq,
							 MEM_TYPE_PAGE_POOL,
							 pool), 0);

	local_bh_disable();
	page = page_pool_dev_alloc_pages(pool);
	local_bh_enable();
	KUNIT_ASSERT_NOT_NULL(test, page);
	xdp_init_buff(&xdp, PAGE_SIZE, rxq);
	xdp_prepare_buff(&xdp, page_address(page), headroom, ETH_FRAME_LEN,
			 true);
	data = xdp.data;
	rx_align_fill_frame(data, p->frame, ETH_FRAME_LEN, dev->dev_addr);

	xframe = xdp_convert_buff_to_frame(&xdp);
	if (!xframe)
		page_pool_put_full_page(pool, page, false);
	KUNIT_ASSERT_NOT_NULL(test, xframe);
	if (p->bulk) {
		local_bh_disable();
		if (!napi_skb_cache_get_bulk(&bulk, 1))
			xdp_return_frame(xframe);
		local_bh_enable();
		KUNIT_ASSERT_NOT_NULL(test, bulk);
		skb = __xdp_build_skb_from_frame(xframe, bulk, dev);
	} else {
		skb = xdp_build_skb_from_frame(xframe, dev);
	}
	if (!skb)
		xdp_return_frame(xframe);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	*ref = skb;

	/* The frame stays where the driver put it, in the page it came in. */
	KUNIT_EXPECT_PTR_EQ_MSG(test, (void *)skb_mac_header(skb), data,
				"%s: MAC header at page offset %lu, the frame was at %u",
				p->name,
				(unsigned long)skb_mac_header(skb) & ~PAGE_MASK,
				headroom);
	/* skb_shared_info inside the frame's page, aligned for its atomics */
	KUNIT_EXPECT_LE_MSG(test, (unsigned long)skb_shinfo(skb) +
			    sizeof(struct skb_shared_info),
			    (unsigned long)page_address(page) + PAGE_SIZE,
			    "%s: skb_shared_info at page offset %lu overruns the page",
			    p->name,
			    (unsigned long)skb_shinfo(skb) & ~PAGE_MASK);
	RX_EXPECT_SHINFO(test, (unsigned long)skb_shinfo(skb), p->name);
	KUNIT_EXPECT_TRUE(test, skb->pp_recycle);
	skb_reset_network_header(skb);
	if (eth_type_vlan(skb->protocol)) {
		*ref = skb_vlan_untag(skb);
		KUNIT_ASSERT_PTR_EQ(test, *ref, skb);
	}
	KUNIT_ASSERT_TRUE(test, rx_align_seen_skb(&seen, skb));
	RX_EXPECT_FRAME(test, p->bulk ? "__xdp_build_skb_from_frame" :
			"xdp_build_skb_from_frame", p->name, &seen,
			RX_RULE_IP_ALIGN, 0);
}

static struct kunit_case rx_xdp_cases[] = {
	KUNIT_CASE_PARAM(rx_generic_xdp, rx_generic_gen_params),
	KUNIT_CASE_PARAM(rx_xdp_frame_to_skb, rx_frame_gen_params),
	{}
};

static struct kunit_suite rx_xdp_suite = {
	.name = "net_rx_align_xdp",
	.init = rx_align_watch_kernel,
	.test_cases = rx_xdp_cases,
};

kunit_test_suite(rx_xdp_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment on the XDP paths");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
