/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the receive buffer alignment KUnit suites: what each
 * architecture promises, and the frames the suites receive.
 *
 * Expectations come from the policy table below, never from NET_IP_ALIGN
 * or NET_SKB_PAD themselves, so that a kernel whose macros drift from the
 * architecture's promise fails every case that depends on them.
 */
#ifndef _NET_CORE_TESTS_RX_ALIGN_H
#define _NET_CORE_TESTS_RX_ALIGN_H

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/perf_event.h>
#include <linux/skbuff.h>
#include <linux/utsname.h>
#include <net/checksum.h>
#include <net/ipv6.h>

#include <asm/hardirq.h>

static inline const char *rx_arch(void)
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

static inline const struct rx_policy *rx_policy(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_policies) - 1; i++)
		if (rx_policies[i].applies)
			return &rx_policies[i];
	return &rx_policies[i];
}

/* Where the network header of a received frame must start, mod 4. */
static inline unsigned int rx_nh_want(void)
{
	return (rx_policy()->ip_align + ETH_HLEN) % 4;
}

/* The largest power of two that divides @addr, up to PAGE_SIZE. */
static inline unsigned long rx_alignment(unsigned long addr)
{
	return addr ? min(addr & -addr, PAGE_SIZE) : PAGE_SIZE;
}

/* ---- The frames every suite receives ---- */

enum rx_frame { RX_IPV4, RX_IPV6, RX_VLAN_IPV4, RX_NR_FRAMES };

static const char * const rx_frame_names[RX_NR_FRAMES] = {
	"ipv4", "ipv6", "vlan_ipv4",
};

/* Length of the headers in front of the IP header. */
static inline unsigned int rx_frame_hlen(enum rx_frame frame)
{
	return frame == RX_VLAN_IPV4 ? VLAN_ETH_HLEN : ETH_HLEN;
}

static inline __be16 rx_frame_proto(enum rx_frame frame)
{
	return htons(frame == RX_IPV6 ? ETH_P_IPV6 : ETH_P_IP);
}

/*
 * Lay out @len bytes as the device's DMA would: Ethernet (+ 802.1Q) to
 * @dest, a valid IPv4 (checksummed) or IPv6 UDP header, zeroed payload.
 */
static inline void rx_fill_frame(u8 *buf, enum rx_frame frame,
				 unsigned int len, const u8 *dest)
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

/* The smallest frame of each kind the suites send: headers only. */
static inline unsigned int rx_frame_min(enum rx_frame frame)
{
	return rx_frame_hlen(frame) + (frame == RX_IPV6 ? sizeof(struct ipv6hdr) :
						       sizeof(struct iphdr));
}

/*
 * The network header at @nh must start where the policy puts it: with a
 * pad of 2 on a 4-byte boundary, without it 2 bytes past one.  @what names
 * the path and frame in the message.
 */
static inline void rx_expect_nh(struct kunit *test, const void *nh,
				const char *what)
{
	unsigned long addr = (unsigned long)nh;

	KUNIT_EXPECT_EQ_MSG(test, addr % 4, rx_nh_want(),
			    "arch %s, %s: IP header at page offset %lu is %lu past a 4-byte boundary, the arch's NET_IP_ALIGN %u puts it %u past",
			    rx_arch(), what, addr & ~PAGE_MASK, addr % 4,
			    rx_policy()->ip_align, rx_nh_want());
}

/* Where a frame's MAC header started: before skb_vlan_untag() moved it. */
static inline unsigned long rx_mac_start(const struct sk_buff *skb)
{
	return (unsigned long)skb_mac_header(skb) -
	       (skb_vlan_tag_present(skb) ? VLAN_HLEN : 0);
}

/* One line the reports parse: where a received frame landed. */
static inline void rx_report_frame(struct kunit *test, const char *path,
				   const char *frame, unsigned int len,
				   unsigned int headroom, unsigned long mac,
				   unsigned long nh, bool head_frag,
				   bool pp_recycle)
{
	kunit_info(test,
		   "rx_align_frame: path=%s frame=%s len=%u headroom=%u mac_line_off=%lu nh_mod4=%lu head_frag=%d pp_recycle=%d\n",
		   path, frame, len, headroom, mac % L1_CACHE_BYTES, nh % 4,
		   head_frag, pp_recycle);
}

/*
 * skb_shared_info holds atomics (dataref): a CPU without unaligned atomics
 * faults on the first skb_clone() of an skb whose head puts it off its
 * natural alignment.
 */
static inline void rx_expect_shinfo(struct kunit *test, unsigned long shinfo,
				    const char *what)
{
	KUNIT_EXPECT_TRUE_MSG(test,
			      IS_ALIGNED(shinfo, __alignof__(struct skb_shared_info)),
			      "arch %s, %s: skb_shared_info at page offset %lu, not aligned to %zu",
			      rx_arch(), what, shinfo & ~PAGE_MASK,
			      __alignof__(struct skb_shared_info));
}

/* ---- Taps that record where our frames land ---- */

#define RX_TAP_MAX 24

struct rx_tap_seen {
	unsigned long mac;	/* where the MAC header started */
	unsigned long nh;	/* the network header */
	unsigned long shinfo;
	unsigned int headroom;	/* in front of the MAC header */
	unsigned int len;	/* from the MAC header on */
	enum rx_frame frame;	/* which kind it was */
	bool head_frag;
	bool pp_recycle;
	struct sk_buff *skb;	/* held by a sniffer, for the test to read */
};

struct rx_tap {
	struct packet_type pt[2];
	struct completion seen;		/* @want frames arrived */
	unsigned int want;
	unsigned int n;
	bool hold;			/* a sniffer keeps what it records */
	struct rx_tap_seen frames[RX_TAP_MAX];
};

/* Ours: sent from 192.0.2.1 or 2001:db8::1 (rx_fill_frame()). */
static inline bool rx_is_ours(const struct sk_buff *skb)
{
	struct ipv6hdr _ip6, *ip6;
	struct iphdr _ip4, *ip4;

	if (skb->protocol == htons(ETH_P_IP)) {
		ip4 = skb_header_pointer(skb, 0, sizeof(_ip4), &_ip4);
		return ip4 && ip4->saddr == htonl(0xc0000201);
	}
	if (skb->protocol != htons(ETH_P_IPV6))
		return false;
	ip6 = skb_header_pointer(skb, 0, sizeof(_ip6), &_ip6);
	return ip6 && ip6->saddr.s6_addr[0] == 0x20 &&
	       ip6->saddr.s6_addr[15] == 1;
}

/*
 * What kind of frame it was and how long, from its own IP header: the stack
 * (or the device) has taken an 802.1Q tag off by the time a handler sees it.
 */
static inline enum rx_frame rx_frame_kind(const struct sk_buff *skb,
					  unsigned int *len)
{
	struct ipv6hdr _ip6, *ip6;
	struct iphdr _ip4, *ip4;

	if (skb->protocol == htons(ETH_P_IPV6)) {
		ip6 = skb_header_pointer(skb, 0, sizeof(_ip6), &_ip6);
		*len = ip6 ? ETH_HLEN + sizeof(*ip6) + ntohs(ip6->payload_len) : 0;
		return RX_IPV6;
	}
	ip4 = skb_header_pointer(skb, 0, sizeof(_ip4), &_ip4);
	if (!ip4) {
		*len = 0;
		return RX_IPV4;
	}
	*len = rx_frame_hlen(ntohs(ip4->id)) + ntohs(ip4->tot_len);
	return ntohs(ip4->id) == RX_VLAN_IPV4 ? RX_VLAN_IPV4 : RX_IPV4;
}

/* Record @skb if it is ours; true if the tap now holds it. */
static inline bool rx_tap_record(struct rx_tap *tap, struct sk_buff *skb)
{
	struct rx_tap_seen *seen;

	if (!rx_is_ours(skb) || tap->n == ARRAY_SIZE(tap->frames))
		return false;
	seen = &tap->frames[tap->n++];
	seen->nh = (unsigned long)skb->data;
	seen->frame = rx_frame_kind(skb, &seen->len);
	/* where the MAC header of the frame as sent starts, before this header */
	seen->mac = seen->nh - rx_frame_hlen(seen->frame);
	seen->shinfo = (unsigned long)skb_shinfo(skb);
	seen->headroom = seen->mac - (unsigned long)skb->head;
	seen->head_frag = skb->head_frag;
	seen->pp_recycle = skb->pp_recycle;
	seen->skb = tap->hold ? skb : NULL;
	if (tap->n == tap->want)
		complete(&tap->seen);
	return tap->hold;
}

/* A protocol handler: what ip_rcv() and ipv6_rcv() do before they read. */
static inline int rx_tap_rcv(struct sk_buff *skb, struct net_device *dev,
			     struct packet_type *pt,
			     struct net_device *orig_dev)
{
	unsigned int hlen = skb->protocol == htons(ETH_P_IP) ?
			    sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (pskb_may_pull(skb, hlen))
		rx_tap_record(pt->af_packet_priv, skb);
	kfree_skb(skb);
	return NET_RX_SUCCESS;
}

/*
 * A sniffer (ETH_P_ALL): sees the frame before any protocol and touches
 * nothing, so a head a clone would fault on is recorded, not cloned.
 */
static inline int rx_tap_sniff(struct sk_buff *skb, struct net_device *dev,
			       struct packet_type *pt,
			       struct net_device *orig_dev)
{
	/*
	 * Held, as a packet socket holds it: our own reference, so ip_rcv()
	 * works on a clone (skb_share_check()) and leaves this one as it was.
	 */
	if (!rx_tap_record(pt->af_packet_priv, skb))
		consume_skb(skb);
	return NET_RX_SUCCESS;
}

static inline void rx_tap_del(void *data)
{
	struct rx_tap *tap = data;
	unsigned int i;

	dev_remove_pack(&tap->pt[0]);
	if (tap->pt[1].func)
		dev_remove_pack(&tap->pt[1]);
	for (i = 0; i < tap->n; i++)
		consume_skb(tap->frames[i].skb);
}

/*
 * Record our frames on @dev, as the IPv4 and IPv6 handlers get them, or
 * (@sniff) as a packet socket does, which (@hold) keeps them as a packet
 * socket's queue does; complete once @want of them arrived.
 */
static inline struct rx_tap *rx_tap_add(struct kunit *test,
					struct net_device *dev,
					unsigned int want, bool sniff, bool hold)
{
	struct rx_tap *tap = kunit_kzalloc(test, sizeof(*tap), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, tap);
	init_completion(&tap->seen);
	tap->want = want;
	tap->hold = sniff && hold;
	for (i = 0; i < (sniff ? 1 : 2); i++) {
		tap->pt[i].type = htons(sniff ? ETH_P_ALL : i ? ETH_P_IPV6 : ETH_P_IP);
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

/* ---- Unaligned-access fixups, counted where the CPU traps ---- */

/*
 * The CPUs NET_IP_ALIGN is 2 for: a misaligned word load traps into the
 * kernel's unaligned-access handler, which emulates it.  Elsewhere the
 * hardware handles it and nothing is counted.
 */
#define RX_TRAPS_MISALIGNED (IS_ENABLED(CONFIG_MIPS) || IS_ENABLED(CONFIG_SUPERH) || \
			     IS_ENABLED(CONFIG_SPARC) || IS_ENABLED(CONFIG_ALPHA) || \
			     IS_ENABLED(CONFIG_PARISC) || IS_ENABLED(CONFIG_ALIGNMENT_TRAP))

struct rx_fixups {
	struct perf_event *event;	/* PERF_COUNT_SW_ALIGNMENT_FAULTS */
};

static inline u64 rx_fixups_read(struct rx_fixups *f)
{
#if IS_ENABLED(CONFIG_PERF_EVENTS)
	u64 enabled, running;

	if (f->event)
		return perf_event_read_value(f->event, &enabled, &running);
#endif
#ifdef CONFIG_PARISC
	return this_cpu_read(irq_stat.irq_unaligned_count);
#else
	return 0;
#endif
}

#if IS_ENABLED(CONFIG_PERF_EVENTS)
static inline void rx_fixups_release(void *event)
{
	perf_event_release_kernel(event);
}

/* Counts this task's alignment traps, kernel mode included. */
static inline void rx_fixups_perf(struct kunit *test, struct rx_fixups *f)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_ALIGNMENT_FAULTS,
		.size = sizeof(attr),
	};

	f->event = perf_event_create_kernel_counter(&attr, -1, current, NULL, NULL);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(f->event),
			       "perf_event_create_kernel_counter: %pe", f->event);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_fixups_release,
							f->event), 0);
}
#else
static inline void rx_fixups_perf(struct kunit *test, struct rx_fixups *f)
{
}
#endif

/* Why this arch has no fixup counter a test can read, or NULL. */
static inline const char *rx_fixups_missing(void)
{
	if (IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) || !RX_TRAPS_MISALIGNED)
		return "the CPU loads unaligned words in hardware: no fixups to count";
	/* alpha counts into an array private to arch/alpha, and has no perf event */
	if (IS_ENABLED(CONFIG_ALPHA))
		return "no counter a test can read: alpha keeps its own in traps.c";
	/* arm without efficient unaligned loads (ARMv4/v5): alignment.c's own ai_sys */
	if (IS_ENABLED(CONFIG_ALIGNMENT_TRAP))
		return "no counter a test can read: arm keeps its own in alignment.c";
	if (!IS_ENABLED(CONFIG_PERF_EVENTS) && !IS_ENABLED(CONFIG_PARISC))
		return "no counter: CONFIG_PERF_EVENTS is not set";
	return NULL;
}

/* The fixup counter this arch has, or NULL (rx_fixups_missing() says why). */
static inline struct rx_fixups *rx_fixups_get(struct kunit *test)
{
	struct rx_fixups *f;

	if (rx_fixups_missing())
		return NULL;
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	if (!IS_ENABLED(CONFIG_PARISC))	/* else its per-CPU irq_unaligned_count */
		rx_fixups_perf(test, f);
	return f;
}

/* The fixup counter this arch has, or skip saying why there is none. */
static inline struct rx_fixups *rx_fixups(struct kunit *test)
{
	struct rx_fixups *f = rx_fixups_get(test);

	if (!f)
		kunit_skip(test, "%s: %s", rx_arch(), rx_fixups_missing());
	return f;
}

/*
 * The first reads ip_rcv() and ipv6_rcv() make of a header at @nh, as the
 * word loads the CPU does there: the IPv4 header checksum and address
 * words, IPv6's source address type and payload length.
 */
static inline u32 rx_read_ip_header(const void *nh, bool ipv6)
{
	const struct ipv6hdr *ip6 = nh;
	const struct iphdr *ip4 = nh;

	if (ipv6)
		return ipv6_addr_type(&ip6->saddr) + (__force u16)ip6->payload_len;
	return ip_fast_csum(ip4, ip4->ihl) + (__force u32)(ip4->saddr ^ ip4->daddr);
}

/*
 * Read the header at @nh as the stack does, counting the unaligned-access
 * fixups it takes where the arch has a counter (@f): none is what the
 * arch's NET_IP_ALIGN exists for.  One report line per frame.
 */
static inline void rx_expect_no_fixups(struct kunit *test, struct rx_fixups *f,
				       const void *nh, bool ipv6,
				       const char *what)
{
	u64 before, after;
	u32 sum;

	if (!f)
		return;
	preempt_disable();
	before = rx_fixups_read(f);
	sum = rx_read_ip_header(nh, ipv6);
	after = rx_fixups_read(f);
	preempt_enable();
	kunit_info(test, "rx_align_fixups: %s: %llu (checksum %u)\n", what,
		   after - before, sum);
	KUNIT_EXPECT_EQ_MSG(test, after - before, 0,
			    "arch %s, %s: reading the IP header as ip_rcv() does took %llu unaligned-access fixup(s)",
			    rx_arch(), what, after - before);
}

#endif /* _NET_CORE_TESTS_RX_ALIGN_H */
