// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment in the fragment allocators.
 *
 * Drivers carve receive buffers out of pages with page_pool fragments
 * (mapped for DMA by the pool) and with napi_alloc_frag_align() or
 * netdev_alloc_frag_align(); skb_pp_cow_data() carves skb heads out of
 * the same pools.  The allocator decides every offset: these cases check
 * that each buffer a device may write starts on a boundary that cache
 * maintenance for non-coherent DMA cannot spill across, that no two
 * buffers overlap, that a head built on one puts skb_shared_info where
 * its atomics can work, and that the _align variants keep their promise.
 */

#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <net/page_pool/helpers.h>

#include "rx_align.h"

/* ---- page_pool fragments, mapped for DMA as a driver's pool is ---- */

struct rx_pp_param {
	const char *name;
	bool dma;		/* PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV */
	unsigned int order;
};

static const struct rx_pp_param rx_pp_params[] = {
	{ "no_dma_order0", false, 0 },
	{ "dma_order0", true, 0 },
	{ "dma_order1", true, 1 },
};

KUNIT_ARRAY_PARAM_DESC(rx_pp, rx_pp_params, name);

/* One allocation: a fragment for the device, or an skb head (va). */
struct rx_pp_alloc {
	bool va;
	unsigned int size;
};

/*
 * A head for build_skb() of @len bytes behind @headroom, sized as
 * build_skb() asks of every caller: room for both and skb_shared_info.
 */
#define RX_PP_HEAD(headroom, len) SKB_HEAD_ALIGN((headroom) + (len))

/*
 * Driver-sized fragments, then what a copy into the page_pool does for a
 * frame whose tail does not fit the head: a head, then odd-sized
 * fragments for the rest, then the next frame's head from the same page;
 * the heads behind XDP's headroom, with and without a pad of 2.
 */
static const struct rx_pp_alloc rx_pp_seq[] = {
	{ false, 2048 }, { false, 1536 }, { false, 640 },
	{ true, RX_PP_HEAD(XDP_PACKET_HEADROOM, ETH_FRAME_LEN) },
	{ false, 1001 },
	{ true, RX_PP_HEAD(XDP_PACKET_HEADROOM + 2, 128) },
	{ false, 77 }, { false, 3 },
	{ true, RX_PP_HEAD(XDP_PACKET_HEADROOM + 2, ETH_ZLEN) },
	{ false, 1000 },
	{ true, RX_PP_HEAD(XDP_PACKET_HEADROOM, ETH_FRAME_LEN) },
};

struct rx_pp_got {
	struct page *page;
	struct sk_buff *skb;	/* built on a head */
	unsigned int offset;
	unsigned int size;
};

static struct device *rx_dma_device(struct kunit *test)
{
	struct device *dev = kunit_device_register(test, "rx_align_dma");
	int err;

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(dev), "kunit_device_register: %pe",
			       dev);
	dev->dma_mask = &dev->coherent_dma_mask;
	err = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (err)
		err = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(32));
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "no DMA mask for a test device: %d",
			    err);
	return dev;
}

static void rx_pp_release(struct page_pool *pool, struct rx_pp_got *got,
			  unsigned int n)
{
	unsigned int i;

	local_bh_disable();
	for (i = 0; i < n; i++) {
		if (got[i].skb)
			kfree_skb(got[i].skb);
		else if (got[i].page)
			page_pool_put_page(pool, got[i].page, -1, false);
	}
	local_bh_enable();
}

/* One allocation of the sequence: where it is, and what a head there gets. */
static void rx_pp_check(struct kunit *test, const struct rx_pp_param *p,
			unsigned int i, const struct rx_pp_got *g,
			const struct rx_pp_got *prev)
{
	/* what cache maintenance for a DMA buffer works in */
	unsigned int dma_align = dma_get_cache_alignment();
	/* what the atomics on skb_shared_info need */
	size_t shinfo_align = __alignof__(struct skb_shared_info);
	unsigned long shinfo;
	dma_addr_t dma;

	KUNIT_EXPECT_GE_MSG(test, g->size, rx_pp_seq[i].size,
			    "%s, allocation %u: %u bytes, %u asked",
			    p->name, i, g->size, rx_pp_seq[i].size);
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(g->offset, dma_align),
			      "arch %s, %s, allocation %u (%u bytes): offset %u in its page is not aligned to dma_get_cache_alignment() %u",
			      rx_arch(), p->name, i, rx_pp_seq[i].size,
			      g->offset, dma_align);
	/* Fragments of one page come in order and must not overlap. */
	if (prev && g->page == prev->page)
		KUNIT_EXPECT_GE_MSG(test, g->offset, prev->offset + prev->size,
				    "%s, allocation %u at offset %u overlaps the previous one (%u + %u)",
				    p->name, i, g->offset, prev->offset,
				    prev->size);
	if (g->skb) {
		shinfo = (unsigned long)skb_shinfo(g->skb);
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(shinfo, shinfo_align),
				      "arch %s, %s, allocation %u: a head at page offset %u puts skb_shared_info at %lu, not aligned to %zu",
				      rx_arch(), p->name, i, g->offset,
				      shinfo & ~PAGE_MASK, shinfo_align);
	}
	if (p->dma) {
		dma = page_pool_get_dma_addr(g->page) + g->offset;
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(dma, dma_align),
				      "arch %s, %s, allocation %u: DMA address %pad not aligned to %u",
				      rx_arch(), p->name, i, &dma, dma_align);
	}
}

static void rx_page_pool_frags(struct kunit *test)
{
	const struct rx_pp_param *p = test->param_value;
	struct page_pool_params pp = {
		.order = p->order,
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct rx_pp_got got[ARRAY_SIZE(rx_pp_seq)] = {};
	struct page_pool *pool;
	unsigned int i, n;

	if (p->dma) {
		if (!IS_ENABLED(CONFIG_HAS_DMA))
			kunit_skip(test,
				   "no DMA API on %s (CONFIG_HAS_DMA is not set)",
				   rx_arch());
		/* dma_4u_supported() dereferences the device's IOMMU */
		if (IS_ENABLED(CONFIG_SPARC64))
			kunit_skip(test,
				   "sparc64 maps DMA only for devices behind its IOMMU, not a KUnit device");
		pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
		pp.dev = rx_dma_device(test);
		/* the device writes behind the XDP headroom, as drivers do */
		pp.offset = XDP_PACKET_HEADROOM;
		pp.max_len = (PAGE_SIZE << p->order) - XDP_PACKET_HEADROOM;
	}
	pool = rx_align_page_pool(test, &pp);

	local_bh_disable();
	for (n = 0; n < ARRAY_SIZE(rx_pp_seq); n++) {
		struct rx_pp_got *g = &got[n];
		void *va;

		g->size = rx_pp_seq[n].size;
		if (rx_pp_seq[n].va) {
			va = page_pool_dev_alloc_va(pool, &g->size);
			if (!va)
				break;
			g->page = virt_to_head_page(va);
			g->offset = va - page_address(g->page);
			g->skb = napi_build_skb(va, g->size);
			if (!g->skb) {
				page_pool_free_va(pool, va, false);
				break;
			}
			skb_mark_for_recycle(g->skb);
		} else {
			g->page = page_pool_dev_alloc(pool, &g->offset,
						      &g->size);
			if (!g->page)
				break;
		}
	}
	local_bh_enable();

	for (i = 0; i < n; i++)
		rx_pp_check(test, p, i, &got[i], i ? &got[i - 1] : NULL);
	rx_pp_release(pool, got, n);
	KUNIT_EXPECT_EQ_MSG(test, n, ARRAY_SIZE(rx_pp_seq),
			    "%s: allocation %u failed", p->name, n);
}

/* ---- napi_alloc_frag_align() and netdev_alloc_frag_align() ---- */

enum rx_frag_ctx { RX_FRAG_NAPI, RX_FRAG_NETDEV, RX_FRAG_NETDEV_IRQS_OFF };

struct rx_frag_param {
	const char *name;
	enum rx_frag_ctx ctx;
	unsigned int align;
};

static const struct rx_frag_param rx_frag_params[] = {
	{ "napi_alloc_frag_align_smp_cache", RX_FRAG_NAPI, SMP_CACHE_BYTES },
	{ "napi_alloc_frag_align_256", RX_FRAG_NAPI, 256 },
	{ "napi_alloc_frag_align_1k", RX_FRAG_NAPI, SZ_1K },
	{ "netdev_alloc_frag_align_smp_cache", RX_FRAG_NETDEV,
	  SMP_CACHE_BYTES },
	{ "netdev_alloc_frag_align_1k", RX_FRAG_NETDEV, SZ_1K },
	{ "netdev_alloc_frag_align_irqs_off_256", RX_FRAG_NETDEV_IRQS_OFF,
	  256 },
	{ "netdev_alloc_frag_align_irqs_off_1k", RX_FRAG_NETDEV_IRQS_OFF,
	  SZ_1K },
};

KUNIT_ARRAY_PARAM_DESC(rx_frag, rx_frag_params, name);

static void *rx_frag_alloc(enum rx_frag_ctx ctx, unsigned int size,
			   unsigned int align)
{
	unsigned long flags;
	void *data;

	switch (ctx) {
	case RX_FRAG_NAPI:
		local_bh_disable();
		data = align ? napi_alloc_frag_align(size, align) :
			       napi_alloc_frag(size);
		local_bh_enable();
		return data;
	case RX_FRAG_NETDEV_IRQS_OFF:
		/* a hard IRQ handler's: the netdev_alloc_cache branch */
		local_irq_save(flags);
		data = align ? netdev_alloc_frag_align(size, align) :
			       netdev_alloc_frag(size);
		local_irq_restore(flags);
		return data;
	case RX_FRAG_NETDEV:
		break;
	}
	return align ? netdev_alloc_frag_align(size, align) :
		       netdev_alloc_frag(size);
}

/* Sizes that leave the cache's offset on every kind of boundary. */
static const unsigned int rx_frag_sizes[] = { 1, 100, 700, 1500, 2048, 3000 };

static void rx_frag_align(struct kunit *test)
{
	const struct rx_frag_param *p = test->param_value;
	void *frags[2 * ARRAY_SIZE(rx_frag_sizes)];
	unsigned int i, n = 0;

	if (p->ctx == RX_FRAG_NETDEV_IRQS_OFF && IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test,
			   "PREEMPT_RT: drivers do not allocate with IRQs off");

	for (i = 0; i < ARRAY_SIZE(rx_frag_sizes); i++) {
		/* an unaligned request first moves the cache's offset */
		void *plain = rx_frag_alloc(p->ctx, rx_frag_sizes[i], 0);
		void *data = rx_frag_alloc(p->ctx, rx_frag_sizes[i], p->align);

		if (plain)
			frags[n++] = plain;
		if (data)
			frags[n++] = data;
		KUNIT_EXPECT_NOT_NULL(test, plain);
		KUNIT_EXPECT_NOT_NULL_MSG(test, data, "%s(%u, %u) failed",
					  p->name, rx_frag_sizes[i], p->align);
		if (!data)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED((unsigned long)data,
						       p->align),
				      "arch %s, %s(%u, %u): fragment at page offset %lu",
				      rx_arch(), p->name, rx_frag_sizes[i],
				      p->align,
				      (unsigned long)data & ~PAGE_MASK);
		/* the plain variant's promise: SKB_DATA_ALIGN()ed sizes */
		KUNIT_EXPECT_TRUE_MSG(test, !plain ||
				      IS_ALIGNED((unsigned long)plain,
						 SMP_CACHE_BYTES),
				      RX_AT
				      "a plain fragment at page offset %lu, not aligned to SMP_CACHE_BYTES",
				      rx_arch(), p->name,
				      (unsigned long)plain & ~PAGE_MASK);
	}
	for (i = 0; i < n; i++)
		skb_free_frag(frags[i]);
}

static struct kunit_case rx_frag_cases[] = {
	KUNIT_CASE_PARAM(rx_page_pool_frags, rx_pp_gen_params),
	KUNIT_CASE_PARAM(rx_frag_align, rx_frag_gen_params),
	{}
};

static struct kunit_suite rx_frag_suite = {
	.name = "net_rx_align_frag",
	.init = rx_align_watch_kernel,
	.test_cases = rx_frag_cases,
};

kunit_test_suite(rx_frag_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment in the fragment allocators");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
