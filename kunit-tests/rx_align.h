/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared by the receive buffer alignment KUnit suites: the frames they
 * receive, where a frame must land, the receive paths, and the fixtures
 * every suite uses.  The helpers are in rx_align_kunit_helpers.c; the
 * checks are macros here, so that a failure names the line of the case.
 *
 * What a frame is judged against is the architecture's own NET_IP_ALIGN:
 * the IP header behind an Ethernet header lands (NET_IP_ALIGN + ETH_HLEN)
 * bytes past a 4-byte boundary, mod 4.
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

struct bpf_prog;
struct page_pool;
struct page_pool_params;

static inline const char *rx_arch(void)
{
	return init_utsname()->machine;
}

/*
 * How every failure message starts: the arch, then what was received
 * (the path, or driver, and the frame).  Arguments: rx_arch(), what.
 */
#define RX_AT "arch %s, %s: "

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
	return rx_frame_hlen(frame) + (frame == RX_IPV6 ?
				       sizeof(struct ipv6hdr) :
				       sizeof(struct iphdr));
}

void rx_align_fill_frame(u8 *buf, enum rx_frame frame, unsigned int len,
			 const u8 *dest);

/* ---- Where a received frame landed ---- */

struct rx_align_seen {
	unsigned long mac;	/* where the MAC header started, if any */
	unsigned long nh;	/* the network header */
	unsigned long shinfo;
	unsigned int headroom;	/* in front of the MAC header */
	unsigned int len;	/* from the MAC header on */
	enum rx_frame frame;	/* which kind it was */
	bool head_frag;
	bool pp_recycle;
	struct sk_buff *skb;	/* held by a sniffer, for the test to read */
};

bool rx_align_seen_skb(struct rx_align_seen *seen, const struct sk_buff *skb);

/*
 * Where the network header of a frame must start, mod 4:
 *  - RX_RULE_IP_ALIGN: behind an Ethernet header, where NET_IP_ALIGN puts
 *    it (on a 4-byte boundary with a pad of 2, 2 past one without);
 *  - RX_RULE_WORD: on a 4-byte boundary whatever NET_IP_ALIGN is (a frame
 *    without a MAC header, or a copy behind a literal 2);
 *  - RX_RULE_KEPT: where it was before the path ran (@kept);
 *  - RX_RULE_NONE: not judged (a hypervisor fills the buffer).
 */
enum rx_align_rule {
	RX_RULE_IP_ALIGN,
	RX_RULE_WORD,
	RX_RULE_KEPT,
	RX_RULE_NONE,
};

int rx_align_want(enum rx_align_rule rule, unsigned long kept);
const char *rx_align_rule_name(enum rx_align_rule rule);

/*
 * The one line each frame gets in the log: where it landed, where @rule
 * wants its network header (@want, -1 if nowhere) and the verdict the
 * case gave it (@failed); @extra adds key=value pairs.
 */
void rx_align_report_frame(struct kunit *test, const char *path,
			   const char *name, const struct rx_align_seen *seen,
			   enum rx_align_rule rule, int want, bool failed,
			   const char *extra);

#define RX_NH_FMT \
	"IP header at page offset %lu is %lu past a 4-byte boundary, %s puts it %d past"

/*
 * The frame in @seen must have its network header where @rule wants it;
 * the verdict and the log line come from the same comparison.
 */
#define RX_EXPECT_FRAME(test, path, name, seen, rule, kept)		\
	do {								\
		struct kunit *__t = (test);				\
		const char *__p = (path), *__n = (name);		\
		const struct rx_align_seen *__s = (seen);		\
		enum rx_align_rule __r = (rule);			\
		int __want = rx_align_want(__r, kept);			\
		unsigned long __mod = __s->nh % 4;			\
		bool __bad = __want >= 0 && __mod != __want;		\
									\
		rx_align_report_frame(__t, __p, __n, __s, __r, __want,	\
				      __bad, NULL);			\
		KUNIT_EXPECT_FALSE_MSG(__t, __bad,			\
				       RX_AT "%s: " RX_NH_FMT,		\
				       rx_arch(), __p, __n,		\
				       __s->nh & ~PAGE_MASK, __mod,	\
				       rx_align_rule_name(__r), __want); \
	} while (0)

#define RX_SHINFO_ALIGN __alignof__(struct skb_shared_info)
#define RX_SHINFO_FMT "skb_shared_info at page offset %lu, not aligned to %zu"

/*
 * skb_shared_info holds atomics (dataref): a CPU without unaligned atomics
 * faults on the first skb_clone() of an skb whose head puts it off its
 * natural alignment.
 */
#define RX_EXPECT_SHINFO(test, shinfo, what)				\
	do {								\
		unsigned long __si = (shinfo);				\
									\
		KUNIT_EXPECT_TRUE_MSG(test,				\
				      IS_ALIGNED(__si, RX_SHINFO_ALIGN), \
				      RX_AT RX_SHINFO_FMT, rx_arch(),	\
				      what, __si & ~PAGE_MASK,		\
				      RX_SHINFO_ALIGN);			\
	} while (0)

/* ---- Fixtures: each registers its own cleanup ---- */

int rx_align_watch_kernel(struct kunit *test);
struct net_device *rx_align_dummy_netdev(struct kunit *test);
void rx_align_napi_add(struct kunit *test, struct net_device *dev,
		       struct napi_struct *napi,
		       int (*poll)(struct napi_struct *, int));
struct page_pool *rx_align_page_pool(struct kunit *test,
				     const struct page_pool_params *pp);
struct sk_buff **rx_align_skb_ref(struct kunit *test);
struct bpf_prog *rx_align_xdp_pass_prog(struct kunit *test, bool frags);

/*
 * What eth_type_trans() and __netif_receive_skb_core() do to a frame a
 * driver received in *@ref: on return *@ref is the skb the protocol gets,
 * or NULL if untagging failed and freed it.
 */
void rx_align_receive(struct sk_buff **ref, struct net_device *dev);

/* ---- Generic XDP, as __netif_receive_skb_core() runs it ---- */

struct rx_generic_param {
	const char *name;
	bool frags;		/* the program takes multi-buffer frames */
	bool nonlinear;		/* the driver built the skb from page frags */
	enum rx_frame frame;
	unsigned int len;
	bool l3;		/* no MAC header: tun, ipip, WireGuard */
	unsigned int reserve;	/* more driver headroom (tun's is settable) */
};

void rx_align_generic_xdp(struct kunit *test,
			  const struct rx_generic_param *p);

/* ---- The receive paths drivers allocate through ---- */

struct rx_ctx {
	struct net_device *dev;
	struct napi_struct napi;
	struct page_pool *pool;
};

int rx_align_ctx_init(struct kunit *test);

/*
 * Who decides where the frame starts: the allocator (RX_ALLOC: the
 * headroom is the API's promise) or the driver, which builds an skb around
 * a buffer it carved and reserves the pad itself (RX_BUILD: the kernel
 * decides where the buffer is, how big the head is and where
 * skb_shared_info goes).
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
	/* @size: the buffer the skb was built around, for RX_BUILD */
	struct sk_buff *(*alloc)(struct rx_ctx *ctx, const struct rx_path *path,
				 unsigned int len, unsigned int *size);
};

#define RX_NR_PATHS 15

extern const struct rx_path rx_align_paths[RX_NR_PATHS];

void rx_align_path_desc(const struct rx_path *path, char *desc);
void rx_align_path_applies(struct kunit *test, const struct rx_path *path);
unsigned int rx_align_reserve(const struct rx_path *path);
struct sk_buff *rx_align_alloc(struct kunit *test, struct sk_buff **ref,
			       const struct rx_path *path, unsigned int len,
			       unsigned int *size);

/* ---- Taps that record where our frames land ---- */

#define RX_TAP_MAX 32

struct rx_tap {
	struct packet_type pt[2];
	/* a sink's: its rx_handler is ours, pt[] count what got past it */
	struct net_device *dev;
	struct kunit *test;
	unsigned int leaked;
	struct completion seen;		/* @want frames arrived */
	unsigned int want;
	unsigned int n;
	bool hold;			/* a sniffer keeps what it records */
	struct rx_align_seen frames[RX_TAP_MAX];
};

struct rx_tap *rx_align_tap_add(struct kunit *test, struct net_device *dev,
				unsigned int want, bool sniff, bool hold);
struct rx_tap *rx_align_tap_sink(struct kunit *test, struct net_device *dev,
				 unsigned int want);

/* ---- Unaligned-access fixups, counted where the CPU traps ---- */

struct rx_align_fixups;

struct rx_align_fixups *rx_align_fixups_new(struct kunit *test,
					    bool all_cpus);
const char *rx_align_fixups_missing(void);

/*
 * This task's fixup counter, or skip saying why the arch has none.  Inline:
 * where no arch counter exists it never returns, which objtool wants said
 * of a function, not of a call site.
 */
static inline struct rx_align_fixups *
rx_align_fixups_or_skip(struct kunit *test)
{
	struct rx_align_fixups *f = rx_align_fixups_new(test, false);

	if (!f)
		kunit_skip(test, "%s: %s", rx_arch(),
			   rx_align_fixups_missing());
	return f;
}

u64 rx_align_fixups_read(const struct rx_align_fixups *f);
u32 rx_align_read_ip_header(const void *nh, bool ipv6);
u32 rx_align_misaligned_load(const void *p);
u64 rx_align_fixups_taken(struct kunit *test, const struct rx_align_fixups *f,
			  const void *nh, bool ipv6, const char *what);

#define RX_FIXUPS_FMT \
	"reading the IP header took %llu unaligned-access fixup(s)"

/*
 * Read the header at @nh with the word loads ip_rcv() or ipv6_rcv() make
 * first, counting the unaligned-access fixups that takes where the arch
 * has a counter (@f): none is what NET_IP_ALIGN exists for.
 */
#define RX_EXPECT_NO_FIXUPS(test, f, nh, ipv6, what)			\
	do {								\
		struct kunit *__test = (test);				\
		const char *__what = (what);				\
		u64 __taken = rx_align_fixups_taken(__test, f, nh,	\
						    ipv6, __what);	\
									\
		KUNIT_EXPECT_EQ_MSG(__test, __taken, 0,			\
				    RX_AT RX_FIXUPS_FMT, rx_arch(),	\
				    __what, __taken);			\
	} while (0)

#endif /* _NET_CORE_TESTS_RX_ALIGN_H */
