/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the receive buffer alignment KUnit suites: what each
 * architecture promises, and the frames the suites receive.  The helpers
 * are in rx_align_kunit_helpers.c; the checks are macros here, so that a
 * failure names the line of the case that made it.
 *
 * Expectations come from the policy table (rx_align_policy()), never from
 * NET_IP_ALIGN or NET_SKB_PAD themselves, so that a kernel whose macros
 * drift from the architecture's promise fails every case that depends on
 * them.
 */
#ifndef _NET_CORE_TESTS_RX_ALIGN_H
#define _NET_CORE_TESTS_RX_ALIGN_H

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/utsname.h>

static inline const char *rx_arch(void)
{
	return init_utsname()->machine;
}

/*
 * How every failure message starts: the arch, then what was received
 * (the path, or driver, and the frame).  Arguments: rx_arch(), what.
 */
#define RX_AT "arch %s, %s: "

/* ---- What each architecture promises ---- */

struct rx_align_policy {
	const char *who;
	bool applies;
	unsigned int ip_align;
	unsigned int skb_pad;
};

const struct rx_align_policy *rx_align_policy(void);

/* Where the network header of a received frame must start, mod 4. */
static inline unsigned int rx_nh_want(void)
{
	return (rx_align_policy()->ip_align + ETH_HLEN) % 4;
}

/* The largest power of two that divides @addr, up to PAGE_SIZE. */
static inline unsigned long rx_alignment(unsigned long addr)
{
	return addr ? min(addr & -addr, PAGE_SIZE) : PAGE_SIZE;
}

/* ---- The frames every suite receives ---- */

enum rx_frame { RX_IPV4, RX_IPV6, RX_VLAN_IPV4, RX_NR_FRAMES };

extern const char * const rx_align_frame_names[RX_NR_FRAMES];

/* Length of the headers in front of the IP header. */
static inline unsigned int rx_frame_hlen(enum rx_frame frame)
{
	return frame == RX_VLAN_IPV4 ? VLAN_ETH_HLEN : ETH_HLEN;
}

static inline __be16 rx_frame_proto(enum rx_frame frame)
{
	return htons(frame == RX_IPV6 ? ETH_P_IPV6 : ETH_P_IP);
}

/* The smallest frame of each kind the suites send: headers only. */
static inline unsigned int rx_frame_min(enum rx_frame frame)
{
	return rx_frame_hlen(frame) + (frame == RX_IPV6 ? sizeof(struct ipv6hdr) :
						       sizeof(struct iphdr));
}

void rx_align_fill_frame(u8 *buf, enum rx_frame frame, unsigned int len,
			 const u8 *dest);

/* Where a frame's MAC header started: before skb_vlan_untag() moved it. */
static inline unsigned long rx_mac_start(const struct sk_buff *skb)
{
	return (unsigned long)skb_mac_header(skb) -
	       (skb_vlan_tag_present(skb) ? VLAN_HLEN : 0);
}

void rx_align_report_frame(struct kunit *test, const char *path, const char *frame,
			   unsigned int len, unsigned int headroom, unsigned long mac,
		     unsigned long nh, bool head_frag, bool pp_recycle);

#define RX_NH_FMT \
	"IP header at page offset %lu is %lu past a 4-byte boundary, the arch's NET_IP_ALIGN %u puts it %u past"

/*
 * The network header at @nh must start where the policy puts it: with a
 * pad of 2 on a 4-byte boundary, without it 2 bytes past one.  @what names
 * the path and frame.  A macro, so that a failure names the caller's line.
 */
#define RX_EXPECT_NH(test, nh, what)						\
	do {									\
		unsigned long __nh = (unsigned long)(nh);			\
										\
		KUNIT_EXPECT_EQ_MSG(test, __nh % 4, rx_nh_want(), RX_AT RX_NH_FMT, \
				    rx_arch(), what, __nh & ~PAGE_MASK,		\
				    __nh % 4, rx_align_policy()->ip_align,		\
				    rx_nh_want());				\
	} while (0)

#define RX_SHINFO_ALIGN __alignof__(struct skb_shared_info)
#define RX_SHINFO_FMT "skb_shared_info at page offset %lu, not aligned to %zu"

/*
 * skb_shared_info holds atomics (dataref): a CPU without unaligned atomics
 * faults on the first skb_clone() of an skb whose head puts it off its
 * natural alignment.
 */
#define RX_EXPECT_SHINFO(test, shinfo, what)					\
	do {									\
		unsigned long __si = (shinfo);					\
										\
		KUNIT_EXPECT_TRUE_MSG(test, IS_ALIGNED(__si, RX_SHINFO_ALIGN),	\
				      RX_AT RX_SHINFO_FMT, rx_arch(), what,	\
				      __si & ~PAGE_MASK, RX_SHINFO_ALIGN);	\
	} while (0)

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

struct rx_tap *rx_align_tap_add(struct kunit *test, struct net_device *dev,
				unsigned int want, bool sniff, bool hold);

/* ---- Unaligned-access fixups, counted where the CPU traps ---- */

struct rx_align_fixups;

struct rx_align_fixups *rx_align_fixups_get(struct kunit *test, bool all_cpus);
struct rx_align_fixups *rx_align_fixups(struct kunit *test);
u64 rx_align_fixups_read(const struct rx_align_fixups *f);
u32 rx_align_read_ip_header(const void *nh, bool ipv6);
u64 rx_align_fixups_taken(struct kunit *test, const struct rx_align_fixups *f,
			  const void *nh, bool ipv6, const char *what);

#define RX_FIXUPS_FMT \
	"reading the IP header as ip_rcv() does took %llu unaligned-access fixup(s)"

/*
 * Read the header at @nh as the stack does, counting the unaligned-access
 * fixups it takes where the arch has a counter (@f): none is what the
 * arch's NET_IP_ALIGN exists for.
 */
#define RX_EXPECT_NO_FIXUPS(test, f, nh, ipv6, what)				\
	do {									\
		struct kunit *__test = (test);					\
		const char *__what = (what);					\
		u64 __taken = rx_align_fixups_taken(__test, f, nh, ipv6, __what);	\
										\
		KUNIT_EXPECT_EQ_MSG(__test, __taken, 0, RX_AT RX_FIXUPS_FMT,	\
				    rx_arch(), __what, __taken);		\
	} while (0)

#endif /* _NET_CORE_TESTS_RX_ALIGN_H */
