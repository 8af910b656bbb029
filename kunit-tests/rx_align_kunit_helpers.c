// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers shared by the receive buffer alignment KUnit suites (rx_align.h):
 * the architectures' policy table, the frames the suites send, the taps
 * that record where they land, and the unaligned-access fixup counters.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <net/checksum.h>
#include <net/ipv6.h>

/*
 * parisc counts its fixups in irq_stat, which it does not export: only a
 * built-in test can read it.  Elsewhere PERF_COUNT_SW_ALIGNMENT_FAULTS.
 */
#if defined(CONFIG_PARISC) && !defined(MODULE)
#define RX_IRQ_STAT_COUNTER 1
#else
#define RX_IRQ_STAT_COUNTER 0
#endif
#define RX_PERF_COUNTER (IS_ENABLED(CONFIG_PERF_EVENTS) && !IS_ENABLED(CONFIG_PARISC))

#if RX_IRQ_STAT_COUNTER
#include <asm/hardirq.h>	/* irq_stat.irq_unaligned_count */
#endif

#include "rx_align.h"

/* ---- What each architecture promises (arch/{*}/include/asm) ---- */

#define RX_DEFAULT_SKB_PAD (L1_CACHE_BYTES > 32 ? L1_CACHE_BYTES : 32)

static const struct rx_align_policy rx_policies[] = {
	/* asm/processor.h: unaligned loads are cheap, unaligned DMA is not */
	{ "x86", IS_ENABLED(CONFIG_X86), 0, RX_DEFAULT_SKB_PAD },
	{ "arm64", IS_ENABLED(CONFIG_ARM64), 0, RX_DEFAULT_SKB_PAD },
	{ "ppc64", IS_ENABLED(CONFIG_PPC64), 0, RX_DEFAULT_SKB_PAD },
	/* asm/cache.h: 256-byte cache lines would waste a pad of their size */
	{ "s390", IS_ENABLED(CONFIG_S390), 2, 32 },
	/* include/linux/skbuff.h defaults */
	{ "generic", true, 2, RX_DEFAULT_SKB_PAD },
};

/* The first entry that applies to this kernel: the last always does. */
const struct rx_align_policy *rx_align_policy(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rx_policies) - 1; i++)
		if (rx_policies[i].applies)
			return &rx_policies[i];
	return &rx_policies[i];
}
EXPORT_SYMBOL_GPL(rx_align_policy);

/* ---- The frames every suite receives ---- */

const char * const rx_align_frame_names[RX_NR_FRAMES] = {
	"ipv4", "ipv6", "vlan_ipv4",
};
EXPORT_SYMBOL_GPL(rx_align_frame_names);

/*
 * Lay out @len bytes as the device's DMA would: Ethernet (+ 802.1Q) to
 * @dest, a valid IPv4 (checksummed) or IPv6 UDP header, zeroed payload.
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
EXPORT_SYMBOL_GPL(rx_align_fill_frame);

/* One line the reports parse: where a received frame landed. */
void rx_align_report_frame(struct kunit *test, const char *path, const char *frame,
			   unsigned int len, unsigned int headroom, unsigned long mac,
		     unsigned long nh, bool head_frag, bool pp_recycle)
{
	kunit_info(test,
		   "rx_align_frame: path=%s frame=%s len=%u headroom=%u mac_line_off=%lu nh_mod4=%lu head_frag=%d pp_recycle=%d\n",
		   path, frame, len, headroom, mac % L1_CACHE_BYTES, nh % 4,
		   head_frag, pp_recycle);
}
EXPORT_SYMBOL_GPL(rx_align_report_frame);

/* ---- Taps that record where our frames land ---- */

/* Ours: sent from 192.0.2.1 or 2001:db8::1 (rx_align_fill_frame()). */
static bool rx_is_ours(const struct sk_buff *skb)
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
static enum rx_frame rx_frame_kind(const struct sk_buff *skb, unsigned int *len)
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
static bool rx_tap_record(struct rx_tap *tap, struct sk_buff *skb)
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
static int rx_tap_rcv(struct sk_buff *skb, struct net_device *dev,
		      struct packet_type *pt, struct net_device *orig_dev)
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

/*
 * Record our frames on @dev, as the IPv4 and IPv6 handlers get them, or
 * (@sniff) as a packet socket does, which (@hold) keeps them as a packet
 * socket's queue does; complete once @want of them arrived.
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
EXPORT_SYMBOL_GPL(rx_align_tap_add);

/* ---- Unaligned-access fixups, counted where the CPU traps ---- */

/*
 * The CPUs NET_IP_ALIGN is 2 for: a misaligned word load traps into the
 * kernel's unaligned-access handler, which emulates it.  Elsewhere the
 * hardware handles it and nothing is counted.
 */
#define RX_TRAPS_MISALIGNED (IS_ENABLED(CONFIG_MIPS) || IS_ENABLED(CONFIG_SUPERH) || \
			     IS_ENABLED(CONFIG_SPARC) || IS_ENABLED(CONFIG_ALPHA) || \
			     IS_ENABLED(CONFIG_PARISC) || IS_ENABLED(CONFIG_ALIGNMENT_TRAP))

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

/* Why this arch has no fixup counter a test can read, or NULL. */
static const char *rx_fixups_missing(void)
{
	if (IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) || !RX_TRAPS_MISALIGNED)
		return "the CPU loads unaligned words in hardware: no fixups to count";
	/* alpha counts into an array private to arch/alpha, and has no perf event */
	if (IS_ENABLED(CONFIG_ALPHA))
		return "no counter a test can read: alpha keeps its own in traps.c";
	/* arm without efficient unaligned loads (ARMv4/v5): alignment.c's own ai_sys */
	if (IS_ENABLED(CONFIG_ALIGNMENT_TRAP))
		return "no counter a test can read: arm keeps its own in alignment.c";
	if (IS_ENABLED(CONFIG_PARISC) && !RX_IRQ_STAT_COUNTER)
		return "no counter a module can read: parisc does not export irq_stat";
	if (!RX_IRQ_STAT_COUNTER && !RX_PERF_COUNTER)
		return "no counter: CONFIG_PERF_EVENTS is not set";
	return NULL;
}

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
		event = perf_event_create_kernel_counter(&attr, f->all_cpus ? i : -1,
							 f->all_cpus ? NULL : current,
							 NULL, NULL);
		KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(event),
				       "perf_event_create_kernel_counter(cpu %d): %pe",
				       f->all_cpus ? (int)i : -1, event);
		KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_fixups_release,
								event), 0);
		f->events[i] = event;
	}
}
#else
static void rx_fixups_perf(struct kunit *test, struct rx_align_fixups *f)
{
}
#endif

/*
 * The fixup counter this arch has, in this task or (@all_cpus) on every
 * CPU, or NULL (rx_fixups_missing() says why).
 */
struct rx_align_fixups *rx_align_fixups_get(struct kunit *test, bool all_cpus)
{
	struct rx_align_fixups *f;

	if (rx_fixups_missing())
		return NULL;
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->all_cpus = all_cpus;
	rx_fixups_perf(test, f);
	return f;
}
EXPORT_SYMBOL_GPL(rx_align_fixups_get);

/* This task's fixup counter, or skip saying why the arch has none. */
struct rx_align_fixups *rx_align_fixups(struct kunit *test)
{
	struct rx_align_fixups *f = rx_align_fixups_get(test, false);

	if (!f)
		kunit_skip(test, "%s: %s", rx_arch(), rx_fixups_missing());
	return f;
}
EXPORT_SYMBOL_GPL(rx_align_fixups);

/*
 * Read with preemption on: perf_event_read_value() takes a mutex.  A task's
 * counter follows it from CPU to CPU; parisc's per-CPU counts are summed
 * over every CPU, so a migration between two reads loses none.
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
			sum += perf_event_read_value(f->events[i], &enabled, &running);
#endif
	return sum;
}
EXPORT_SYMBOL_GPL(rx_align_fixups_read);

/*
 * The first reads ip_rcv() and ipv6_rcv() make of a header at @nh, as the
 * word loads the CPU does there: the IPv4 header checksum and address
 * words, IPv6's source address type and payload length.
 */
u32 rx_align_read_ip_header(const void *nh, bool ipv6)
{
	const struct ipv6hdr *ip6 = nh;
	const struct iphdr *ip4 = nh;

	if (ipv6)
		return ipv6_addr_type(&ip6->saddr) + (__force u16)ip6->payload_len;
	return ip_fast_csum(ip4, ip4->ihl) + (__force u32)(ip4->saddr ^ ip4->daddr);
}
EXPORT_SYMBOL_GPL(rx_align_read_ip_header);

/*
 * The fixups reading the header at @nh as the stack does took, on this
 * task's counter @f (0 without one).  One report line per frame.
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
EXPORT_SYMBOL_GPL(rx_align_fixups_taken);

MODULE_DESCRIPTION("Helpers for the receive buffer alignment KUnit tests");
MODULE_LICENSE("GPL");
