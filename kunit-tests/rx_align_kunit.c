// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment: the policy and the allocators.
 *
 * NET_IP_ALIGN is the pad a driver puts in front of a received Ethernet
 * frame so that the IP header behind the 14-byte MAC header starts on a
 * 4-byte boundary.  An architecture that loads unaligned words cheaply sets
 * it to 0, because the pad makes the device's DMA start unaligned, and that
 * costs more than the misaligned IP header.  NET_SKB_PAD is the headroom
 * every rx allocator keeps in front of the frame.
 *
 * These suites allocate receive buffers through every allocator a driver
 * uses and check what the kernel decides against what the architecture
 * promises (rx_align.h): the headroom, the alignment of the address the
 * device writes to, where the IP header lands once the stack has parsed
 * the frame, and that no path hands out less room than requested.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "rx_align.h"

/* RX_AT for one path and frame length: rx_arch(), the path's name, len. */
#define RX_AT_LEN "arch %s, %s, len %u: "

KUNIT_DEFINE_ACTION_WRAPPER(rx_free_netdev, free_netdev, struct net_device *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_kfree_skb, kfree_skb, struct sk_buff *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_page_pool_destroy, page_pool_destroy,
			    struct page_pool *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_napi_del, netif_napi_del, struct napi_struct *);

/* ---- The policy itself ---- */

static void rx_policy_table(struct kunit *test)
{
	const struct rx_align_policy *p = rx_align_policy();

	/* One line the reports parse: the facts behind every other verdict. */
	kunit_info(test,
		   "rx_align_facts: arch=%s policy=%s net_ip_align=%u net_skb_pad=%u l1_cache_bytes=%u smp_cache_bytes=%u page_size=%lu efficient_unaligned=%d dma_cache_align=%d bits=%d endian=%s\n",
		   rx_arch(), p->who, (unsigned int)NET_IP_ALIGN,
		   (unsigned int)NET_SKB_PAD, (unsigned int)L1_CACHE_BYTES,
		   (unsigned int)SMP_CACHE_BYTES, PAGE_SIZE,
		   IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS),
		   dma_get_cache_alignment(), BITS_PER_LONG,
		   IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? "big" : "little");

	KUNIT_EXPECT_EQ_MSG(test, NET_IP_ALIGN, p->ip_align,
			    "arch %s (%s policy): NET_IP_ALIGN %u, the arch promises %u",
			    rx_arch(), p->who, NET_IP_ALIGN, p->ip_align);
	KUNIT_EXPECT_EQ_MSG(test, NET_SKB_PAD, p->skb_pad,
			    "arch %s (%s policy): NET_SKB_PAD %u, the arch promises %u",
			    rx_arch(), p->who, (unsigned int)NET_SKB_PAD,
			    p->skb_pad);
}

static void rx_net_skb_pad_sane(struct kunit *test)
{
	/* The alignment argument below needs a power of two. */
	KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(NET_SKB_PAD),
			      "arch %s: NET_SKB_PAD %u is not a power of 2",
			      rx_arch(), (unsigned int)NET_SKB_PAD);
	/* skbuff.h: room for NET_IP_ALIGN + Ethernet + IPv4 + ports */
	KUNIT_EXPECT_GE_MSG(test, NET_SKB_PAD, 32,
			    "arch %s: NET_SKB_PAD %u is below 32",
			    rx_arch(), (unsigned int)NET_SKB_PAD);
}

static void rx_net_ip_align_sane(struct kunit *test)
{
	KUNIT_EXPECT_TRUE_MSG(test, NET_IP_ALIGN == 0 || NET_IP_ALIGN == 2,
			      "arch %s: NET_IP_ALIGN %u is neither 0 nor 2",
			      rx_arch(), NET_IP_ALIGN);
	/* Without the pad, every IP header is misaligned by 2. */
	if (NET_IP_ALIGN == 0)
		KUNIT_EXPECT_TRUE_MSG(test,
				      IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS),
				      "arch %s: NET_IP_ALIGN 0 without HAVE_EFFICIENT_UNALIGNED_ACCESS",
				      rx_arch());
	else
		KUNIT_EXPECT_EQ_MSG(test, (ETH_HLEN + NET_IP_ALIGN) % 4, 0,
				    "arch %s: NET_IP_ALIGN %u does not align the IP header",
				    rx_arch(), NET_IP_ALIGN);
}

static struct kunit_case rx_policy_cases[] = {
	KUNIT_CASE(rx_policy_table),
	KUNIT_CASE(rx_net_skb_pad_sane),
	KUNIT_CASE(rx_net_ip_align_sane),
	{}
};

static struct kunit_suite rx_policy_suite = {
	.name = "net_rx_align_policy",
	.test_cases = rx_policy_cases,
};

/* ---- The receive allocation paths, each used the way drivers use it ---- */

struct rx_ctx {
	struct net_device *dev;
	struct napi_struct napi;
	struct page_pool *pool;
};

/*
 * Who decides where the frame starts: the allocator (ALLOC: the headroom
 * is the API's promise) or the driver, which builds an skb around a buffer
 * it carved and reserves the pad itself (BUILD: the kernel decides where
 * the buffer is, how big the head is and where skb_shared_info goes).
 */
enum rx_decides { RX_ALLOC, RX_BUILD };

struct rx_path {
	const char *name;
	enum rx_decides decides;
	bool xdp_pad;		/* XDP_PACKET_HEADROOM instead of NET_SKB_PAD */
	bool ip_align;		/* ... plus NET_IP_ALIGN */
	bool frag_only;		/* the buffer is at most one page */
	bool zone_dma;
	bool irqs_off;		/* the netdev_alloc_cache branch */
	/* the buffer the skb was built around, for RX_BUILD */
	struct sk_buff *(*alloc)(struct rx_ctx *ctx, const struct rx_path *path,
				 unsigned int len, unsigned int *size);
};

/* The headroom the policy says this path leaves before the frame. */
static unsigned int rx_pad(const struct rx_path *path)
{
	return path->xdp_pad ? XDP_PACKET_HEADROOM : rx_align_policy()->skb_pad;
}

static unsigned int rx_ip_align(const struct rx_path *path)
{
	return path->ip_align ? rx_align_policy()->ip_align : 0;
}

static unsigned int rx_headroom(const struct rx_path *path)
{
	return rx_pad(path) + rx_ip_align(path);
}

/* What a driver reserves before build_skb(): the macros, as drivers do. */
static unsigned int rx_driver_reserve(const struct rx_path *path)
{
	return (path->xdp_pad ? XDP_PACKET_HEADROOM : NET_SKB_PAD) +
	       (path->ip_align ? NET_IP_ALIGN : 0);
}

/* The buffer a build_skb() user allocates for @len bytes of frame. */
static unsigned int rx_buf_size(const struct rx_path *path, unsigned int len)
{
	return SKB_HEAD_ALIGN(rx_driver_reserve(path) + len);
}

/* A 9000-byte MTU with 802.1Q: the largest frame drivers ask for. */
#define RX_JUMBO_LEN	(9000 + VLAN_ETH_HLEN)

/* The largest frame we ask of a path: one page, or a jumbo frame. */
static unsigned int rx_max_len(const struct rx_path *path)
{
	if (path->frag_only)
		return SKB_WITH_OVERHEAD(PAGE_SIZE) - rx_driver_reserve(path);
	return RX_JUMBO_LEN;
}

static struct sk_buff *rx_netdev(struct rx_ctx *ctx, const struct rx_path *path,
				 unsigned int len, unsigned int *size)
{
	return netdev_alloc_skb(ctx->dev, len);
}

static struct sk_buff *rx_dev_alloc(struct rx_ctx *ctx,
				    const struct rx_path *path,
				    unsigned int len, unsigned int *size)
{
	return dev_alloc_skb(len);
}

/* In hard IRQ context the page fragment comes from netdev_alloc_cache. */
static struct sk_buff *rx_netdev_irqs_off(struct rx_ctx *ctx,
					  const struct rx_path *path,
					  unsigned int len, unsigned int *size)
{
	struct sk_buff *skb;
	unsigned long flags;

	local_irq_save(flags);
	skb = netdev_alloc_skb(ctx->dev, len);
	local_irq_restore(flags);
	return skb;
}

static struct sk_buff *rx_netdev_kernel(struct rx_ctx *ctx,
					const struct rx_path *path,
					unsigned int len, unsigned int *size)
{
	return __netdev_alloc_skb(ctx->dev, len, GFP_KERNEL);
}

static struct sk_buff *rx_netdev_dma(struct rx_ctx *ctx,
				     const struct rx_path *path,
				     unsigned int len, unsigned int *size)
{
	return __netdev_alloc_skb(ctx->dev, len, GFP_ATOMIC | GFP_DMA);
}

static struct sk_buff *rx_netdev_ip_align(struct rx_ctx *ctx,
					  const struct rx_path *path,
					  unsigned int len, unsigned int *size)
{
	return netdev_alloc_skb_ip_align(ctx->dev, len);
}

static struct sk_buff *rx_netdev_ip_align_kernel(struct rx_ctx *ctx,
						 const struct rx_path *path,
						 unsigned int len,
						 unsigned int *size)
{
	return __netdev_alloc_skb_ip_align(ctx->dev, len, GFP_KERNEL);
}

/* napi_alloc_skb() belongs to a NAPI poll: softirq context. */
static struct sk_buff *rx_napi(struct rx_ctx *ctx, const struct rx_path *path,
			       unsigned int len, unsigned int *size)
{
	struct sk_buff *skb;

	local_bh_disable();
	skb = napi_alloc_skb(&ctx->napi, len);
	local_bh_enable();
	return skb;
}

/* The driver idiom: a page fragment, build_skb(), reserve the pad. */
static struct sk_buff *rx_build(const struct rx_path *path, void *data,
				struct sk_buff *skb)
{
	if (!skb) {
		skb_free_frag(data);
		return NULL;
	}
	skb_reserve(skb, rx_driver_reserve(path));
	return skb;
}

static struct sk_buff *rx_build_skb(struct rx_ctx *ctx,
				    const struct rx_path *path,
				    unsigned int len, unsigned int *size)
{
	void *data;

	*size = rx_buf_size(path, len);
	data = netdev_alloc_frag(*size);
	if (!data)
		return NULL;
	return rx_build(path, data, build_skb(data, *size));
}

/* The fragment from netdev_alloc_cache, as a driver's hard IRQ handler. */
static struct sk_buff *rx_build_skb_irqs_off(struct rx_ctx *ctx,
					     const struct rx_path *path,
					     unsigned int len,
					     unsigned int *size)
{
	unsigned long flags;
	void *data;

	*size = rx_buf_size(path, len);
	local_irq_save(flags);
	data = netdev_alloc_frag(*size);
	local_irq_restore(flags);
	if (!data)
		return NULL;
	return rx_build(path, data, build_skb(data, *size));
}

static struct sk_buff *rx_napi_build_skb(struct rx_ctx *ctx,
					 const struct rx_path *path,
					 unsigned int len, unsigned int *size)
{
	struct sk_buff *skb = NULL;
	void *data;

	*size = rx_buf_size(path, len);
	local_bh_disable();
	data = napi_alloc_frag(*size);
	if (data)
		skb = rx_build(path, data, napi_build_skb(data, *size));
	local_bh_enable();
	return skb;
}

/*
 * As veth does: the sk_buff comes zeroed from the NAPI cache in bulk (in BH
 * context, as napi_skb_cache_get_bulk() requires), then the head.
 */
static struct sk_buff *rx_build_skb_around(struct rx_ctx *ctx,
					   const struct rx_path *path,
					   unsigned int len,
					   unsigned int *size)
{
	void *skb = NULL;
	void *data;
	u32 got;

	*size = rx_buf_size(path, len);
	data = netdev_alloc_frag(*size);
	if (!data)
		return NULL;
	local_bh_disable();
	got = napi_skb_cache_get_bulk(&skb, 1);
	local_bh_enable();
	if (!got) {
		skb_free_frag(data);
		return NULL;
	}
	return rx_build(path, data, build_skb_around(skb, data, *size));
}

static struct sk_buff *rx_slab_build_skb(struct rx_ctx *ctx,
					 const struct rx_path *path,
					 unsigned int len, unsigned int *size)
{
	struct sk_buff *skb;
	void *data;

	data = kmalloc(rx_buf_size(path, len), GFP_ATOMIC);
	if (!data)
		return NULL;
	*size = ksize(data);
	skb = slab_build_skb(data);
	if (!skb) {
		kfree(data);
		return NULL;
	}
	skb_reserve(skb, rx_driver_reserve(path));
	return skb;
}

static struct sk_buff *rx_pool_skb(struct page_pool *pool, struct page *page,
				   void *data, unsigned int size,
				   const struct rx_path *path)
{
	struct sk_buff *skb = napi_build_skb(data, size);

	if (!skb) {
		page_pool_put_full_page(pool, page, false);
		return NULL;
	}
	skb_mark_for_recycle(skb);
	skb_reserve(skb, rx_driver_reserve(path));
	return skb;
}

static struct sk_buff *rx_pool_frag(struct rx_ctx *ctx,
				    const struct rx_path *path,
				    unsigned int len, unsigned int *size)
{
	struct sk_buff *skb = NULL;
	unsigned int offset;
	struct page *page;

	*size = rx_buf_size(path, len);
	local_bh_disable();
	page = page_pool_dev_alloc_frag(ctx->pool, &offset, *size);
	if (page)
		skb = rx_pool_skb(ctx->pool, page,
				  page_address(page) + offset, *size, path);
	local_bh_enable();
	return skb;
}

/* A whole page per frame with XDP headroom, as XDP-capable drivers do. */
static struct sk_buff *rx_pool_page(struct rx_ctx *ctx,
				    const struct rx_path *path,
				    unsigned int len, unsigned int *size)
{
	struct sk_buff *skb = NULL;
	struct page *page;

	*size = PAGE_SIZE;
	local_bh_disable();
	page = page_pool_dev_alloc_pages(ctx->pool);
	if (page)
		skb = rx_pool_skb(ctx->pool, page, page_address(page),
				  PAGE_SIZE, path);
	local_bh_enable();
	return skb;
}

static const struct rx_path rx_netdev_paths[] = {
	{ "dev_alloc_skb", RX_ALLOC, .alloc = rx_dev_alloc },
	{ "netdev_alloc_skb", RX_ALLOC, .alloc = rx_netdev },
	{ "netdev_alloc_skb_irqs_off", RX_ALLOC, .irqs_off = true,
	  .alloc = rx_netdev_irqs_off },
	{ "__netdev_alloc_skb_gfp_kernel", RX_ALLOC, .alloc = rx_netdev_kernel },
	{ "__netdev_alloc_skb_gfp_dma", RX_ALLOC, .zone_dma = true,
	  .alloc = rx_netdev_dma },
	{ "netdev_alloc_skb_ip_align", RX_ALLOC, .ip_align = true,
	  .alloc = rx_netdev_ip_align },
	{ "__netdev_alloc_skb_ip_align_gfp_kernel", RX_ALLOC, .ip_align = true,
	  .alloc = rx_netdev_ip_align_kernel },
};

static const struct rx_path rx_napi_paths[] = {
	{ "napi_alloc_skb", RX_ALLOC, .ip_align = true, .alloc = rx_napi },
};

static const struct rx_path rx_build_paths[] = {
	{ "build_skb", RX_BUILD, .ip_align = true, .frag_only = true,
	  .alloc = rx_build_skb },
	{ "build_skb_irqs_off", RX_BUILD, .ip_align = true, .frag_only = true,
	  .irqs_off = true, .alloc = rx_build_skb_irqs_off },
	{ "napi_build_skb", RX_BUILD, .ip_align = true, .frag_only = true,
	  .alloc = rx_napi_build_skb },
	{ "build_skb_around", RX_BUILD, .ip_align = true, .frag_only = true,
	  .alloc = rx_build_skb_around },
	{ "slab_build_skb", RX_BUILD, .ip_align = true,
	  .alloc = rx_slab_build_skb },
};

static const struct rx_path rx_pool_paths[] = {
	{ "page_pool_frag", RX_BUILD, .ip_align = true, .frag_only = true,
	  .alloc = rx_pool_frag },
	{ "page_pool_page_xdp", RX_BUILD, .xdp_pad = true, .ip_align = true,
	  .frag_only = true, .alloc = rx_pool_page },
};

KUNIT_ARRAY_PARAM_DESC(rx_netdev_paths, rx_netdev_paths, name);
KUNIT_ARRAY_PARAM_DESC(rx_napi_paths, rx_napi_paths, name);
KUNIT_ARRAY_PARAM_DESC(rx_build_paths, rx_build_paths, name);
KUNIT_ARRAY_PARAM_DESC(rx_pool_paths, rx_pool_paths, name);

/* ---- Allocation and checks ---- */

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
	unsigned int page = SKB_WITH_OVERHEAD(PAGE_SIZE) - rx_driver_reserve(path);
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

static int rx_ctx_init(struct kunit *test)
{
	struct page_pool_params pp = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct rx_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->dev = alloc_netdev_dummy(0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_free_netdev,
							ctx->dev), 0);
	/* napi_alloc_skb() takes its device from a NAPI instance. */
	netif_napi_add(ctx->dev, &ctx->napi, NULL);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_napi_del,
							&ctx->napi), 0);
	/* The pool outlives its skbs: its destroy action comes first. */
	ctx->pool = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ctx->pool), "page_pool_create: %pe",
			       ctx->pool);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							rx_page_pool_destroy,
							ctx->pool), 0);
	test->priv = ctx;
	return 0;
}

/* Skip what a driver could not do here, with the reason. */
static void rx_path_applies(struct kunit *test, const struct rx_path *path)
{
	struct page *probe;

	if (path->zone_dma && !IS_ENABLED(CONFIG_ZONE_DMA))
		kunit_skip(test, "CONFIG_ZONE_DMA is not set: no GFP_DMA zone on %s",
			   rx_arch());
	if (path->zone_dma) {
		/* QEMU's malta: the kernel and its reservations fill the 16 MiB */
		probe = alloc_page(GFP_KERNEL | GFP_DMA | __GFP_NOWARN);
		if (!probe)
			kunit_skip(test,
				   "ZONE_DMA has no free page on %s: nothing a driver could get either",
				   rx_arch());
		__free_page(probe);
	}
	/* On PREEMPT_RT the allocators take sleeping locks. */
	if (path->irqs_off && IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test, "PREEMPT_RT: drivers do not allocate with IRQs off");
}

static struct sk_buff *rx_alloc(struct kunit *test, const struct rx_path *path,
				unsigned int len, unsigned int *size)
{
	struct sk_buff *skb;

	*size = 0;
	skb = path->alloc(test->priv, path, len, size);
	KUNIT_ASSERT_NOT_NULL_MSG(test, skb, "arch %s: %s(%u) failed",
				  rx_arch(), path->name, len);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_kfree_skb,
							skb), 0);
	return skb;
}

/* ALLOC paths: the headroom and DMA start are the API's promise. */
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

	KUNIT_EXPECT_EQ_MSG(test, skb_headroom(skb), rx_headroom(path),
			    RX_AT_LEN
			    "headroom %u, the arch promises a pad of %u + NET_IP_ALIGN %u",
			    rx_arch(), path->name, len, skb_headroom(skb),
			    rx_pad(path), rx_ip_align(path));
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(dma, align),
			      RX_AT_LEN
			      "DMA start (data - %u) at page offset %lu, not aligned to %lu",
			      rx_arch(), path->name, len, rx_ip_align(path),
			      dma & ~PAGE_MASK, align);
	KUNIT_EXPECT_GE_MSG(test, skb->truesize, SKB_TRUESIZE(skb_headroom(skb) + len),
			    RX_AT_LEN "truesize %u is below the buffer handed out",
			    rx_arch(), path->name, len, skb->truesize);
}

/*
 * BUILD paths: the driver carved @size bytes and reserved the pad; the
 * kernel decides where the head is, where skb_shared_info goes and what
 * the skb is charged.
 */
static void rx_check_built(struct kunit *test, const struct rx_path *path,
			   struct sk_buff *skb, unsigned int len,
			   unsigned int size)
{
	unsigned long head = (unsigned long)skb->head;
	/* where the driver's device writes: head + NET_SKB_PAD */
	unsigned long dma = (unsigned long)skb->data -
			    (path->ip_align ? NET_IP_ALIGN : 0);

	KUNIT_EXPECT_EQ_MSG(test, skb_end_offset(skb), SKB_WITH_OVERHEAD(size),
			    RX_AT_LEN "skb_shared_info at %u of a %u-byte buffer, expected %u",
			    rx_arch(), path->name, len, skb_end_offset(skb),
			    size, (unsigned int)SKB_WITH_OVERHEAD(size));
	KUNIT_EXPECT_EQ_MSG(test, skb->truesize,
			    SKB_TRUESIZE(SKB_WITH_OVERHEAD(size)),
			    RX_AT_LEN "truesize %u for a %u-byte buffer",
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
			      "DMA start (head + %lu) at page offset %lu, not aligned to the arch's pad %u",
			      rx_arch(), path->name, len, dma - head,
			      dma & ~PAGE_MASK, rx_pad(path));
}

static void rx_check_alloc(struct kunit *test)
{
	const struct rx_path *path = test->param_value;
	unsigned int lens[RX_MAX_SWEEP];
	unsigned int i, n, size;

	rx_path_applies(test, path);
	n = rx_sweep(path, lens);
	for (i = 0; i < n; i++) {
		struct sk_buff *skb = rx_alloc(test, path, lens[i], &size);

		kunit_info(test, "%s len=%u head_frag=%u pfmemalloc=%u headroom=%u dma_align=%lu\n",
			   path->name, lens[i], skb->head_frag, skb->pfmemalloc,
			   skb_headroom(skb),
			   rx_alignment((unsigned long)skb->data -
					rx_ip_align(path)));
		KUNIT_EXPECT_GE_MSG(test, skb_tailroom(skb), lens[i],
				    RX_AT_LEN "tailroom %d is less than asked",
				    rx_arch(), path->name, lens[i],
				    skb_tailroom(skb));
		if (path->decides == RX_ALLOC)
			rx_check_api(test, path, skb, lens[i]);
		else
			rx_check_built(test, path, skb, lens[i], size);
		kunit_release_action(test, rx_kfree_skb, skb);
	}
	kunit_info(test, "%s: %u frame lengths up to %u\n", path->name, n,
		   lens[n - 1]);
}

static void rx_netdev_alloc(struct kunit *test)
{
	rx_check_alloc(test);
}

static void rx_napi_alloc(struct kunit *test)
{
	rx_check_alloc(test);
}

static void rx_build_alloc(struct kunit *test)
{
	rx_check_alloc(test);
}

static void rx_page_pool_alloc(struct kunit *test)
{
	rx_check_alloc(test);
}

static struct kunit_case rx_alloc_cases[] = {
	KUNIT_CASE_PARAM(rx_netdev_alloc, rx_netdev_paths_gen_params),
	KUNIT_CASE_PARAM(rx_napi_alloc, rx_napi_paths_gen_params),
	KUNIT_CASE_PARAM(rx_build_alloc, rx_build_paths_gen_params),
	KUNIT_CASE_PARAM(rx_page_pool_alloc, rx_pool_paths_gen_params),
	{}
};

static struct kunit_suite rx_alloc_suite = {
	.name = "net_rx_align_alloc",
	.init = rx_ctx_init,
	.test_cases = rx_alloc_cases,
};

/* ---- Where the IP header lands once the stack has parsed the frame ---- */

static const struct rx_path * const rx_all_paths[] = {
	&rx_netdev_paths[0], &rx_netdev_paths[1], &rx_netdev_paths[2],
	&rx_netdev_paths[3], &rx_netdev_paths[4], &rx_netdev_paths[5],
	&rx_netdev_paths[6], &rx_napi_paths[0], &rx_build_paths[0],
	&rx_build_paths[1], &rx_build_paths[2], &rx_build_paths[3],
	&rx_build_paths[4], &rx_pool_paths[0], &rx_pool_paths[1],
};

static_assert(ARRAY_SIZE(rx_all_paths) ==
	      ARRAY_SIZE(rx_netdev_paths) + ARRAY_SIZE(rx_napi_paths) +
	      ARRAY_SIZE(rx_build_paths) + ARRAY_SIZE(rx_pool_paths));

static void rx_path_desc(const struct rx_path * const *path, char *desc)
{
	strscpy(desc, (*path)->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rx_all_paths, rx_all_paths, rx_path_desc);

static void rx_check_iphdr(struct kunit *test, enum rx_frame frame)
{
	const struct rx_path *path =
		*(const struct rx_path * const *)test->param_value;
	struct rx_ctx *ctx = test->priv;
	unsigned int len = ETH_FRAME_LEN + rx_frame_hlen(frame) - ETH_HLEN;
	/* Drivers on the plain allocators ask for and reserve NET_IP_ALIGN. */
	unsigned int pad = path->ip_align ? 0 : NET_IP_ALIGN;
	struct sk_buff *skb, *untagged;
	unsigned long saddr, mac;
	unsigned int size;
	char what[64];

	rx_path_applies(test, path);
	skb = rx_alloc(test, path, len + pad, &size);
	skb_reserve(skb, pad);
	KUNIT_ASSERT_GE(test, skb_tailroom(skb), len);
	rx_align_fill_frame(skb_put(skb, len), frame, len, ctx->dev->dev_addr);

	/* What eth_type_trans() and __netif_receive_skb_core() do to it. */
	mac = (unsigned long)skb->data;
	skb->protocol = eth_type_trans(skb, ctx->dev);
	skb_reset_network_header(skb);
	if (eth_type_vlan(skb->protocol)) {
		untagged = skb_vlan_untag(skb);
		if (!untagged)	/* it freed the skb */
			kunit_remove_action(test, rx_kfree_skb, skb);
		KUNIT_ASSERT_PTR_EQ_MSG(test, untagged, skb,
					"%s: skb_vlan_untag() failed", path->name);
		KUNIT_EXPECT_TRUE(test, skb_vlan_tag_present(skb));
	}
	KUNIT_ASSERT_EQ(test, skb->protocol, rx_frame_proto(frame));

	saddr = frame == RX_IPV6 ? (unsigned long)&ipv6_hdr(skb)->saddr :
				   (unsigned long)&ip_hdr(skb)->saddr;
	rx_align_report_frame(test, path->name, rx_align_frame_names[frame], len,
			      mac - (unsigned long)skb->head, mac,
			(unsigned long)skb_network_header(skb), skb->head_frag,
			skb->pp_recycle);

	snprintf(what, sizeof(what), "%s, %s", path->name,
		 rx_align_frame_names[frame]);
	RX_EXPECT_NH(test, skb_network_header(skb), what);
	if (rx_nh_want() == 0)
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(saddr, 4),
				      RX_AT
				      "saddr at page offset %lu not 4-byte aligned with NET_IP_ALIGN %u",
				      rx_arch(), what, saddr & ~PAGE_MASK,
				      rx_align_policy()->ip_align);
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
	KUNIT_CASE_PARAM(rx_ipv4_header, rx_all_paths_gen_params),
	KUNIT_CASE_PARAM(rx_ipv6_header, rx_all_paths_gen_params),
	KUNIT_CASE_PARAM(rx_vlan_ipv4_header, rx_all_paths_gen_params),
	{}
};

static struct kunit_suite rx_iphdr_suite = {
	.name = "net_rx_align_iphdr",
	.init = rx_ctx_init,
	.test_cases = rx_iphdr_cases,
};

/* ---- What NET_IP_ALIGN saves: unaligned-access fixups, counted ---- */

/* The control: a deliberately misaligned load must move the counter. */
static void rx_fixup_control(struct kunit *test)
{
	struct rx_align_fixups *f = rx_align_fixups(test);
	u32 *words = kunit_kzalloc(test, 16, GFP_KERNEL);
	u64 before, after;
	u32 v;

	KUNIT_ASSERT_NOT_NULL(test, words);
	before = rx_align_fixups_read(f);
	v = READ_ONCE(*(u32 *)((u8 *)words + 2));
	after = rx_align_fixups_read(f);
	kunit_info(test, "rx_align_fixups: control %llu -> %llu (read %u)\n",
		   before, after, v);
	KUNIT_EXPECT_GT_MSG(test, after, before,
			    "arch %s: a misaligned u32 load did not move the fixup counter",
			    rx_arch());
}

/*
 * Every path's frames through the stack's own header readers (the IP
 * checksum over the header, the address words ip_rcv() and ipv6_rcv()
 * look at): with the IP header where NET_IP_ALIGN puts it, no fixups.
 */
static void rx_fixup_frames(struct kunit *test)
{
	const struct rx_path *path =
		*(const struct rx_path * const *)test->param_value;
	struct rx_ctx *ctx = test->priv;
	unsigned int pad = path->ip_align ? 0 : NET_IP_ALIGN;
	struct rx_align_fixups *f = rx_align_fixups(test);
	enum rx_frame frame;
	unsigned int size;
	u64 before, after;
	u32 sum = 0;

	rx_path_applies(test, path);
	for (frame = RX_IPV4; frame < RX_NR_FRAMES; frame++) {
		unsigned int len = ETH_FRAME_LEN + rx_frame_hlen(frame) - ETH_HLEN;
		struct sk_buff *skb = rx_alloc(test, path, len + pad, &size);
		struct sk_buff *orig = skb;

		skb_reserve(skb, pad);
		rx_align_fill_frame(skb_put(skb, len), frame, len, ctx->dev->dev_addr);
		before = rx_align_fixups_read(f);
		skb->protocol = eth_type_trans(skb, ctx->dev);
		skb_reset_network_header(skb);
		if (eth_type_vlan(skb->protocol))
			skb = skb_vlan_untag(skb);
		if (skb)
			sum += rx_align_read_ip_header(skb_network_header(skb),
						 skb->protocol == htons(ETH_P_IPV6));
		after = rx_align_fixups_read(f);
		if (!skb)	/* skb_vlan_untag() freed it */
			kunit_remove_action(test, rx_kfree_skb, orig);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		KUNIT_EXPECT_EQ_MSG(test, after, before,
				    "arch %s, %s, %s: parsing the frame took %llu unaligned-access fixup(s)",
				    rx_arch(), path->name, rx_align_frame_names[frame],
				    after - before);
	}
	kunit_info(test, "rx_align_fixups: %s: none (checksum %u)\n", path->name,
		   sum);
}

static struct kunit_case rx_fixup_cases[] = {
	KUNIT_CASE(rx_fixup_control),
	KUNIT_CASE_PARAM(rx_fixup_frames, rx_all_paths_gen_params),
	{}
};

static struct kunit_suite rx_fixup_suite = {
	.name = "net_rx_align_fixups",
	.init = rx_ctx_init,
	.test_cases = rx_fixup_cases,
};

kunit_test_suites(&rx_policy_suite, &rx_alloc_suite, &rx_iphdr_suite,
		  &rx_fixup_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment (NET_IP_ALIGN, NET_SKB_PAD)");
MODULE_LICENSE("GPL");
