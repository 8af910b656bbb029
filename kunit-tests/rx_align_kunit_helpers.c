// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the receive buffer alignment KUnit suites (rx_align.h):
 * the frames the suites send, where a frame must land and the line each
 * frame gets in the log, the fixtures, the receive paths drivers allocate
 * through, the taps that record where frames land, and the
 * unaligned-access fixup counters.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <kunit/visibility.h>
#include <linux/bpf.h>
#include <linux/debug_locks.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/panic.h>
#include <linux/perf_event.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/checksum.h>
#include <net/ipv6.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

/*
 * parisc counts its fixups in irq_stat, which it does not export: only a
 * built-in test can read it.  Elsewhere PERF_COUNT_SW_ALIGNMENT_FAULTS.
 */
#if defined(CONFIG_PARISC) && !defined(MODULE)
#define RX_IRQ_STAT_COUNTER 1
#else
#define RX_IRQ_STAT_COUNTER 0
#endif
#define RX_PERF_COUNTER \
	(IS_ENABLED(CONFIG_PERF_EVENTS) && !IS_ENABLED(CONFIG_PARISC))

#if RX_IRQ_STAT_COUNTER
#include <asm/hardirq.h>	/* irq_stat.irq_unaligned_count */
#endif

#include "rx_align.h"

KUNIT_DEFINE_ACTION_WRAPPER(rx_free_netdev, free_netdev, struct net_device *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_page_pool_destroy, page_pool_destroy,
			    struct page_pool *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_napi_del, netif_napi_del,
			    struct napi_struct *);

/* ---- The frames every suite receives ---- */

/**
 * var rx_align_frame_names - The name of each frame kind, as the log gives it
 *
 * Indexed by &enum rx_frame: "ipv4", "ipv6", "vlan_ipv4", as the suites
 * name a frame in their log lines and failure messages.
 */
const char * const rx_align_frame_names[RX_NR_FRAMES] = {
	"ipv4", "ipv6", "vlan_ipv4",
};
EXPORT_SYMBOL_IF_KUNIT(rx_align_frame_names);

/**
 * rx_align_fill_frame() - Write a frame as the device's DMA would
 * @buf: where the frame goes, @len bytes
 * @frame: which kind of frame
 * @len: the frame's length, from the Ethernet header on; at least
 *	rx_frame_min(@frame)
 * @dest: the destination MAC address
 *
 * Ethernet (+ 802.1Q) to @dest, a valid IPv4 (checksummed) or IPv6 UDP
 * header, zeroed payload.  The IPv4 ID carries @frame, so that
 * rx_align_seen_skb() tells a tagged frame from an untagged one after the
 * tag came off.
 *
 * Context: Any context.
 */
void rx_align_fill_frame(u8 *buf, enum rx_frame frame, unsigned int len,
			 const u8 *dest)
{
	unsigned int off = rx_frame_hlen(frame);
	unsigned int ip_len = len - off;
	struct iphdr ip4 = {
		.version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_UDP,
		/* the kind of frame, for a receiver that lost the tag */
		.id = htons(frame), .tot_len = htons(ip_len),
		.saddr = htonl(0xc0000201), .daddr = htonl(0xc0000202),
	};
	struct ipv6hdr ip6 = {
		.version = 6, .nexthdr = IPPROTO_UDP, .hop_limit = 64,
		.payload_len = htons(ip_len - sizeof(ip6)),
		.saddr.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
		.daddr.s6_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 },
	};
	struct vlan_ethhdr eth = {
		.h_source = { 0x02, 0, 0, 0, 0, 1 },
	};

	memset(buf, 0, len);
	ether_addr_copy(eth.h_dest, dest);
	eth.h_vlan_proto = rx_frame_proto(frame);
	if (frame == RX_VLAN_IPV4) {
		eth.h_vlan_proto = htons(ETH_P_8021Q);
		eth.h_vlan_TCI = htons(100);
		eth.h_vlan_encapsulated_proto = htons(ETH_P_IP);
	}
	memcpy(buf, &eth, off);
	if (frame == RX_IPV6) {
		memcpy(buf + off, &ip6, sizeof(ip6));
	} else {
		ip4.check = ip_fast_csum(&ip4, ip4.ihl);
		memcpy(buf + off, &ip4, sizeof(ip4));
	}
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_fill_frame);

/* ---- Where a received frame landed ---- */

/**
 * rx_align_seen_skb() - Record where a received frame landed
 * @seen: filled in if the frame is ours; untouched if not
 * @skb: the frame, with skb->protocol and its network header set
 *
 * Record where the frame in @skb is, from its network header: what kind
 * of frame and how long, from the IP header rx_align_fill_frame() wrote
 * (the stack or the device may have taken an 802.1Q tag off by now), and
 * where its MAC header started before any tag came off.  @seen->skb is
 * set to NULL: holding the skb is the caller's business.
 *
 * Context: Any context.
 * Return: true if the frame is one of ours, false if its network header
 * is not.
 */
bool rx_align_seen_skb(struct rx_align_seen *seen, const struct sk_buff *skb)
{
	int off = skb_network_offset(skb);
	struct ipv6hdr _ip6, *ip6;
	struct iphdr _ip4, *ip4;
	unsigned int ip_len;

	if (skb->protocol == htons(ETH_P_IPV6)) {
		ip6 = skb_header_pointer(skb, off, sizeof(_ip6), &_ip6);
		if (!ip6 || ip6->saddr.s6_addr[0] != 0x20 ||
		    ip6->saddr.s6_addr[15] != 1)
			return false;
		seen->frame = RX_IPV6;
		ip_len = sizeof(*ip6) + ntohs(ip6->payload_len);
	} else if (skb->protocol == htons(ETH_P_IP)) {
		ip4 = skb_header_pointer(skb, off, sizeof(_ip4), &_ip4);
		if (!ip4 || ip4->saddr != htonl(0xc0000201))
			return false;
		seen->frame = ntohs(ip4->id) == RX_VLAN_IPV4 ? RX_VLAN_IPV4 :
							       RX_IPV4;
		ip_len = ntohs(ip4->tot_len);
	} else {
		return false;
	}
	seen->nh = (unsigned long)skb_network_header(skb);
	seen->mac = seen->nh;
	if (skb_mac_header_was_set(skb) && skb_mac_header_len(skb))
		seen->mac = seen->nh - rx_frame_hlen(seen->frame);
	seen->len = seen->nh - seen->mac + ip_len;
	seen->shinfo = (unsigned long)skb_shinfo(skb);
	seen->headroom = seen->mac - (unsigned long)skb->head;
	seen->head_frag = skb->head_frag;
	seen->pp_recycle = skb->pp_recycle;
	seen->skb = NULL;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_seen_skb);

static const char * const rx_rule_names[] = {
	[RX_RULE_IP_ALIGN] = "net_ip_align",
	[RX_RULE_WORD] = "word_aligned",
	[RX_RULE_KEPT] = "kept",
	[RX_RULE_NONE] = "none",
};

/**
 * rx_align_rule_name() - The name of a rule, as the log gives it
 * @rule: a value of &enum rx_align_rule (not checked)
 *
 * Return: "net_ip_align", "word_aligned", "kept" or "none", the rule= of
 * an rx_align_frame: line.
 */
const char *rx_align_rule_name(enum rx_align_rule rule)
{
	return rx_rule_names[rule];
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_rule_name);

/**
 * rx_align_want() - Where a rule wants the network header
 * @rule: the rule the frame is judged by
 * @kept: for RX_RULE_KEPT, where the network header was before the path
 *	ran; ignored by the other rules
 *
 * The one place the wanted offset is decided: RX_EXPECT_FRAME() and the
 * rx_align_frame: line both take it from here.
 *
 * Return: the offset past a 4-byte boundary, 0 to 3, or -1 if @rule does
 * not judge the frame (RX_RULE_NONE).
 */
int rx_align_want(enum rx_align_rule rule, unsigned long kept)
{
	switch (rule) {
	case RX_RULE_IP_ALIGN:
		return (NET_IP_ALIGN + ETH_HLEN) % 4;
	case RX_RULE_WORD:
		return 0;
	case RX_RULE_KEPT:
		return kept % 4;
	default:
		return -1;
	}
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_want);

/*
 * A failing frame always gets its line; the others only when asked, by a
 * harness that tabulates where every frame landed.
 */
static bool frame_lines;
module_param(frame_lines, bool, 0444);
MODULE_PARM_DESC(frame_lines,
		 "print an rx_align_frame: line for every frame, not only for those that fail");

/**
 * rx_align_report_frame() - Log the line a frame gets
 * @test: the case whose log gets the line
 * @path: the path or driver the frame came through
 * @name: the frame, as the case names it
 * @seen: where the frame landed
 * @rule: the rule it was judged by
 * @want: rx_align_want() of @rule, -1 if not judged
 * @failed: the case's verdict on the frame
 * @extra: more key=value pairs for the line, or NULL
 *
 * One rx_align_frame: line, for a failed frame always, for the others
 * only with the module parameter frame_lines set.  Its verdict= is "fail"
 * when @failed, "pass" when the frame was judged, and for a frame not
 * judged "cost" if its network header is off a word, else "recorded".
 * Reports only: the case fails the frame itself (RX_EXPECT_FRAME() does).
 *
 * Context: Process context; may sleep (the case's log grows with
 * GFP_KERNEL).
 */
void rx_align_report_frame(struct kunit *test, const char *path,
			   const char *name, const struct rx_align_seen *seen,
			   enum rx_align_rule rule, int want, bool failed,
			   const char *extra)
{
	const char *verdict = failed ? "fail" : want >= 0 ? "pass" :
			      seen->nh % 4 ? "cost" : "recorded";

	if (!failed && !frame_lines)
		return;
	kunit_info(test,
		   "rx_align_frame: path=%s frame=%s len=%u headroom=%u mac_line_off=%lu nh_mod4=%lu want_mod4=%d rule=%s head_frag=%d pp_recycle=%d%s%s verdict=%s\n",
		   path, name, seen->len, seen->headroom,
		   seen->mac % L1_CACHE_BYTES, seen->nh % 4, want,
		   rx_align_rule_name(rule), seen->head_frag,
		   seen->pp_recycle, extra ? " " : "", extra ?: "", verdict);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_report_frame);

/* ---- Fixtures ---- */

struct rx_kernel_state {
	struct kunit *test;
	unsigned long taint;
	int debug_locks;
};

static unsigned long rx_taint(void)
{
	unsigned long taint = 0;
	unsigned int i;

	for (i = 0; i < TAINT_FLAGS_COUNT; i++)
		if (i != TAINT_TEST && test_taint(i))
			taint |= BIT(i);
	return taint;
}

/*
 * A WARN, a lockdep or KFENCE report, a bad page: the kernel says so by
 * tainting itself or by turning lock debugging off, whatever it printed.
 * Runs after the case's other cleanups, so that what they do counts too.
 */
static void rx_kernel_state_check(void *data)
{
	struct rx_kernel_state *before = data;
	unsigned long added = rx_taint() & ~before->taint;
	unsigned int bit;

	for_each_set_bit(bit, &added, TAINT_FLAGS_COUNT)
		KUNIT_FAIL(before->test,
			   "kernel state changed during the case: taint flag %u set",
			   bit);
	if (before->debug_locks && !debug_locks)
		KUNIT_FAIL(before->test,
			   "kernel state changed during the case: debug_locks turned off");
}

/**
 * rx_align_watch_kernel() - Fail the case if the kernel reports a problem
 * @test: the case to watch
 *
 * Every suite's .init: a case during which the kernel tainted itself (a
 * WARN, a lockdep or KFENCE report, a bad page; TAINT_TEST aside) or
 * turned lock debugging off fails, naming what changed.  The check is a
 * KUnit action registered in .init, before the case's own, so it runs
 * after their cleanups and what they do counts too.
 *
 * Context: Process context; may sleep.
 * Return: 0, or a negative errno if the check could not be registered.
 */
int rx_align_watch_kernel(struct kunit *test)
{
	struct rx_kernel_state *state;

	state = kunit_kzalloc(test, sizeof(*state), GFP_KERNEL);
	if (!state)
		return -ENOMEM;
	state->test = test;
	state->taint = rx_taint();
	state->debug_locks = debug_locks;
	return kunit_add_action_or_reset(test, rx_kernel_state_check, state);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_watch_kernel);

/**
 * rx_align_dummy_netdev() - A net_device for the case
 * @test: the case that owns it
 *
 * alloc_netdev_dummy(0): not registered, freed with free_netdev() when
 * the case ends.  Asserts that both the allocation and the cleanup's
 * registration succeed.
 *
 * Context: Process context; may sleep.
 * Return: the device, never NULL.
 */
struct net_device *rx_align_dummy_netdev(struct kunit *test)
{
	struct net_device *dev = alloc_netdev_dummy(0);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_free_netdev,
							dev), 0);
	return dev;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_dummy_netdev);

/**
 * rx_align_napi_add() - A NAPI instance for the case
 * @test: the case that owns it
 * @dev: the device it belongs to, which must outlive it
 * @napi: the instance to add
 * @poll: its poll function, or NULL for one that is never scheduled
 *
 * netif_napi_add(), with netif_napi_del() when the case ends; the
 * instance is added, not enabled.  Asserts that the cleanup is registered.
 *
 * Context: Process context; may sleep.
 */
void rx_align_napi_add(struct kunit *test, struct net_device *dev,
		       struct napi_struct *napi,
		       int (*poll)(struct napi_struct *, int))
{
	netif_napi_add(dev, napi, poll);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_napi_del,
							napi), 0);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_napi_add);

/**
 * rx_align_page_pool() - A page_pool for the case
 * @test: the case that owns it
 * @pp: the pool's parameters
 *
 * page_pool_create(), with page_pool_destroy() when the case ends.  KUnit
 * frees last in first out: a pool made before the skbs that come from it
 * outlives them.  Asserts that the pool is created and its cleanup
 * registered.
 *
 * Context: Process context; may sleep.
 * Return: the pool, never an error pointer.
 */
struct page_pool *rx_align_page_pool(struct kunit *test,
				     const struct page_pool_params *pp)
{
	struct page_pool *pool = page_pool_create(pp);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pool), "page_pool_create: %pe",
			       pool);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							rx_page_pool_destroy,
							pool), 0);
	return pool;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_page_pool);

/* An skb pointer that a path may replace: the cleanup frees the last one. */
static void rx_kfree_skb_ref(void *ref)
{
	kfree_skb(*(struct sk_buff **)ref);
}

/**
 * rx_align_skb_ref() - An skb pointer the case's cleanup frees
 * @test: the case that owns it
 *
 * A slot for the skb a case works on, NULL at first: whatever it holds
 * when the case ends is freed with kfree_skb().  A path that replaces the
 * skb stores the new one in it; a caller that frees the skb itself sets
 * the slot to NULL.  Asserts that the slot is allocated and its cleanup
 * registered.
 *
 * Context: Process context; may sleep.
 * Return: the slot, never NULL.
 */
struct sk_buff **rx_align_skb_ref(struct kunit *test)
{
	struct sk_buff **ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_kfree_skb_ref,
							ref), 0);
	return ref;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_skb_ref);

/**
 * rx_align_receive() - Receive a driver's frame up to the protocol
 * @ref: the driver's skb; on return the skb the protocol gets, or NULL if
 *	untagging failed and freed it
 * @dev: the device the frame came in on
 *
 * What eth_type_trans() and __netif_receive_skb_core() do to the frame:
 * set its protocol and network header, and take an 802.1Q tag off.
 *
 * Context: Any context.
 */
void rx_align_receive(struct sk_buff **ref, struct net_device *dev)
{
	struct sk_buff *skb = *ref;

	skb->protocol = eth_type_trans(skb, dev);
	skb_reset_network_header(skb);
	if (eth_type_vlan(skb->protocol))
		*ref = skb_vlan_untag(skb);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_receive);

static void rx_bpf_prog_release(void *prog)
{
	/* With the bpf() syscall programs are refcounted, else simply freed. */
	if (IS_ENABLED(CONFIG_BPF_SYSCALL))
		bpf_prog_put(prog);
	else
		bpf_prog_free(prog);
}

/**
 * rx_align_xdp_pass_prog() - An XDP program that passes every frame
 * @test: the case that owns it
 * @frags: what BPF_F_XDP_HAS_FRAGS at load time sets: the program takes
 *	multi-buffer frames, so generic XDP copies an skb it cannot run on
 *	in place instead of linearizing it
 *
 * "return XDP_PASS", as the verifier would hand it to a driver, released
 * when the case ends.  Asserts that it is allocated, gets a runtime and
 * its cleanup is registered.
 *
 * Context: Process context; may sleep.
 * Return: the program, never NULL.
 */
struct bpf_prog *rx_align_xdp_pass_prog(struct kunit *test, bool frags)
{
	const struct bpf_insn insns[] = {
		BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
		BPF_EXIT_INSN(),
	};
	struct bpf_prog *prog;
	int err = 0;

	prog = bpf_prog_alloc(bpf_prog_size(ARRAY_SIZE(insns)), 0);
	KUNIT_ASSERT_NOT_NULL(test, prog);
	prog->len = ARRAY_SIZE(insns);
	memcpy(prog->insnsi, insns, sizeof(insns));
	prog->type = BPF_PROG_TYPE_XDP;
	prog->aux->xdp_has_frags = frags;
	prog = bpf_prog_select_runtime(prog, &err);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "bpf_prog_select_runtime: %d", err);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							rx_bpf_prog_release,
							prog), 0);
	return prog;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_xdp_pass_prog);

/* ---- Generic XDP ---- */

/*
 * A driver's skb as netif_receive_skb() gets it: netdev_alloc_skb_ip_align()
 * with the whole frame, or (@nonlinear) the headers in the head and the
 * rest of the frame in a page fragment.  For a device without a MAC
 * header (@l3) the frame is what follows the Ethernet header, received as
 * tun does in IFF_TUN mode: behind NET_SKB_PAD, with no NET_IP_ALIGN.
 */
static void rx_driver_skb(struct kunit *test, struct sk_buff **ref,
			  struct net_device *dev,
			  const struct rx_generic_param *p)
{
	unsigned int skip = p->l3 ? ETH_HLEN : 0;
	unsigned int len = p->len - skip;
	unsigned int head = p->nonlinear ? rx_frame_min(p->frame) - skip : len;
	struct sk_buff *skb;
	struct page *page;
	u8 *buf;

	buf = kunit_kmalloc(test, p->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	rx_align_fill_frame(buf, p->frame, p->len, dev->dev_addr);
	buf += skip;
	skb = p->l3 ? netdev_alloc_skb(dev, head + p->reserve) :
		      netdev_alloc_skb_ip_align(dev, head + p->reserve);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	*ref = skb;
	skb_reserve(skb, p->reserve);
	KUNIT_ASSERT_GE_MSG(test, skb_tailroom(skb), head,
			    "arch %s: netdev_alloc_skb(%u): tailroom %d is less than asked",
			    rx_arch(), head, skb_tailroom(skb));
	skb_put_data(skb, buf, head);
	if (p->nonlinear) {
		page = dev_alloc_page();
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), buf + head, len - head);
		skb_add_rx_frag(skb, 0, page, 0, len - head, PAGE_SIZE);
	}
	/* the driver, then __netif_receive_skb_core() up to generic XDP */
	if (p->l3) {
		skb_reset_mac_header(skb);
		skb->protocol = rx_frame_proto(p->frame);
	} else {
		skb->protocol = eth_type_trans(skb, dev);
	}
	skb_reset_network_header(skb);
	skb_reset_transport_header(skb);
	skb_reset_mac_len(skb);
}

/**
 * rx_align_generic_xdp() - Judge a frame that passes through generic XDP
 * @test: the case
 * @p: the frame, how the driver built its skb, and whether the program
 *	takes multi-buffer frames
 *
 * Run a "return XDP_PASS" program on a driver's skb through
 * do_xdp_generic() and judge where the frame is when it reaches the
 * protocol: a copy or a grown head must keep the network header where the
 * architecture wants it, with XDP_PACKET_HEADROOM in front, and
 * skb_shared_info aligned; generic XDP and the first reads of the header
 * must take no unaligned-access fixup, except where a head grown in place
 * kept a header the driver had put off a word.  Asserts that the frame is
 * passed and is ours; everything it makes is freed when the case ends.
 *
 * Context: Process context; may sleep.  Disables BH around
 * do_xdp_generic() itself.
 */
void rx_align_generic_xdp(struct kunit *test,
			  const struct rx_generic_param *p)
{
	struct bpf_prog *prog = rx_align_xdp_pass_prog(test, p->frags);
	struct net_device *dev = rx_align_dummy_netdev(test);
	struct sk_buff **ref = rx_align_skb_ref(test);
	struct rx_align_fixups *f = rx_align_fixups_new(test, false);
	const char *path = p->frags ? "generic_xdp_frags" : "generic_xdp";
	struct rx_align_seen seen;
	enum rx_align_rule rule;
	unsigned long was;
	u64 before, taken;
	u32 act;

	rx_driver_skb(test, ref, dev, p);
	/* what generic XDP itself takes: the copy, the program's run */
	before = f ? rx_align_fixups_read(f) : 0;
	was = (unsigned long)skb_network_header(*ref);
	rcu_read_lock();
	local_bh_disable();
	act = do_xdp_generic(prog, ref);
	local_bh_enable();
	rcu_read_unlock();
	if (act != XDP_PASS)
		*ref = NULL;	/* dropped and freed */
	KUNIT_ASSERT_EQ_MSG(test, act, XDP_PASS,
			    "%s: generic XDP dropped the frame", p->name);
	taken = f ? rx_align_fixups_read(f) - before : 0;

	/* ... and on from there: untag, then hand it to the protocol */
	if (eth_type_vlan((*ref)->protocol)) {
		*ref = skb_vlan_untag(*ref);
		KUNIT_ASSERT_NOT_NULL(test, *ref);
	}
	KUNIT_ASSERT_TRUE(test, rx_align_seen_skb(&seen, *ref));
	KUNIT_EXPECT_GE_MSG(test, seen.headroom, XDP_PACKET_HEADROOM,
			    "%s: the XDP program got less than XDP_PACKET_HEADROOM",
			    p->name);
	/*
	 * Without a MAC header there is nothing to pad for: a copy into the
	 * system page_pool puts the IP header on a word, a head grown in
	 * place by a multiple of NET_SKB_PAD keeps it where the driver did.
	 */
	rule = !p->l3 ? RX_RULE_IP_ALIGN :
	       seen.pp_recycle ? RX_RULE_WORD : RX_RULE_KEPT;
	RX_EXPECT_FRAME(test, path, p->name, &seen, rule, was);
	RX_EXPECT_SHINFO(test, seen.shinfo, p->name);
	/* grown in place, a header the driver put off stays off: its cost */
	if (rule == RX_RULE_KEPT && was % 4)
		return;
	if (f)
		kunit_info(test, "rx_align_fixups: %s: do_xdp_generic() %llu\n",
			   p->name, taken);
	KUNIT_EXPECT_EQ_MSG(test, taken, 0,
			    RX_AT "do_xdp_generic() took %llu fixup(s)",
			    rx_arch(), p->name, taken);
	RX_EXPECT_NO_FIXUPS(test, f, skb_network_header(*ref),
			    p->frame == RX_IPV6, p->name);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_generic_xdp);

/* ---- The receive paths, each used the way drivers use it ---- */

/**
 * rx_align_ctx_init() - The .init of the suites that use rx_align_paths
 * @test: the case
 *
 * rx_align_watch_kernel(), then a &struct rx_ctx as @test->priv: a dummy
 * device for the allocators that take one, a NAPI instance on it for
 * napi_alloc_skb() and a page_pool (pool_size 16), each freed when the
 * case ends.  Asserts that each is made.
 *
 * Context: Process context; may sleep.
 * Return: 0, or the error rx_align_watch_kernel() returned.
 */
int rx_align_ctx_init(struct kunit *test)
{
	struct page_pool_params pp = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct rx_ctx *ctx;
	int err;

	err = rx_align_watch_kernel(test);
	if (err)
		return err;
	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->dev = rx_align_dummy_netdev(test);
	rx_align_napi_add(test, ctx->dev, &ctx->napi, NULL);
	ctx->pool = rx_align_page_pool(test, &pp);
	test->priv = ctx;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_ctx_init);

/**
 * rx_align_reserve() - What a driver reserves in front of a built frame
 * @path: the receive path
 *
 * Spelt with the macros, as drivers do.
 *
 * Return: XDP_PACKET_HEADROOM for @path->xdp_pad, else NET_SKB_PAD; plus
 * NET_IP_ALIGN for @path->ip_align.
 */
unsigned int rx_align_reserve(const struct rx_path *path)
{
	return (path->xdp_pad ? XDP_PACKET_HEADROOM : NET_SKB_PAD) +
	       (path->ip_align ? NET_IP_ALIGN : 0);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_reserve);

/* The buffer a build_skb() user allocates for @len bytes of frame. */
static unsigned int rx_buf_size(const struct rx_path *path, unsigned int len)
{
	return SKB_HEAD_ALIGN(rx_align_reserve(path) + len);
}

static struct sk_buff *rx_netdev(struct rx_ctx *ctx,
				 const struct rx_path *path,
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
	skb_reserve(skb, rx_align_reserve(path));
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
	skb_reserve(skb, rx_align_reserve(path));
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
	skb_reserve(skb, rx_align_reserve(path));
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

/**
 * var rx_align_paths - The receive paths drivers allocate through
 *
 * One entry per path, each used the way drivers use it: first the skb
 * allocators (RX_ALLOC), then the buffers drivers build an skb around
 * (RX_BUILD).  Each entry's ->alloc takes the &struct rx_ctx that
 * rx_align_ctx_init() makes; rx_align_path_applies() says whether the
 * path can be taken here.
 */
const struct rx_path rx_align_paths[RX_NR_PATHS] = {
	{ .name = "dev_alloc_skb", .decides = RX_ALLOC,
	  .alloc = rx_dev_alloc },
	{ .name = "netdev_alloc_skb", .decides = RX_ALLOC,
	  .alloc = rx_netdev },
	{ .name = "netdev_alloc_skb_irqs_off", .decides = RX_ALLOC,
	  .irqs_off = true, .alloc = rx_netdev_irqs_off },
	{ .name = "__netdev_alloc_skb_gfp_kernel", .decides = RX_ALLOC,
	  .alloc = rx_netdev_kernel },
	{ .name = "__netdev_alloc_skb_gfp_dma", .decides = RX_ALLOC,
	  .zone_dma = true, .alloc = rx_netdev_dma },
	{ .name = "netdev_alloc_skb_ip_align", .decides = RX_ALLOC,
	  .ip_align = true, .alloc = rx_netdev_ip_align },
	{ .name = "__netdev_alloc_skb_ip_align_gfp_kernel",
	  .decides = RX_ALLOC, .ip_align = true,
	  .alloc = rx_netdev_ip_align_kernel },
	{ .name = "napi_alloc_skb", .decides = RX_ALLOC, .ip_align = true,
	  .alloc = rx_napi },
	{ .name = "build_skb", .decides = RX_BUILD, .ip_align = true,
	  .frag_only = true, .alloc = rx_build_skb },
	{ .name = "build_skb_irqs_off", .decides = RX_BUILD, .ip_align = true,
	  .frag_only = true, .irqs_off = true,
	  .alloc = rx_build_skb_irqs_off },
	{ .name = "napi_build_skb", .decides = RX_BUILD, .ip_align = true,
	  .frag_only = true, .alloc = rx_napi_build_skb },
	{ .name = "build_skb_around", .decides = RX_BUILD, .ip_align = true,
	  .frag_only = true, .alloc = rx_build_skb_around },
	{ .name = "slab_build_skb", .decides = RX_BUILD, .ip_align = true,
	  .alloc = rx_slab_build_skb },
	{ .name = "page_pool_frag", .decides = RX_BUILD, .ip_align = true,
	  .frag_only = true, .alloc = rx_pool_frag },
	{ .name = "page_pool_page_xdp", .decides = RX_BUILD, .xdp_pad = true,
	  .ip_align = true, .frag_only = true, .alloc = rx_pool_page },
};
EXPORT_SYMBOL_IF_KUNIT(rx_align_paths);

/**
 * rx_align_path_desc() - Name a path as a KUnit parameter
 * @path: an entry of rx_align_paths
 * @desc: the description, KUNIT_PARAM_DESC_SIZE bytes
 *
 * The description callback of KUNIT_ARRAY_PARAM() over rx_align_paths.
 */
void rx_align_path_desc(const struct rx_path *path, char *desc)
{
	strscpy(desc, path->name, KUNIT_PARAM_DESC_SIZE);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_path_desc);

/**
 * rx_align_path_applies() - Skip a path no driver could take here
 * @test: the case
 * @path: the receive path
 *
 * Skips the case, saying why, where @path needs ZONE_DMA and the kernel
 * has none or no free page in it, or allocates with IRQs off on
 * PREEMPT_RT.  Returns only if the path applies.
 *
 * Context: Process context; may sleep (it allocates a GFP_DMA page to
 * probe the zone).
 */
void rx_align_path_applies(struct kunit *test, const struct rx_path *path)
{
	struct page *probe;

	if (path->zone_dma && !IS_ENABLED(CONFIG_ZONE_DMA))
		kunit_skip(test,
			   "CONFIG_ZONE_DMA is not set: no GFP_DMA zone on %s",
			   rx_arch());
	if (path->zone_dma) {
		/* QEMU's malta: the kernel and its reservations fill 16 MiB */
		probe = alloc_page(GFP_KERNEL | GFP_DMA | __GFP_NOWARN);
		if (!probe)
			kunit_skip(test,
				   "ZONE_DMA has no free page on %s: nothing a driver could get either",
				   rx_arch());
		__free_page(probe);
	}
	/* On PREEMPT_RT the allocators take sleeping locks. */
	if (path->irqs_off && IS_ENABLED(CONFIG_PREEMPT_RT))
		kunit_skip(test,
			   "PREEMPT_RT: drivers do not allocate with IRQs off");
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_path_applies);

/**
 * rx_align_alloc() - Allocate a frame's skb through a receive path
 * @test: the case, whose @test->priv is the &struct rx_ctx of
 *	rx_align_ctx_init()
 * @ref: a slot from rx_align_skb_ref(); what it held is freed first
 * @path: the receive path
 * @len: the frame's length
 * @size: set to the buffer the skb was built around, for RX_BUILD; 0 for
 *	RX_ALLOC
 *
 * Asserts that the path returned an skb.
 *
 * Context: Process context; may sleep.  The paths that need IRQs or BH
 * off turn them off themselves.
 * Return: the new skb, also in *@ref, whose cleanup frees it.
 */
struct sk_buff *rx_align_alloc(struct kunit *test, struct sk_buff **ref,
			       const struct rx_path *path, unsigned int len,
			       unsigned int *size)
{
	kfree_skb(*ref);
	*size = 0;
	*ref = path->alloc(test->priv, path, len, size);
	KUNIT_ASSERT_NOT_NULL_MSG(test, *ref, "arch %s: %s(%u) failed",
				  rx_arch(), path->name, len);
	return *ref;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_alloc);

/* ---- Taps that record where our frames land ---- */

/* Record @skb if it is ours; true if the tap now holds it. */
static bool rx_tap_record(struct rx_tap *tap, struct sk_buff *skb)
{
	struct rx_align_seen *seen;

	if (tap->n == ARRAY_SIZE(tap->frames))
		return false;
	seen = &tap->frames[tap->n];
	if (!rx_align_seen_skb(seen, skb))
		return false;
	seen->skb = tap->hold ? skb : NULL;
	if (++tap->n == tap->want)
		complete(&tap->seen);
	return tap->hold;
}

/* What ip_rcv() and ipv6_rcv() do before they read, then record. */
static void rx_tap_protocol(struct rx_tap *tap, struct sk_buff *skb)
{
	unsigned int hlen = skb->protocol == htons(ETH_P_IP) ?
			    sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return;
	if (pskb_may_pull(skb, hlen))
		rx_tap_record(tap, skb);
	consume_skb(skb);
}

/* A protocol handler, beside the stack's own. */
static int rx_tap_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
{
	rx_tap_protocol(pt->af_packet_priv, skb);
	return NET_RX_SUCCESS;
}

/*
 * The device's rx_handler: __netif_receive_skb_core() calls it after the
 * packet taps and before any protocol, so the frame is recorded as a
 * protocol gets it and goes no further: not to ip_rcv(), netfilter or the
 * counters of the namespace the device is in.
 */
static rx_handler_result_t rx_tap_handle(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;

	rx_tap_protocol(rcu_dereference(skb->dev->rx_handler_data), skb);
	return RX_HANDLER_CONSUMED;
}

/*
 * A sniffer (ETH_P_ALL): sees the frame before any protocol and touches
 * nothing, so a head a clone would fault on is recorded, not cloned.
 */
static int rx_tap_sniff(struct sk_buff *skb, struct net_device *dev,
			struct packet_type *pt, struct net_device *orig_dev)
{
	/*
	 * Held, as a packet socket holds it: our own reference, so ip_rcv()
	 * works on a clone (skb_share_check()) and leaves this one as it was.
	 */
	if (!rx_tap_record(pt->af_packet_priv, skb))
		consume_skb(skb);
	return NET_RX_SUCCESS;
}

static void rx_tap_del(void *data)
{
	struct rx_tap *tap = data;
	unsigned int i;

	dev_remove_pack(&tap->pt[0]);
	if (tap->pt[1].func)
		dev_remove_pack(&tap->pt[1]);
	for (i = 0; i < tap->n; i++)
		consume_skb(tap->frames[i].skb);
}

/**
 * rx_align_tap_add() - Record where frames land on a device
 * @test: the case that owns the tap
 * @dev: the device whose frames are recorded
 * @want: the count of frames after which @tap->seen completes; 0: never
 * @sniff: record as a packet socket (ETH_P_ALL) does, before any
 *	protocol, instead of as the IPv4 and IPv6 handlers get them
 * @hold: with @sniff, keep each frame recorded, as a packet socket's
 *	queue does, for the test to read (&struct rx_align_seen.skb)
 *
 * Records up to RX_TAP_MAX of our frames (rx_align_seen_skb()); the
 * others, and the frames @dev sends, are left alone.  The frames go on to
 * the stack.  When the case ends the handlers are removed and the held
 * frames freed.  Asserts that the tap is allocated and its cleanup
 * registered.
 *
 * Context: Process context; may sleep.
 * Return: the tap, never NULL.
 */
struct rx_tap *rx_align_tap_add(struct kunit *test, struct net_device *dev,
				unsigned int want, bool sniff, bool hold)
{
	struct rx_tap *tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, tap);
	init_completion(&tap->seen);
	tap->want = want;
	tap->hold = sniff && hold;
	for (i = 0; i < (sniff ? 1 : 2); i++) {
		tap->pt[i].type = htons(sniff ? ETH_P_ALL :
					i ? ETH_P_IPV6 : ETH_P_IP);
		tap->pt[i].dev = dev;
		tap->pt[i].func = sniff ? rx_tap_sniff : rx_tap_rcv;
		tap->pt[i].af_packet_priv = tap;
		/* only what @dev receives, not what it sends (DAD, MLD) */
		tap->pt[i].ignore_outgoing = true;
		dev_add_pack(&tap->pt[i]);
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_tap_del, tap),
			0);
	return tap;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_tap_add);

/* A protocol handler on the sink's device: any frame it sees got past. */
static int rx_tap_leaked(struct sk_buff *skb, struct net_device *dev,
			 struct packet_type *pt, struct net_device *orig_dev)
{
	struct rx_tap *tap = pt->af_packet_priv;

	WRITE_ONCE(tap->leaked, tap->leaked + 1);
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static void rx_tap_sink_del(void *data)
{
	struct rx_tap *tap = data;

	rtnl_lock();
	netdev_rx_handler_unregister(tap->dev);
	rtnl_unlock();
	dev_remove_pack(&tap->pt[0]);
	dev_remove_pack(&tap->pt[1]);
	KUNIT_EXPECT_EQ_MSG(tap->test, tap->leaked, 0,
			    "%u frame(s) went past the test device's rx_handler to the protocols",
			    tap->leaked);
}

/**
 * rx_align_tap_sink() - Record frames on a device, and let none past
 * @test: the case that owns the tap
 * @dev: a device of the test's own, with no rx_handler yet
 * @want: the count of frames after which @tap->seen completes; 0: never
 *
 * Record our frames on @dev as the IPv4 and IPv6 handlers would get them,
 * and end their way there: @dev's rx_handler consumes every frame, so a
 * device of the test's own receives into nothing but the test.  When the
 * case ends the handler is unregistered, and the case fails if a frame
 * reached the IPv4 or IPv6 protocols on @dev.  Asserts that the
 * rx_handler is registered.
 *
 * Context: Process context; may sleep.  Takes and releases the RTNL.
 * Return: the tap, never NULL.
 */
struct rx_tap *rx_align_tap_sink(struct kunit *test, struct net_device *dev,
				 unsigned int want)
{
	struct rx_tap *tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	unsigned int i;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, tap);
	init_completion(&tap->seen);
	tap->want = want;
	tap->dev = dev;
	tap->test = test;
	/* witnesses: the protocols' view of @dev, which must stay empty */
	for (i = 0; i < ARRAY_SIZE(tap->pt); i++) {
		tap->pt[i].type = htons(i ? ETH_P_IPV6 : ETH_P_IP);
		tap->pt[i].dev = dev;
		tap->pt[i].func = rx_tap_leaked;
		tap->pt[i].af_packet_priv = tap;
		dev_add_pack(&tap->pt[i]);
	}
	rtnl_lock();
	err = netdev_rx_handler_register(dev, rx_tap_handle, tap);
	rtnl_unlock();
	if (err) {
		dev_remove_pack(&tap->pt[0]);
		dev_remove_pack(&tap->pt[1]);
	}
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "netdev_rx_handler_register: %d",
			    err);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_tap_sink_del,
							tap), 0);
	return tap;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_tap_sink);

/* ---- Unaligned-access fixups, counted where the CPU traps ---- */

/*
 * The CPUs NET_IP_ALIGN is 2 for: a misaligned word load traps into the
 * kernel's unaligned-access handler, which emulates it.  riscv and
 * loongarch cores may load unaligned words themselves or trap; whether
 * they do here is probed (rx_fixups_probe()).  ARM's alignment.c fixes up
 * every misaligned LDM/LDRD (and before ARMv6 every misaligned word), and
 * counts them as perf events only where the kernel does: probed too.
 * Elsewhere the hardware handles it and nothing is counted.
 */
#define RX_TRAPS_MISALIGNED						\
	(IS_ENABLED(CONFIG_MIPS) || IS_ENABLED(CONFIG_SUPERH) ||	\
	 IS_ENABLED(CONFIG_SPARC) || IS_ENABLED(CONFIG_ALPHA) ||	\
	 IS_ENABLED(CONFIG_PARISC))
#define RX_ARM_FIXUPS \
	(IS_ENABLED(CONFIG_ARM) && IS_ENABLED(CONFIG_ALIGNMENT_TRAP))
#define RX_MAY_TRAP (IS_ENABLED(CONFIG_RISCV) ||			\
		     IS_ENABLED(CONFIG_LOONGARCH) || RX_ARM_FIXUPS)

/*
 * PERF_COUNT_SW_ALIGNMENT_FAULTS in this task (a case that reads a header
 * itself), or on every CPU (@all_cpus: a frame a driver receives in
 * softirq context); parisc counts in irq_stat instead.
 */
struct rx_align_fixups {
	bool all_cpus;
	unsigned int n;
	struct perf_event **events;
};

/* Where a CPU may or may not trap: whether this one did (-1: not probed). */
static int rx_trapped = -1;

/**
 * rx_align_fixups_missing() - Why no unaligned-access fixups are counted
 *
 * Where the CPU may or may not trap (riscv, loongarch, ARM), whether it
 * does is known only once rx_align_fixups_new() has probed it; until then
 * this does not give that reason.
 *
 * Context: Any context.
 * Return: why this arch or CPU has no fixup counter a test can read, or
 * NULL if it has one.
 */
const char *rx_align_fixups_missing(void)
{
	if (IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) &&
	    !RX_ARM_FIXUPS)
		return "the CPU loads unaligned words cheaply: no fixups";
	if (!RX_TRAPS_MISALIGNED && !RX_MAY_TRAP)
		return "no unaligned-access fixup counter on this arch";
	/* alpha counts into an array private to arch/alpha: no perf event */
	if (IS_ENABLED(CONFIG_ALPHA))
		return "no counter a test can read: alpha's is in traps.c";
	if (IS_ENABLED(CONFIG_PARISC) && !RX_IRQ_STAT_COUNTER)
		return "parisc does not export irq_stat to modules";
	if (!RX_IRQ_STAT_COUNTER && !RX_PERF_COUNTER)
		return "no counter: CONFIG_PERF_EVENTS is not set";
	/* before it counts perf events, only alignment.c's own ai_sys */
	if (RX_ARM_FIXUPS && rx_trapped == 0)
		return "alignment.c fixed a load up, counting no perf event";
	if (RX_MAY_TRAP && rx_trapped == 0)
		return "this CPU loads unaligned words without a trap";
	return NULL;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_fixups_missing);

#if RX_PERF_COUNTER
static void rx_fixups_release(void *event)
{
	perf_event_release_kernel(event);
}

/* Kernel counters, which no perf_event_paranoid limits. */
static void rx_fixups_perf(struct kunit *test, struct rx_align_fixups *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_ALIGNMENT_FAULTS,
		.size = sizeof(attr),
	};
	struct perf_event *event;
	unsigned int i;

	f->n = f->all_cpus ? nr_cpu_ids : 1;
	f->events = kunit_kcalloc(test, f->n, sizeof(*f->events), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->events);
	for (i = 0; i < f->n; i++) {
		if (f->all_cpus && !cpu_online(i))
			continue;
		/* on CPU i, or in this task on any CPU */
		event = perf_event_create_kernel_counter(&attr,
							 f->all_cpus ? i : -1,
							 f->all_cpus ? NULL :
							 current, NULL, NULL);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event),
				       "perf_event_create_kernel_counter(cpu %d): %pe",
				       f->all_cpus ? (int)i : -1, event);
		KUNIT_ASSERT_EQ(test,
				kunit_add_action_or_reset(test,
							  rx_fixups_release,
							  event), 0);
		f->events[i] = event;
	}
}
#else
static void rx_fixups_perf(struct kunit *test, struct rx_align_fixups *f)
{
}
#endif

/**
 * rx_align_misaligned_load() - A load that traps where its address is off
 * @p: the address, misaligned to make the CPU trap
 *
 * A word, or on ARMv6 and later, whose cores load single words
 * themselves, a doubleword (LDRD).
 *
 * Context: Any context.
 * Return: what was loaded (the doubleword's halves XORed), for the caller
 * to use so that the load stays.
 */
u32 rx_align_misaligned_load(const void *p)
{
#if defined(CONFIG_ARM) && __LINUX_ARM_ARCH__ >= 6
	u64 v;

	asm volatile("ldrd %0, %H0, [%1]" : "=r" (v) : "r" (p) : "memory");
	return lower_32_bits(v) ^ upper_32_bits(v);
#else
	return READ_ONCE(*(const u32 *)p);
#endif
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_misaligned_load);

/* Whether a misaligned load in this task moves the counter. */
static int rx_fixups_probe(struct kunit *test)
{
	struct rx_align_fixups probe = { .all_cpus = false };
	u32 *words = kunit_kzalloc(test, 16, GFP_KERNEL);
	u64 before;

	KUNIT_ASSERT_NOT_NULL(test, words);
	rx_fixups_perf(test, &probe);
	before = rx_align_fixups_read(&probe);
	(void)rx_align_misaligned_load((u8 *)words + 2);
	return rx_align_fixups_read(&probe) > before;
}

/**
 * rx_align_fixups_new() - Count the unaligned-access fixups the CPU takes
 * @test: the case that owns the counter
 * @all_cpus: count on every online CPU (a frame a driver receives in
 *	softirq context) instead of in this task
 *
 * PERF_COUNT_SW_ALIGNMENT_FAULTS, or parisc's irq_stat when built in.
 * Where the CPU may or may not trap (riscv, loongarch, ARM), the first
 * call probes whether a misaligned load here does, once per module load.
 * The perf events are released when the case ends.
 * Asserts that they are created.
 *
 * Context: Process context; may sleep.
 * Return: the counter, or NULL if there is none
 * (rx_align_fixups_missing() says why).
 */
struct rx_align_fixups *rx_align_fixups_new(struct kunit *test,
					    bool all_cpus)
{
	struct rx_align_fixups *f;

	if (rx_align_fixups_missing())
		return NULL;
	if (RX_MAY_TRAP && rx_trapped < 0) {
		rx_trapped = rx_fixups_probe(test);
		if (!rx_trapped)
			return NULL;
	}
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->all_cpus = all_cpus;
	rx_fixups_perf(test, f);
	return f;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_fixups_new);

/**
 * rx_align_fixups_read() - Read an unaligned-access fixup counter
 * @f: a counter from rx_align_fixups_new(), not NULL
 *
 * A task's counter follows it from CPU to CPU; parisc's per-CPU counts
 * are summed over every CPU, so a migration between two reads loses none.
 *
 * Context: Process context, preemption on; may sleep
 * (perf_event_read_value() takes a mutex).
 * Return: the fixups counted since @f was made; on parisc since boot.
 */
u64 rx_align_fixups_read(const struct rx_align_fixups *f)
{
	u64 sum = 0;
#if RX_IRQ_STAT_COUNTER
	unsigned int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(irq_stat.irq_unaligned_count, cpu);
#elif RX_PERF_COUNTER
	u64 enabled, running;
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (f->events[i])
			sum += perf_event_read_value(f->events[i], &enabled,
						     &running);
#endif
	return sum;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_fixups_read);

/**
 * rx_align_read_ip_header() - Read an IP header as the protocol does first
 * @nh: the IP header
 * @ipv6: it is IPv6, else IPv4
 *
 * The first reads ip_rcv() and ipv6_rcv() make of a header at @nh, as the
 * word loads the CPU does there: the IPv4 header checksum and address
 * words, IPv6's source address type and payload length.
 *
 * Context: Any context.
 * Return: a sum of what was read, for the caller to use so that the loads
 * stay.
 */
u32 rx_align_read_ip_header(const void *nh, bool ipv6)
{
	const struct ipv6hdr *ip6 = nh;
	const struct iphdr *ip4 = nh;

	if (ipv6)
		return ipv6_addr_type(&ip6->saddr) +
		       (__force u16)ip6->payload_len;
	return ip_fast_csum(ip4, ip4->ihl) +
	       (__force u32)(ip4->saddr ^ ip4->daddr);
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_read_ip_header);

/**
 * rx_align_fixups_taken() - Count the fixups reading an IP header takes
 * @test: the case whose log gets the line
 * @f: this task's counter (rx_align_fixups_new()), or NULL
 * @nh: the IP header
 * @ipv6: it is IPv6, else IPv4
 * @what: the frame, as the log line names it
 *
 * rx_align_read_ip_header() between two reads of @f, and one
 * rx_align_fixups: line in the log; nothing without a counter.  Expects
 * nothing: RX_EXPECT_NO_FIXUPS() judges the count.
 *
 * Context: Process context; may sleep.
 * Return: the fixups taken, 0 if @f is NULL.
 */
u64 rx_align_fixups_taken(struct kunit *test, const struct rx_align_fixups *f,
			  const void *nh, bool ipv6, const char *what)
{
	u64 before, after;
	u32 sum;

	if (!f)
		return 0;
	before = rx_align_fixups_read(f);
	sum = rx_align_read_ip_header(nh, ipv6);
	after = rx_align_fixups_read(f);
	kunit_info(test, "rx_align_fixups: %s: %llu (checksum %u)\n", what,
		   after - before, sum);
	return after - before;
}
EXPORT_SYMBOL_IF_KUNIT(rx_align_fixups_taken);

MODULE_DESCRIPTION("Helpers for the receive buffer alignment KUnit tests");
MODULE_LICENSE("GPL");
