// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment.
 *
 * NET_IP_ALIGN is the pad a driver puts in front of a received Ethernet
 * frame so that the IP header behind the 14-byte MAC header starts on a
 * 4-byte boundary.  An architecture that loads unaligned words cheaply sets
 * it to 0, because the pad makes the device's DMA start unaligned, and that
 * costs more than the misaligned IP header.  NET_SKB_PAD is the headroom
 * every rx allocator keeps in front of the frame.
 *
 * These tests allocate receive buffers through every path a driver uses and
 * check that the buffer matches what the architecture asked for: the
 * headroom, the alignment of the address the device writes to, where the IP
 * header lands once the stack has parsed the frame, and that no path hands
 * out less room than requested.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/utsname.h>
#include <net/gro.h>
#include <net/hotdata.h>
#include <net/page_pool/helpers.h>
#include <net/tcp.h>

KUNIT_DEFINE_ACTION_WRAPPER(rx_free_netdev, free_netdev, struct net_device *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_kfree_skb, kfree_skb, struct sk_buff *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_page_pool_destroy, page_pool_destroy,
			    struct page_pool *);

static const char *rx_arch(void)
{
	return init_utsname()->machine;
}

/* ---- What each architecture promises (arch/{*}/include/asm on 6.12) ---- */

#define RX_DEFAULT_SKB_PAD (L1_CACHE_BYTES > 32 ? L1_CACHE_BYTES : 32)

struct rx_policy {
	const char *who;
	bool applies;
	unsigned int ip_align;
	unsigned int skb_pad;
};

static const struct rx_policy rx_policies[] = {
	/* asm/processor.h: unaligned loads are cheap, unaligned DMA is not */
	{ "x86", IS_ENABLED(CONFIG_X86), 0, RX_DEFAULT_SKB_PAD },
	{ "arm64", IS_ENABLED(CONFIG_ARM64), 0, RX_DEFAULT_SKB_PAD },
	{ "ppc64", IS_ENABLED(CONFIG_PPC64), 0, RX_DEFAULT_SKB_PAD },
	/* asm/cache.h: 256-byte cache lines would waste a pad of their size */
	{ "s390", IS_ENABLED(CONFIG_S390), 2, 32 },
	/* include/linux/skbuff.h defaults */
	{ "generic", true, 2, RX_DEFAULT_SKB_PAD },
};

static const struct rx_policy *rx_policy(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_policies) - 1; i++)
		if (rx_policies[i].applies)
			return &rx_policies[i];
	return &rx_policies[i];
}

static void rx_policy_table(struct kunit *test)
{
	const struct rx_policy *p = rx_policy();

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
	struct napi_struct *napi;
	struct page_pool *pool;
};

enum rx_family { RX_NETDEV, RX_NAPI, RX_BUILD, RX_POOL };

/* What skb->head_frag must be, from the size rules in net/core/skbuff.c. */
enum rx_head { RX_HEAD_KMALLOC, RX_HEAD_FRAG, RX_HEAD_NETDEV, RX_HEAD_NAPI };

struct rx_path {
	const char *name;
	enum rx_family family;
	enum rx_head head;
	/* headroom the API (or the driver idiom) leaves before the frame */
	bool xdp_pad;		/* XDP_PACKET_HEADROOM instead of NET_SKB_PAD */
	bool ip_align;		/* ... plus NET_IP_ALIGN */
	bool frag_only;		/* the buffer is at most one page */
	bool zone_dma;
	struct sk_buff *(*alloc)(struct kunit *test, struct rx_ctx *ctx,
				 unsigned int len);
};

static unsigned int rx_pad(const struct rx_path *path)
{
	return path->xdp_pad ? XDP_PACKET_HEADROOM : NET_SKB_PAD;
}

static unsigned int rx_ip_align(const struct rx_path *path)
{
	return path->ip_align ? NET_IP_ALIGN : 0;
}

static unsigned int rx_headroom(const struct rx_path *path)
{
	return rx_pad(path) + rx_ip_align(path);
}

/* The buffer a build_skb() user allocates for @len bytes of frame. */
static unsigned int rx_truesize(const struct rx_path *path, unsigned int len)
{
	return SKB_HEAD_ALIGN(rx_headroom(path) + len);
}

/* The largest frame we ask of a path: one page, or a 64K datagram. */
static unsigned int rx_max_len(const struct rx_path *path)
{
	if (path->frag_only)
		return SKB_WITH_OVERHEAD(PAGE_SIZE) - rx_headroom(path);
	return ETH_HLEN + IP_MAX_MTU;
}

/*
 * Mirrors SKB_SMALL_HEAD_CACHE_SIZE in net/core/skbuff.c, which is private
 * to that file: at or below it __netdev_alloc_skb() uses kmalloc.
 */
static unsigned int rx_small_head_cache_size(void)
{
	unsigned int size = SKB_HEAD_ALIGN(max_t(unsigned int, MAX_TCP_HEADER,
						 GRO_MAX_HEAD + NET_SKB_PAD +
						 NET_IP_ALIGN));

	return is_power_of_2(size) ? size + L1_CACHE_BYTES : size;
}

/* As NAPI_HAS_SMALL_PAGE_FRAG in net/core/skbuff.c */
#if PAGE_SIZE == SZ_4K
#define RX_NAPI_SMALL_FRAG true
#else
#define RX_NAPI_SMALL_FRAG false
#endif

static int rx_expected_head_frag(const struct rx_path *path, unsigned int len)
{
	unsigned int small = SKB_WITH_OVERHEAD(rx_small_head_cache_size());
	unsigned int page = SKB_WITH_OVERHEAD(PAGE_SIZE);

	switch (path->head) {
	case RX_HEAD_KMALLOC:
		return 0;
	case RX_HEAD_FRAG:
		return 1;
	case RX_HEAD_NETDEV:
		len += rx_headroom(path);
		return len > small && len <= page;
	case RX_HEAD_NAPI:
		/* with 4K pages small heads come from 1K page fragments */
		len += rx_headroom(path);
		return (RX_NAPI_SMALL_FRAG || len > small) &&
		       len <= page;
	}
	return -1;
}

static struct sk_buff *rx_netdev(struct kunit *test, struct rx_ctx *ctx,
				 unsigned int len)
{
	return netdev_alloc_skb(ctx->dev, len);
}

static struct sk_buff *rx_dev_alloc(struct kunit *test, struct rx_ctx *ctx,
				    unsigned int len)
{
	return dev_alloc_skb(len);
}

/* With IRQs off the page fragment comes from netdev_alloc_cache. */
static struct sk_buff *rx_netdev_irqs_off(struct kunit *test,
					  struct rx_ctx *ctx, unsigned int len)
{
	struct sk_buff *skb;
	unsigned long flags;

	local_irq_save(flags);
	skb = netdev_alloc_skb(ctx->dev, len);
	local_irq_restore(flags);
	return skb;
}

static struct sk_buff *rx_netdev_kernel(struct kunit *test,
					struct rx_ctx *ctx, unsigned int len)
{
	return __netdev_alloc_skb(ctx->dev, len, GFP_KERNEL);
}

static struct sk_buff *rx_netdev_dma(struct kunit *test, struct rx_ctx *ctx,
				     unsigned int len)
{
	return __netdev_alloc_skb(ctx->dev, len, GFP_ATOMIC | GFP_DMA);
}

static struct sk_buff *rx_netdev_ip_align(struct kunit *test,
					  struct rx_ctx *ctx, unsigned int len)
{
	return netdev_alloc_skb_ip_align(ctx->dev, len);
}

static struct sk_buff *rx_netdev_ip_align_kernel(struct kunit *test,
						 struct rx_ctx *ctx,
						 unsigned int len)
{
	return __netdev_alloc_skb_ip_align(ctx->dev, len, GFP_KERNEL);
}

/* napi_alloc_skb() belongs to a NAPI poll: softirq context. */
static struct sk_buff *rx_napi(struct kunit *test, struct rx_ctx *ctx,
			       unsigned int len)
{
	struct sk_buff *skb;

	local_bh_disable();
	skb = napi_alloc_skb(ctx->napi, len);
	local_bh_enable();
	return skb;
}

struct rx_alloc_param {
	const struct rx_path *path;
	unsigned int len;
};

static const struct rx_path *rx_path_of(struct kunit *test)
{
	return ((const struct rx_alloc_param *)test->param_value)->path;
}

/* The driver idiom: a page fragment, build_skb(), reserve the pad. */
static struct sk_buff *rx_build(const struct rx_path *path, void *data,
				struct sk_buff *skb)
{
	if (!skb) {
		skb_free_frag(data);
		return NULL;
	}
	skb_reserve(skb, rx_headroom(path));
	return skb;
}

static struct sk_buff *rx_build_skb(struct kunit *test, struct rx_ctx *ctx,
				    unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	unsigned int size = rx_truesize(path, len);
	void *data = netdev_alloc_frag(size);

	if (!data)
		return NULL;
	return rx_build(path, data, build_skb(data, size));
}

static struct sk_buff *rx_napi_build_skb(struct kunit *test,
					 struct rx_ctx *ctx, unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	unsigned int size = rx_truesize(path, len);
	struct sk_buff *skb = NULL;
	void *data;

	local_bh_disable();
	data = napi_alloc_frag(size);
	if (data)
		skb = rx_build(path, data, napi_build_skb(data, size));
	local_bh_enable();
	return skb;
}

/* As cpumap and veth do: the sk_buff comes from the cache, then the head. */
static struct sk_buff *rx_build_skb_around(struct kunit *test,
					   struct rx_ctx *ctx,
					   unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	unsigned int size = rx_truesize(path, len);
	struct sk_buff *skb;
	void *data;

	skb = kmem_cache_alloc(net_hotdata.skbuff_cache, GFP_ATOMIC);
	if (!skb)
		return NULL;
	data = netdev_alloc_frag(size);
	if (!data) {
		kmem_cache_free(net_hotdata.skbuff_cache, skb);
		return NULL;
	}
	memset(skb, 0, offsetof(struct sk_buff, tail));
	return rx_build(path, data, build_skb_around(skb, data, size));
}

static struct sk_buff *rx_slab_build_skb(struct kunit *test,
					 struct rx_ctx *ctx, unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	struct sk_buff *skb;
	void *data;

	data = kmalloc(rx_truesize(path, len), GFP_ATOMIC);
	if (!data)
		return NULL;
	skb = slab_build_skb(data);
	if (!skb) {
		kfree(data);
		return NULL;
	}
	skb_reserve(skb, rx_headroom(path));
	return skb;
}

/* The pool outlives its skbs: its destroy action is registered first. */
static struct page_pool *rx_pool(struct kunit *test, struct rx_ctx *ctx)
{
	struct page_pool_params pp = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};

	if (!ctx->pool) {
		ctx->pool = page_pool_create(&pp);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ctx->pool),
				       "page_pool_create: %pe", ctx->pool);
		KUNIT_ASSERT_EQ(test, 0,
				kunit_add_action_or_reset(test,
							  rx_page_pool_destroy,
							  ctx->pool));
	}
	return ctx->pool;
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
	skb_reserve(skb, rx_headroom(path));
	return skb;
}

static struct sk_buff *rx_pool_frag(struct kunit *test, struct rx_ctx *ctx,
				    unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	struct page_pool *pool = rx_pool(test, ctx);
	unsigned int size = rx_truesize(path, len);
	struct sk_buff *skb = NULL;
	unsigned int offset;
	struct page *page;

	local_bh_disable();
	page = page_pool_dev_alloc_frag(pool, &offset, size);
	if (page)
		skb = rx_pool_skb(pool, page, page_address(page) + offset,
				  size, path);
	local_bh_enable();
	return skb;
}

/* A whole page per frame with XDP headroom, as XDP-capable drivers do. */
static struct sk_buff *rx_pool_page(struct kunit *test, struct rx_ctx *ctx,
				    unsigned int len)
{
	const struct rx_path *path = rx_path_of(test);
	struct page_pool *pool = rx_pool(test, ctx);
	struct sk_buff *skb = NULL;
	struct page *page;

	local_bh_disable();
	page = page_pool_dev_alloc_pages(pool);
	if (page)
		skb = rx_pool_skb(pool, page, page_address(page), PAGE_SIZE,
				  path);
	local_bh_enable();
	return skb;
}

static const struct rx_path rx_paths[] = {
	{ "dev_alloc_skb", RX_NETDEV, RX_HEAD_NETDEV, .alloc = rx_dev_alloc },
	{ "netdev_alloc_skb", RX_NETDEV, RX_HEAD_NETDEV, .alloc = rx_netdev },
	{ "netdev_alloc_skb_irqs_off", RX_NETDEV, RX_HEAD_NETDEV,
	  .alloc = rx_netdev_irqs_off },
	{ "__netdev_alloc_skb_gfp_kernel", RX_NETDEV, RX_HEAD_KMALLOC,
	  .alloc = rx_netdev_kernel },
	{ "__netdev_alloc_skb_gfp_dma", RX_NETDEV, RX_HEAD_KMALLOC,
	  .zone_dma = true, .alloc = rx_netdev_dma },
	{ "netdev_alloc_skb_ip_align", RX_NETDEV, RX_HEAD_NETDEV,
	  .ip_align = true, .alloc = rx_netdev_ip_align },
	{ "__netdev_alloc_skb_ip_align_gfp_kernel", RX_NETDEV, RX_HEAD_KMALLOC,
	  .ip_align = true, .alloc = rx_netdev_ip_align_kernel },
	{ "napi_alloc_skb", RX_NAPI, RX_HEAD_NAPI, .ip_align = true,
	  .alloc = rx_napi },
	{ "build_skb", RX_BUILD, RX_HEAD_FRAG, .ip_align = true,
	  .frag_only = true, .alloc = rx_build_skb },
	{ "napi_build_skb", RX_BUILD, RX_HEAD_FRAG, .ip_align = true,
	  .frag_only = true, .alloc = rx_napi_build_skb },
	{ "build_skb_around", RX_BUILD, RX_HEAD_FRAG, .ip_align = true,
	  .frag_only = true, .alloc = rx_build_skb_around },
	{ "slab_build_skb", RX_BUILD, RX_HEAD_KMALLOC, .ip_align = true,
	  .alloc = rx_slab_build_skb },
	{ "page_pool_frag", RX_POOL, RX_HEAD_FRAG, .ip_align = true,
	  .frag_only = true, .alloc = rx_pool_frag },
	{ "page_pool_page_xdp", RX_POOL, RX_HEAD_FRAG, .xdp_pad = true,
	  .ip_align = true, .frag_only = true, .alloc = rx_pool_page },
};

/* ---- Parameters: (path, frame length) pairs, computed from PAGE_SIZE ---- */

#define RX_MAX_LENS 48
static unsigned int rx_lens[RX_MAX_LENS];
static unsigned int rx_nr_lens;
static struct rx_alloc_param rx_params[ARRAY_SIZE(rx_paths) * RX_MAX_LENS];
static unsigned int rx_nr_params;

static void rx_add_len(unsigned int len)
{
	unsigned int i;

	for (i = 0; i < rx_nr_lens; i++)
		if (rx_lens[i] == len)
			return;
	if (!WARN_ON(rx_nr_lens == RX_MAX_LENS))
		rx_lens[rx_nr_lens++] = len;
}

/* A size threshold of a path with @room headroom, from below and above. */
static void rx_add_threshold(unsigned int limit, unsigned int room)
{
	if (limit <= room)
		return;
	rx_add_len(limit - room);
	rx_add_len(limit - room + 1);
}

static int rx_cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

static int rx_alloc_suite_init(struct kunit_suite *suite)
{
	/* small frames, Ethernet minimum and MTU-sized frames, jumbo */
	static const unsigned int fixed[] = {
		1, ETH_ZLEN, 64, 128, 1500, ETH_FRAME_LEN, ETH_FRAME_LEN + 4,
		1536, 2048, 9000,
	};
	unsigned int small = SKB_WITH_OVERHEAD(rx_small_head_cache_size());
	unsigned int page = SKB_WITH_OVERHEAD(PAGE_SIZE);
	unsigned int i, j;

	rx_nr_lens = 0;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		rx_add_len(fixed[i]);
	for (i = 0; i < ARRAY_SIZE(rx_paths); i++) {
		unsigned int room = rx_headroom(&rx_paths[i]);

		rx_add_threshold(small, room);
		rx_add_threshold(page, room);
		if (RX_NAPI_SMALL_FRAG)
			rx_add_threshold(SKB_WITH_OVERHEAD(SZ_1K), room);
		rx_add_len(rx_max_len(&rx_paths[i]));
	}
	sort(rx_lens, rx_nr_lens, sizeof(rx_lens[0]), rx_cmp_uint, NULL);

	rx_nr_params = 0;
	for (i = 0; i < ARRAY_SIZE(rx_paths); i++)
		for (j = 0; j < rx_nr_lens; j++)
			if (rx_lens[j] <= rx_max_len(&rx_paths[i]))
				rx_params[rx_nr_params++] = (struct rx_alloc_param) {
					&rx_paths[i], rx_lens[j] };
	return 0;
}

static const void *rx_next_param(enum rx_family family, const void *prev,
				 char *desc)
{
	const struct rx_alloc_param *p = prev;

	p = p ? p + 1 : rx_params;
	for (; p < rx_params + rx_nr_params; p++) {
		if (p->path->family != family)
			continue;
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s len=%u", p->path->name,
			 p->len);
		return p;
	}
	return NULL;
}

static const void *rx_netdev_gen(const void *prev, char *desc)
{
	return rx_next_param(RX_NETDEV, prev, desc);
}

static const void *rx_napi_gen(const void *prev, char *desc)
{
	return rx_next_param(RX_NAPI, prev, desc);
}

static const void *rx_build_gen(const void *prev, char *desc)
{
	return rx_next_param(RX_BUILD, prev, desc);
}

static const void *rx_pool_gen(const void *prev, char *desc)
{
	return rx_next_param(RX_POOL, prev, desc);
}

/* ---- Allocation and checks ---- */

static int rx_test_init(struct kunit *test)
{
	struct rx_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->napi = kunit_kzalloc(test, sizeof(*ctx->napi), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->napi);
	ctx->dev = alloc_netdev_dummy(0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->dev);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, rx_free_netdev,
							   ctx->dev));
	ctx->napi->dev = ctx->dev;
	test->priv = ctx;
	return 0;
}

static struct sk_buff *rx_alloc(struct kunit *test,
				const struct rx_alloc_param *p)
{
	struct sk_buff *skb;

	if (p->path->zone_dma && !IS_ENABLED(CONFIG_ZONE_DMA))
		kunit_skip(test, "CONFIG_ZONE_DMA is not set: no GFP_DMA zone on %s",
			   rx_arch());

	skb = p->path->alloc(test, test->priv, p->len);
	KUNIT_ASSERT_NOT_NULL_MSG(test, skb, "arch %s: %s(%u) failed",
				  rx_arch(), p->path->name, p->len);
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, rx_kfree_skb,
							   skb));
	return skb;
}

/* The largest power of two that divides @addr, up to PAGE_SIZE. */
static unsigned long rx_alignment(unsigned long addr)
{
	return addr ? min(addr & -addr, PAGE_SIZE) : PAGE_SIZE;
}

static void rx_check_alloc(struct kunit *test)
{
	const struct rx_alloc_param *p = test->param_value;
	const struct rx_path *path = p->path;
	struct sk_buff *skb = rx_alloc(test, p);
	unsigned long dma = (unsigned long)skb->data - rx_ip_align(path);
	int head_frag = rx_expected_head_frag(path, p->len);
	/*
	 * skb->head is SMP_CACHE_BYTES aligned on every path: page fragments
	 * are carved in SKB_DATA_ALIGN()ed sizes from page-aligned pages, the
	 * small-head cache is SLAB_HWCACHE_ALIGN and larger kmalloc heads are
	 * power-of-two sized, hence naturally aligned.  NET_SKB_PAD is a power
	 * of two, so the address the device writes to is aligned to both.
	 */
	unsigned long align = min_t(unsigned long, rx_pad(path),
				    SMP_CACHE_BYTES);

	kunit_info(test, "len=%u head_frag=%u pfmemalloc=%u headroom=%u dma_align=%lu\n",
		   p->len, skb->head_frag, skb->pfmemalloc, skb_headroom(skb),
		   rx_alignment(dma));

	KUNIT_EXPECT_EQ_MSG(test, skb_headroom(skb), rx_headroom(path),
			    "arch %s, %s, len %u: headroom %u, expected pad %u + NET_IP_ALIGN %u",
			    rx_arch(), path->name, p->len, skb_headroom(skb),
			    rx_pad(path), rx_ip_align(path));
	KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(dma, align),
			      "arch %s, %s, len %u: DMA start (data - %u) at page offset %lu, not aligned to %lu",
			      rx_arch(), path->name, p->len, rx_ip_align(path),
			      dma & ~PAGE_MASK, align);
	KUNIT_EXPECT_GE_MSG(test, skb_tailroom(skb), p->len,
			    "arch %s, %s, len %u: tailroom %d is less than asked",
			    rx_arch(), path->name, p->len, skb_tailroom(skb));
	KUNIT_EXPECT_GE_MSG(test, skb->truesize,
			    SKB_TRUESIZE(rx_headroom(path) + p->len),
			    "arch %s, %s, len %u: truesize %u is below the buffer handed out",
			    rx_arch(), path->name, p->len, skb->truesize);
	if (head_frag >= 0)
		KUNIT_EXPECT_EQ_MSG(test, (int)skb->head_frag, head_frag,
				    "arch %s, %s, len %u: head_frag %u, size rules of net/core/skbuff.c say %d",
				    rx_arch(), path->name, p->len,
				    skb->head_frag, head_frag);
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
	KUNIT_CASE_PARAM(rx_netdev_alloc, rx_netdev_gen),
	KUNIT_CASE_PARAM(rx_napi_alloc, rx_napi_gen),
	KUNIT_CASE_PARAM(rx_build_alloc, rx_build_gen),
	KUNIT_CASE_PARAM(rx_page_pool_alloc, rx_pool_gen),
	{}
};

static struct kunit_suite rx_alloc_suite = {
	.name = "net_rx_align_alloc",
	.suite_init = rx_alloc_suite_init,
	.init = rx_test_init,
	.test_cases = rx_alloc_cases,
};

/* ---- Where the IP header lands once the stack has parsed the frame ---- */

enum rx_frame { RX_IPV4, RX_IPV6, RX_VLAN_IPV4 };

static const char * const rx_frame_names[] = { "ipv4", "ipv6", "vlan_ipv4" };

/* Lay out Ethernet (+ 802.1Q) + IP headers as the device's DMA would. */
static unsigned int rx_fill_frame(u8 *buf, enum rx_frame frame)
{
	struct iphdr ip4 = {
		.version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP,
		.tot_len = htons(ETH_DATA_LEN),
		.saddr = htonl(0xc0000201), .daddr = htonl(0xc0000202),
	};
	struct ipv6hdr ip6 = {
		.version = 6, .nexthdr = IPPROTO_UDP, .hop_limit = 64,
		.payload_len = htons(ETH_DATA_LEN - sizeof(ip6)),
		.saddr.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.daddr.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	};
	struct vlan_ethhdr eth = {
		.h_source = { 0x02, 0, 0, 0, 0, 1 },
	};
	unsigned int off = ETH_HLEN;

	eth_broadcast_addr(eth.h_dest);
	eth.h_vlan_proto = htons(frame == RX_IPV6 ? ETH_P_IPV6 : ETH_P_IP);
	if (frame == RX_VLAN_IPV4) {
		eth.h_vlan_proto = htons(ETH_P_8021Q);
		eth.h_vlan_TCI = htons(100);
		eth.h_vlan_encapsulated_proto = htons(ETH_P_IP);
		off = VLAN_ETH_HLEN;
	}
	memcpy(buf, &eth, off);
	if (frame == RX_IPV6)
		memcpy(buf + off, &ip6, sizeof(ip6));
	else
		memcpy(buf + off, &ip4, sizeof(ip4));
	return off;
}

static void rx_check_iphdr(struct kunit *test, enum rx_frame frame)
{
	const struct rx_path *path = rx_path_of(test);
	struct rx_ctx *ctx = test->priv;
	unsigned int len = ETH_FRAME_LEN + (frame == RX_VLAN_IPV4 ? VLAN_HLEN : 0);
	struct rx_alloc_param p = { path, len };
	/* the offset mod 4 the arch's NET_IP_ALIGN implies for the header */
	unsigned int want = (NET_IP_ALIGN + ETH_HLEN) % 4;
	struct sk_buff *skb = rx_alloc(test, &p);
	unsigned long nh, saddr;

	/* Drivers on the plain allocators reserve NET_IP_ALIGN themselves. */
	if (!path->ip_align)
		skb_reserve(skb, NET_IP_ALIGN);
	KUNIT_ASSERT_GE(test, skb_tailroom(skb), len);
	rx_fill_frame(skb_put(skb, len), frame);

	/* What eth_type_trans() and __netif_receive_skb_core() do to it. */
	skb->protocol = eth_type_trans(skb, ctx->dev);
	skb_reset_network_header(skb);
	if (eth_type_vlan(skb->protocol)) {
		struct sk_buff *untagged = skb_vlan_untag(skb);

		if (!untagged)	/* it freed the skb */
			kunit_remove_action(test, rx_kfree_skb, skb);
		KUNIT_ASSERT_PTR_EQ_MSG(test, untagged, skb,
					"%s: skb_vlan_untag() failed", path->name);
		KUNIT_EXPECT_TRUE(test, skb_vlan_tag_present(skb));
	}
	KUNIT_ASSERT_EQ(test, ntohs(skb->protocol),
			frame == RX_IPV6 ? ETH_P_IPV6 : ETH_P_IP);

	nh = (unsigned long)skb_network_header(skb);
	saddr = frame == RX_IPV6 ? (unsigned long)&ipv6_hdr(skb)->saddr :
				   (unsigned long)&ip_hdr(skb)->saddr;
	kunit_info(test, "%s: IP header at %lu mod 4, saddr at %lu mod 4\n",
		   rx_frame_names[frame], nh % 4, saddr % 4);

	KUNIT_EXPECT_EQ_MSG(test, nh % 4, want,
			    "arch %s, %s, %s: IP header at page offset %lu is %lu past a 4-byte boundary, NET_IP_ALIGN %u implies %u",
			    rx_arch(), path->name, rx_frame_names[frame],
			    nh & ~PAGE_MASK, nh % 4, NET_IP_ALIGN, want);
	if (NET_IP_ALIGN)
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(saddr, 4),
				      "arch %s, %s, %s: saddr at page offset %lu not 4-byte aligned with NET_IP_ALIGN %u",
				      rx_arch(), path->name,
				      rx_frame_names[frame], saddr & ~PAGE_MASK,
				      NET_IP_ALIGN);
}

static struct rx_alloc_param rx_iphdr_params[ARRAY_SIZE(rx_paths)];

static void rx_path_desc(struct rx_alloc_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", p->path->name);
}

static int rx_iphdr_suite_init(struct kunit_suite *suite)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_paths); i++)
		rx_iphdr_params[i].path = &rx_paths[i];
	return 0;
}

KUNIT_ARRAY_PARAM(rx_iphdr, rx_iphdr_params, rx_path_desc);

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
	KUNIT_CASE_PARAM(rx_ipv4_header, rx_iphdr_gen_params),
	KUNIT_CASE_PARAM(rx_ipv6_header, rx_iphdr_gen_params),
	KUNIT_CASE_PARAM(rx_vlan_ipv4_header, rx_iphdr_gen_params),
	{}
};

static struct kunit_suite rx_iphdr_suite = {
	.name = "net_rx_align_iphdr",
	.suite_init = rx_iphdr_suite_init,
	.init = rx_test_init,
	.test_cases = rx_iphdr_cases,
};

kunit_test_suites(&rx_policy_suite, &rx_alloc_suite, &rx_iphdr_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment (NET_IP_ALIGN, NET_SKB_PAD)");
MODULE_LICENSE("GPL");
