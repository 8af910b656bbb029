// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment on the GRO frags path.
 *
 * A driver that uses napi_get_frags()/napi_gro_frags() hands the stack
 * only page fragments; the kernel allocates the skb head itself
 * (napi_alloc_skb() in napi_get_frags()), copies the Ethernet header into
 * it, and the protocol pulls its header in behind.  When GRO merges a
 * segment into an earlier one it keeps the emptied skb for the driver's
 * next frame and restores its headroom itself (napi_reuse_skb()).  So the
 * alignment of every IP header the stack reads on this path is the
 * kernel's decision, twice over.
 *
 * The cases run a real NAPI instance on a device of their own: its poll
 * function does what such a driver does, and the device's rx_handler
 * records where the IP header is when the frame reaches the stack, and
 * ends the frame's way there: no protocol, packet tap of a protocol or
 * counter of a namespace sees it.
 *
 * GRO reads the headers of a frame whose head is empty in place, in its
 * first fragment (frag0), and only where NET_IP_ALIGN would have put them
 * (skb_gro_reset_offset()); anywhere else it pulls them into the head
 * first.  net_rx_align_gro_at puts the IP header at each offset mod 4 in
 * the fragment and counts the unaligned-access fixups the whole receive
 * takes where the CPU traps: none, wherever the device wrote the frame.
 * The count is the case's task's: the poll runs in it, in the softirq
 * that local_bh_enable() runs.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/gro.h>

#include "rx_align.h"

KUNIT_DEFINE_ACTION_WRAPPER(rx_napi_disable, napi_disable,
			    struct napi_struct *);

#define RX_GRO_MAX	4
/* TCP segments GRO can merge: same flow, consecutive, full-sized. */
#define RX_GRO_MSS	1000

/* One frame of the poll: a UDP frame, or segment @seg of a TCP flow. */
struct rx_gro_frame {
	enum rx_frame frame;
	unsigned int len;
	bool tcp;
	unsigned int seg;
};

struct rx_gro_param {
	const char *name;
	unsigned int n;
	struct rx_gro_frame frames[RX_GRO_MAX];
	bool merge;	/* frame 1 merges into frame 0, 2 may reuse 1's skb */
};

#define RX_TCP_LEN (ETH_HLEN + sizeof(struct iphdr) + sizeof(struct tcphdr) + \
		    RX_GRO_MSS)

static const struct rx_gro_param rx_gro_params[] = {
	{ "ipv4", 1, { { RX_IPV4, ETH_FRAME_LEN } } },
	{ "ipv6", 1, { { RX_IPV6, ETH_FRAME_LEN } } },
	{ "vlan_ipv4", 1, { { RX_VLAN_IPV4, ETH_FRAME_LEN + VLAN_HLEN } } },
	{ "ipv4_min", 1, { { RX_IPV4, ETH_ZLEN } } },
	{ "tcp_merge_then_reuse", 3,
	  { { RX_IPV4, RX_TCP_LEN, true, 0 }, { RX_IPV4, RX_TCP_LEN, true, 1 },
	    { RX_IPV4, ETH_FRAME_LEN } }, .merge = true },
};

KUNIT_ARRAY_PARAM_DESC(rx_gro, rx_gro_params, name);

struct rx_gro {
	struct net_device *dev;
	struct napi_struct napi;
	struct completion polled;
	const struct rx_gro_param *p;
	unsigned int mac;	/* page offset the device wrote each frame at */
	bool receive;		/* napi_gro_receive(), not napi_gro_frags() */
	/* what the poll saw of each frame */
	unsigned int headroom[RX_GRO_MAX];
	unsigned int done;
	struct task_struct *poller;	/* the task the poll ran in */
};

/* Segment @seg of one TCP flow from 192.0.2.1, checksummed IP header. */
static void rx_fill_tcp(u8 *buf, unsigned int seg, const u8 *dest)
{
	struct iphdr ip4 = {
		.version = 4, .ihl = 5, .ttl = 64, .protocol = IPPROTO_TCP,
		.frag_off = htons(IP_DF), .id = htons(seg),
		.tot_len = htons(RX_TCP_LEN - ETH_HLEN),
		.saddr = htonl(0xc0000201), .daddr = htonl(0xc0000202),
	};
	struct tcphdr th = {
		.source = htons(9), .dest = htons(9),
		.seq = htonl(1 + seg * RX_GRO_MSS), .ack_seq = htonl(1),
		.doff = sizeof(th) / 4, .ack = 1, .window = htons(1024),
	};

	rx_align_fill_frame(buf, RX_IPV4, RX_TCP_LEN, dest);
	ip4.check = ip_fast_csum(&ip4, ip4.ihl);
	memcpy(buf + ETH_HLEN, &ip4, sizeof(ip4));
	memcpy(buf + ETH_HLEN + sizeof(ip4), &th, sizeof(th));
}

/* A page the device wrote frame @f into, at @mac. */
static struct page *rx_gro_page(struct napi_struct *napi,
				const struct rx_gro_frame *f, unsigned int mac)
{
	struct page *page = dev_alloc_page();
	u8 *buf;

	if (!page)
		return NULL;
	buf = page_address(page) + mac;
	if (f->tcp)
		rx_fill_tcp(buf, f->seg, napi->dev->dev_addr);
	else
		rx_align_fill_frame(buf, f->frame, f->len, napi->dev->dev_addr);
	return page;
}

/*
 * What a napi_gro_receive() driver that copies only the Ethernet header
 * does: the rest stays in the page, so the head is empty once
 * eth_type_trans() pulled the MAC header, and GRO reads the rest in place.
 */
static gro_result_t rx_gro_receive(struct napi_struct *napi,
				   struct sk_buff *skb, struct page *page,
				   unsigned int mac, unsigned int len)
{
	skb_put_data(skb, page_address(page) + mac, ETH_HLEN);
	skb_add_rx_frag(skb, 0, page, mac + ETH_HLEN, len - ETH_HLEN,
			PAGE_SIZE);
	skb->protocol = eth_type_trans(skb, napi->dev);
	skb->ip_summed = CHECKSUM_UNNECESSARY;
	return napi_gro_receive(napi, skb);
}

/* What a GRO driver's poll does with each received buffer. */
static int rx_gro_poll(struct napi_struct *napi, int budget)
{
	struct rx_gro *gro = container_of(napi, struct rx_gro, napi);
	unsigned int i;

	for (i = 0; i < gro->p->n && i < budget; i++) {
		const struct rx_gro_frame *f = &gro->p->frames[i];
		struct sk_buff *skb;
		struct page *page;

		skb = gro->receive ? napi_alloc_skb(napi, GRO_MAX_HEAD) :
				     napi_get_frags(napi);
		if (!skb)
			break;
		page = rx_gro_page(napi, f, gro->mac);
		if (!page) {
			if (gro->receive)
				kfree_skb(skb);
			break;
		}
		gro->headroom[i] = skb_headroom(skb);
		if (gro->receive) {
			rx_gro_receive(napi, skb, page, gro->mac, f->len);
			continue;
		}
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
				gro->mac, f->len, PAGE_SIZE);
		/* the device verified the checksums */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		napi_gro_frags(napi);
	}
	gro->done = i;
	gro->poller = current;
	napi_complete_done(napi, i);
	complete(&gro->polled);
	return i;
}

/*
 * A device with GRO on and a NAPI instance that polls @gro's frames, and a
 * sink for the @want frames that reach the stack.
 */
static struct rx_tap *rx_gro_setup(struct kunit *test, struct rx_gro *gro,
				   unsigned int want)
{
	struct rx_tap *tap;

	init_completion(&gro->polled);
	gro->dev = rx_align_dummy_netdev(test);
	/* what register_netdevice() turns on for a driver's device */
	gro->dev->features |= NETIF_F_GRO;
	rx_align_napi_add(test, gro->dev, &gro->napi, rx_gro_poll);
	tap = rx_align_tap_sink(test, gro->dev, want);
	napi_enable(&gro->napi);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_napi_disable,
							&gro->napi), 0);
	return tap;
}

/* One NAPI poll, which must hand every frame of @gro to GRO. */
static void rx_gro_run(struct kunit *test, struct rx_gro *gro)
{
	const char *name = gro->p->name;

	local_bh_disable();
	napi_schedule(&gro->napi);
	local_bh_enable();
	KUNIT_ASSERT_TRUE_MSG(test,
			      wait_for_completion_timeout(&gro->polled, HZ),
			      "%s: the NAPI poll never ran", name);
	KUNIT_ASSERT_EQ_MSG(test, gro->done, gro->p->n,
			    "%s: the poll handed %u of %u frames to GRO",
			    name, gro->done, gro->p->n);
}

static void rx_gro_frags(struct kunit *test)
{
	const struct rx_gro_param *p = test->param_value;
	struct rx_tap *tap;
	struct rx_gro *gro;
	unsigned int i, want = p->merge ? p->n - 1 : p->n;
	/* a name, not the expression: NET_SKB_PAD's max() fills the report */
	unsigned int pad = NET_SKB_PAD + NET_IP_ALIGN;
	char what[64];

	/* Only TCP GRO merges segments and frees the second skb's head. */
	if (p->merge && !IS_ENABLED(CONFIG_INET))
		kunit_skip(test,
			   "CONFIG_INET is not set: no TCP GRO to merge segments");

	gro = kunit_kzalloc(test, sizeof(*gro), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gro);
	gro->p = p;
	/* the device wrote the frame where NET_IP_ALIGN tells it */
	gro->mac = NET_IP_ALIGN;
	tap = rx_gro_setup(test, gro, want);
	rx_gro_run(test, gro);

	/* napi_get_frags(): the head napi_alloc_skb() made, or a reused one */
	for (i = 0; i < p->n; i++)
		KUNIT_EXPECT_EQ_MSG(test, gro->headroom[i], pad,
				    RX_AT
				    "frame %u: napi_get_frags() headroom %u, not NET_SKB_PAD %u + NET_IP_ALIGN %u",
				    rx_arch(), p->name, i, gro->headroom[i],
				    (unsigned int)NET_SKB_PAD, NET_IP_ALIGN);

	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&tap->seen, HZ),
			      "%s: %u of %u frames reached the stack", p->name,
			      tap->n, want);
	for (i = 0; i < tap->n; i++) {
		const struct rx_align_seen *seen = &tap->frames[i];

		snprintf(what, sizeof(what), "%s_%u", p->name, i);
		RX_EXPECT_FRAME(test, "napi_gro_frags", what, seen,
				RX_RULE_IP_ALIGN, 0);
		RX_EXPECT_SHINFO(test, seen->shinfo, what);
	}
}

/* ---- Headers GRO reads in place: the IP header at each offset mod 4 ---- */

struct rx_gro_at_param {
	const char *name;
	bool receive;		/* napi_gro_receive(), else napi_gro_frags() */
	struct rx_gro_frame frame;
	unsigned int at;	/* the IP header's offset in the page, mod 4 */
};

#define RX_GRO_UDP4	{ RX_IPV4, ETH_FRAME_LEN }
#define RX_GRO_UDP6	{ RX_IPV6, ETH_FRAME_LEN }
#define RX_GRO_TCP4	{ RX_IPV4, RX_TCP_LEN, true, 0 }

static const struct rx_gro_at_param rx_gro_at_params[] = {
	{ "frags_udp4_at_0", false, RX_GRO_UDP4, 0 },
	{ "frags_udp4_at_1", false, RX_GRO_UDP4, 1 },
	{ "frags_udp4_at_2", false, RX_GRO_UDP4, 2 },
	{ "frags_udp4_at_3", false, RX_GRO_UDP4, 3 },
	{ "frags_udp6_at_0", false, RX_GRO_UDP6, 0 },
	{ "frags_udp6_at_1", false, RX_GRO_UDP6, 1 },
	{ "frags_udp6_at_2", false, RX_GRO_UDP6, 2 },
	{ "frags_udp6_at_3", false, RX_GRO_UDP6, 3 },
	{ "frags_tcp4_at_0", false, RX_GRO_TCP4, 0 },
	{ "frags_tcp4_at_1", false, RX_GRO_TCP4, 1 },
	{ "frags_tcp4_at_2", false, RX_GRO_TCP4, 2 },
	{ "frags_tcp4_at_3", false, RX_GRO_TCP4, 3 },
	{ "receive_udp4_at_0", true, RX_GRO_UDP4, 0 },
	{ "receive_udp4_at_1", true, RX_GRO_UDP4, 1 },
	{ "receive_udp4_at_2", true, RX_GRO_UDP4, 2 },
	{ "receive_udp4_at_3", true, RX_GRO_UDP4, 3 },
	{ "receive_udp6_at_0", true, RX_GRO_UDP6, 0 },
	{ "receive_udp6_at_1", true, RX_GRO_UDP6, 1 },
	{ "receive_udp6_at_2", true, RX_GRO_UDP6, 2 },
	{ "receive_udp6_at_3", true, RX_GRO_UDP6, 3 },
	{ "receive_tcp4_at_0", true, RX_GRO_TCP4, 0 },
	{ "receive_tcp4_at_1", true, RX_GRO_TCP4, 1 },
	{ "receive_tcp4_at_2", true, RX_GRO_TCP4, 2 },
	{ "receive_tcp4_at_3", true, RX_GRO_TCP4, 3 },
};

KUNIT_ARRAY_PARAM_DESC(rx_gro_at, rx_gro_at_params, name);

/* Room in front of the MAC header, so that the IP header can be anywhere. */
#define RX_GRO_AT_BASE	16

static void rx_gro_at(struct kunit *test)
{
	const struct rx_gro_at_param *p = test->param_value;
	struct rx_align_fixups *f = rx_align_fixups_new(test, false);
	const char *path = p->receive ? "napi_gro_receive" : "napi_gro_frags";
	struct rx_gro_param *frames;
	struct rx_gro *gro;
	struct rx_tap *tap;
	u64 before, taken;

	if (p->frame.tcp && !IS_ENABLED(CONFIG_INET))
		kunit_skip(test, "CONFIG_INET is not set: no TCP GRO");

	gro = kunit_kzalloc(test, sizeof(*gro), GFP_KERNEL);
	frames = kunit_kzalloc(test, sizeof(*frames), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, gro);
	KUNIT_ASSERT_NOT_NULL(test, frames);
	*frames = (struct rx_gro_param){ p->name, 1, { p->frame } };
	gro->p = frames;
	gro->mac = RX_GRO_AT_BASE + p->at - ETH_HLEN;
	gro->receive = p->receive;
	tap = rx_gro_setup(test, gro, 1);

	before = f ? rx_align_fixups_read(f) : 0;
	rx_gro_run(test, gro);
	/* This task's counter saw the receive if the poll ran here. */
	if (f && gro->poller != current)
		kunit_skip(test,
			   "the NAPI poll ran in %s, not in the case's task: its fixups were not counted",
			   gro->poller->comm);
	KUNIT_ASSERT_TRUE_MSG(test, wait_for_completion_timeout(&tap->seen, HZ),
			      "%s: the frame never reached the stack", p->name);
	taken = f ? rx_align_fixups_read(f) - before : 0;
	if (f)
		kunit_info(test, "rx_align_fixups: %s: %llu\n", p->name, taken);

	RX_EXPECT_FRAME(test, path, p->name, &tap->frames[0], RX_RULE_IP_ALIGN,
			0);
	KUNIT_EXPECT_EQ_MSG(test, taken, 0,
			    RX_AT
			    "%s took %llu unaligned-access fixup(s), the IP header %u past a 4-byte boundary in the page",
			    rx_arch(), p->name, path, taken, p->at);
}

static struct kunit_case rx_gro_cases[] = {
	KUNIT_CASE_PARAM(rx_gro_frags, rx_gro_gen_params),
	KUNIT_CASE_PARAM(rx_gro_at, rx_gro_at_gen_params),
	{}
};

static struct kunit_suite rx_gro_suite = {
	.name = "net_rx_align_gro",
	.init = rx_align_watch_kernel,
	.test_cases = rx_gro_cases,
};

kunit_test_suite(rx_gro_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment on the GRO frags path");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
