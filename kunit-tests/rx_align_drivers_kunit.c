// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment in real NIC drivers.
 *
 * The allocator suites prove what the allocators promise; what matters to
 * the stack is where a driver puts the frame it hands up.  The guest these
 * cases run in has several emulated NICs on one hub (QEMU's -netdev
 * hubport): each case takes one NIC as the receiver, sends IPv4, IPv6 and
 * 802.1Q frames of several sizes to it from another NIC, and records where
 * the receiver's driver put each frame when the stack parses it.  A machine
 * with one NIC sends from that NIC to itself, so its link must loop back
 * (say a -netdev socket on the hub whose peer is its own address).
 *
 * Every frame is judged by one rule: where the CPU has no cheap unaligned
 * loads (no HAVE_EFFICIENT_UNALIGNED_ACCESS) it must reach the stack with
 * its IP header on a 4-byte boundary, whatever the driver; elsewhere a
 * frame 2 past one is allowed, and counted.  On top of that, what the
 * driver promises, from reading it (the audit's classes): a driver that
 * reserves NET_IP_ALIGN in front of a buffer the device writes, or that
 * copies into one, must put the IP header where the architecture asks;
 * one that copies behind a hard-coded 2 must put it on a 4-byte boundary
 * everywhere.  Only where a hypervisor owns the buffer is a frame recorded
 * and not held to the driver's promise.  Every frame sent must arrive, and
 * a NIC whose driver has no row below fails.
 */

#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "rx_align.h"

enum rx_class {
	RX_IP_ALIGN,	/* NET_IP_ALIGN in front of the DMA or the copy */
	RX_PAD2,	/* a CPU copy behind a literal 2 */
	RX_DEVICE,	/* the chip or no reserve decides: the arch's rule only */
	RX_HYPERVISOR,	/* the hypervisor fills the buffer: recorded */
};

static const char * const rx_class_names[] = {
	[RX_IP_ALIGN] = "ip_align", [RX_PAD2] = "copy_pad2",
	[RX_DEVICE] = "device", [RX_HYPERVISOR] = "hypervisor",
};

struct rx_driver {
	const char *name;	/* the bound driver's name */
	enum rx_class class;	/* frames longer than @copy_max bytes */
	unsigned int copy_max;	/* the driver copies frames up to this length */
	enum rx_class copied;	/* ... into a buffer of this class */
	const char *why;
	unsigned int dma_lead;	/* bytes the device writes before the frame */
};

/* The device's mode decides what precedes the frame: no DMA start to judge. */
#define RX_LEAD_VARIES UINT_MAX

/* How each driver of QEMU's emulated NICs receives, in 6.12. */
static const struct rx_driver rx_drivers[] = {
	{ "e1000", RX_IP_ALIGN, 256, RX_IP_ALIGN,
	  "NET_SKB_PAD + NET_IP_ALIGN before napi_build_skb(), copybreak into napi_alloc_skb()" },
	{ "e1000e", RX_IP_ALIGN, 256, RX_IP_ALIGN,
	  "__netdev_alloc_skb_ip_align(); copybreak into napi_alloc_skb()" },
	{ "igb", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "build_skb() on a half page written at IGB_SKB_PAD, NET_IP_ALIGN past a line" },
	{ "e100", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "netdev_alloc_skb_ip_align(), the device writes a 16-byte RFD before the frame",
	  16 },
	{ "8139cp", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "netdev_alloc_skb_ip_align()" },
	/* refuses QEMU's rtl8139, a C+ chip: 8139cp drives it */
	{ "8139too", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "copies out of the ring into napi_alloc_skb()" },
	{ "pcnet32", RX_IP_ALIGN, 200, RX_IP_ALIGN,
	  "netdev_alloc_skb() + NET_IP_ALIGN; copybreak into the same" },
	{ "vmxnet3", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "__netdev_alloc_skb_ip_align()" },
	/* mergeable buffers start with the 12-byte virtio_net_hdr, small ones do not */
	{ "virtio_net", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "VIRTNET_RX_PAD (NET_IP_ALIGN + NET_SKB_PAD), or a copy into napi_alloc_skb()",
	  RX_LEAD_VARIES },
	{ "ne2k-pci", RX_PAD2, 0, RX_PAD2,
	  "lib8390 copies (PIO) behind skb_reserve(skb, 2)" },
	/* ne2k_isa: the same 8390 core, ne.c's ISA probe */
	{ "ne", RX_PAD2, 0, RX_PAD2,
	  "lib8390 copies (PIO) behind skb_reserve(skb, 2)" },
	{ "smc91x", RX_PAD2, 0, RX_PAD2,
	  "copies (PIO) behind skb_reserve(skb, 2)" },
	/* usbnet, for QEMU's usb-net in its CDC Ethernet configuration */
	{ "cdc_ether", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "usbnet's __netdev_alloc_skb_ip_align(), the URB fills it" },
	{ "smsc911x", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "the FIFO hands NET_IP_ALIGN pad bytes first (RX_CFG), skipped by skb_reserve()" },
	{ "calxedaxgmac", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "netdev_alloc_skb_ip_align()" },
	{ "ftgmac100", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "netdev_alloc_skb_ip_align()" },
	/* Zynq's GEM (gem_rx_refill()) */
	{ "macb", RX_IP_ALIGN, 0, RX_IP_ALIGN,
	  "netdev_alloc_skb(), the MAC writes the frame NET_IP_ALIGN in (RBOF), reserved past" },
	/* i.MX7's ENET has RACC: SHIFT16 is set whatever NET_IP_ALIGN is */
	{ "fec", RX_DEVICE, 0, RX_DEVICE,
	  "page_pool buffer after XDP headroom, the MAC writes 2 bytes first (RACC SHIFT16)" },
	/* tulip_core.c's default rx_copybreak: PKT_BUF_SZ here, else 100 */
#if defined(__arm__) || !defined(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS)
	{ "tulip", RX_DEVICE, 1518, RX_PAD2,
	  "copies every frame it accepts (up to 1518 bytes) behind a literal 2" },
#else
	{ "tulip", RX_DEVICE, 99, RX_PAD2,
	  "copies below its copybreak of 100 behind a literal 2, above it no reserve" },
#endif
	/* sungem registers its driver as "gem" */
	{ "gem", RX_DEVICE, 256, RX_PAD2,
	  "the chip skips RX_OFFSET (2), no other headroom; copybreak behind a literal 2" },
	/* sunhme registers its PCI driver as "hme" */
	{ "hme", RX_DEVICE, 256, RX_PAD2,
	  "the chip skips RX_OFFSET (2) of the buffer; copybreak behind a literal 2" },
	{ "ibmveth", RX_HYPERVISOR, 0, RX_HYPERVISOR,
	  "the hypervisor writes into pool buffers without a reserve" },
	{ "macsonic", RX_DEVICE, 0, RX_DEVICE,
	  "the reserve follows the chip's 16/32-bit mode" },
	{ "sunlance", RX_PAD2, 0, RX_PAD2,
	  "copies every frame out of its ring behind skb_reserve(skb, 2)" },
};

/* A driver without a row: the arch's rule still judges its frames. */
static const struct rx_driver rx_unknown_driver = {
	"unknown", RX_DEVICE, 0, RX_DEVICE, "not in rx_drivers[]",
};

/* The NICs of this guest, found at suite init; the cases take them by index. */
#define RX_MAX_NICS 12

static unsigned int rx_expected_nics;
module_param_named(nics, rx_expected_nics, uint, 0444);
MODULE_PARM_DESC(nics, "NICs the guest was given: each must come up with a driver bound (0: any)");

/*
 * macb appends the FCS of a frame it is not asked to checksum in software,
 * and QEMU 7.2's GEM transmits no descriptor over 1518 bytes: a tagged
 * 1518-byte frame never leaves.  Without checksum offload the MAC appends
 * the FCS itself.  Only the sending side changes; what is judged is receive.
 */
static bool rx_tx_csum = true;
module_param_named(tx_csum, rx_tx_csum, bool, 0444);
MODULE_PARM_DESC(tx_csum, "N: the NICs send without checksum offload, as after ethtool -K tx off");

struct rx_nic {
	struct net_device *dev;
	const struct rx_driver *drv;
	char desc[KUNIT_PARAM_DESC_SIZE];
};

static struct rx_nic rx_nics[RX_MAX_NICS];
static unsigned int rx_nr_nics;

static const char *rx_driver_name(struct net_device *dev)
{
	struct device *parent = dev->dev.parent;

	/* virtio_net binds to the virtio device below the PCI one */
	return parent && parent->driver ? parent->driver->name : NULL;
}

static const struct rx_driver *rx_driver_of(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < ARRAY_SIZE(rx_drivers); i++)
		if (!strcmp(rx_drivers[i].name, name))
			return &rx_drivers[i];
	return &rx_unknown_driver;
}

static void rx_nics_down(void)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < rx_nr_nics; i++) {
		dev_close(rx_nics[i].dev);
		dev_put(rx_nics[i].dev);
	}
	rtnl_unlock();
	rx_nr_nics = 0;
}

static unsigned int rx_bound_nics(void)
{
	struct net_device *dev;
	unsigned int n = 0;

	rtnl_lock();
	for_each_netdev(&init_net, dev)
		if (dev->type == ARPHRD_ETHER && rx_driver_name(dev))
			n++;
	rtnl_unlock();
	return n;
}

/* Every Ethernet device a driver bound, brought up; then wait for links. */
static int rx_drivers_suite_init(struct kunit_suite *suite)
{
	struct net_device *dev;
	unsigned int i, waited;
	int err = 0;

	/* a USB NIC appears once its hub has enumerated it, after the initcalls */
	for (waited = 0; waited < 10000 && rx_bound_nics() < rx_expected_nics;
	     waited += 100)
		msleep(100);

	rx_nr_nics = 0;
	rtnl_lock();
	for_each_netdev(&init_net, dev) {
		const char *name = rx_driver_name(dev);

		if (dev->type != ARPHRD_ETHER || !name ||
		    rx_nr_nics == ARRAY_SIZE(rx_nics))
			continue;
		if (!rx_tx_csum) {
			dev->wanted_features &= ~NETIF_F_CSUM_MASK;
			netdev_update_features(dev);
		}
		err = dev_open(dev, NULL);
		if (err) {
			pr_warn("rx_align: %s (%s) does not come up: %d\n",
				dev->name, name, err);
			continue;
		}
		dev_hold(dev);
		rx_nics[rx_nr_nics].dev = dev;
		rx_nics[rx_nr_nics].drv = rx_driver_of(name);
		snprintf(rx_nics[rx_nr_nics].desc, KUNIT_PARAM_DESC_SIZE,
			 "%s", name);
		rx_nr_nics++;
	}
	rtnl_unlock();

	/* autonegotiation under QEMU takes a watchdog period or two */
	for (waited = 0; waited < 10000; waited += 100) {
		for (i = 0; i < rx_nr_nics; i++)
			if (!netif_carrier_ok(rx_nics[i].dev))
				break;
		if (i == rx_nr_nics)
			break;
		msleep(100);
	}
	return 0;
}

static void rx_drivers_suite_exit(struct kunit_suite *suite)
{
	rx_nics_down();
}

/*
 * The devices exist only once the guest has probed them, so the
 * parameters come from the list suite init made, not from a const table.
 */
static const void *rx_nic_gen_params(struct kunit *test, const void *prev,
				     char *desc)
{
	const struct rx_nic *nic = prev ? (const struct rx_nic *)prev + 1 : rx_nics;

	if (nic >= rx_nics + rx_nr_nics)
		return NULL;
	strscpy(desc, nic->desc, KUNIT_PARAM_DESC_SIZE);
	return nic;
}

struct rx_driver_frame {
	enum rx_frame frame;
	unsigned int len;
};

/* How often a frame is sent before it counts as lost. */
#define RX_SENDS 3

/* Below and above every copybreak in the table, and a full frame. */
static const struct rx_driver_frame rx_driver_frames[] = {
	{ RX_IPV4, ETH_ZLEN }, { RX_IPV4, 150 }, { RX_IPV4, 400 },
	{ RX_IPV4, ETH_FRAME_LEN }, { RX_IPV6, 150 }, { RX_IPV6, ETH_FRAME_LEN },
	{ RX_VLAN_IPV4, ETH_FRAME_LEN + VLAN_HLEN },
};

static_assert(ARRAY_SIZE(rx_driver_frames) * RX_SENDS <= RX_TAP_MAX);

/* A frame as the sender's stack hands it to its driver. */
static struct sk_buff *rx_driver_tx_skb(struct net_device *dev,
					const struct rx_driver_frame *f,
					const u8 *dest)
{
	unsigned int hh = LL_RESERVED_SPACE_EXTRA(dev, VLAN_HLEN);
	struct sk_buff *skb = alloc_skb(hh + f->len, GFP_KERNEL);

	if (!skb)
		return NULL;
	skb_reserve(skb, hh);
	rx_align_fill_frame(skb_put(skb, f->len), f->frame, f->len, dest);
	skb->dev = dev;
	skb->protocol = ((struct ethhdr *)skb->data)->h_proto;
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, rx_frame_hlen(f->frame));
	return skb;
}

/*
 * Senders whose transmit path keeps up with one frame at a time.  hme
 * first: on QEMU's sun4u, e1000's transmit queue stalls after one frame
 * (NETDEV WATCHDOG, and the reset takes its link) and virtio_net's frames
 * arrive late or not at all; hme's arrive, and only sun4u has one.
 */
static const char * const rx_senders[] = { "hme", "virtio_net", "e1000e", "e1000" };

static struct net_device *rx_sender_for(const struct rx_nic *rx)
{
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(rx_senders); j++)
		for (i = 0; i < rx_nr_nics; i++)
			if (&rx_nics[i] != rx &&
			    !strcmp(rx_nics[i].desc, rx_senders[j]))
				return rx_nics[i].dev;
	for (i = 0; i < rx_nr_nics; i++)
		if (&rx_nics[i] != rx)
			return rx_nics[i].dev;
	/* the only NIC: it sends to itself (the tap ignores outgoing frames) */
	return rx->dev;
}

/* A device that filters VLANs in hardware drops a VID nobody registered. */
static bool rx_drops_vlan(const struct net_device *dev,
			  const struct rx_driver_frame *f)
{
	return f->frame == RX_VLAN_IPV4 &&
	       (dev->features & NETIF_F_HW_VLAN_CTAG_FILTER);
}

static bool rx_seen_frame(const struct rx_tap *tap,
			  const struct rx_driver_frame *f)
{
	unsigned int i;

	for (i = 0; i < tap->n; i++)
		if (tap->frames[i].frame == f->frame && tap->frames[i].len == f->len)
			return true;
	return false;
}

static void rx_driver_frame_check(struct kunit *test, const struct rx_nic *nic,
				  const struct rx_tap_seen *seen, long long fixups)
{
	const struct rx_driver *drv = nic->drv;
	bool copied = seen->len <= drv->copy_max;
	enum rx_class class = copied ? drv->copied : drv->class;
	bool ok = true;
	char what[96];

	snprintf(what, sizeof(what), "driver %s, %s %u-byte frame (%s)",
		 nic->desc, rx_align_frame_names[seen->frame], seen->len,
		 copied ? "copied" : "its rx buffer");
	/* the one rule, for every frame: the CPU decides what a 2-off costs */
	if (!IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) &&
	    class != RX_HYPERVISOR) {
		ok = seen->nh % 4 == 0;
		KUNIT_EXPECT_EQ_MSG(test, seen->nh % 4, 0,
				    "arch %s has no efficient unaligned access: %s reached the stack with its IP header %lu past a 4-byte boundary",
				    rx_arch(), what, seen->nh % 4);
	}
	if (class == RX_IP_ALIGN) {
		ok = ok && seen->nh % 4 == rx_nh_want();
		RX_EXPECT_NH(test, (void *)seen->nh, what);
	}
	/*
	 * Where the buffer starts: NET_IP_ALIGN into a cache line, the offset
	 * the arch chose (0: DMA of whole lines).  Untagged frames only: the
	 * MAC header of a tagged one may have moved when the tag came off.
	 */
	if (class == RX_IP_ALIGN && seen->frame != RX_VLAN_IPV4 &&
	    drv->dma_lead != RX_LEAD_VARIES) {
		unsigned long start = (seen->mac - drv->dma_lead) % L1_CACHE_BYTES;

		ok = ok && start == NET_IP_ALIGN;
		KUNIT_EXPECT_EQ_MSG(test, start, (unsigned long)NET_IP_ALIGN,
				    RX_AT
				    "the buffer starts %lu bytes into a %d-byte cache line, not NET_IP_ALIGN (%d) bytes",
				    rx_arch(), what, start, L1_CACHE_BYTES, NET_IP_ALIGN);
	} else if (class == RX_PAD2) {
		ok = ok && seen->nh % 4 == 0;
		KUNIT_EXPECT_EQ_MSG(test, seen->nh % 4, 0,
				    RX_AT
				    "copied behind a literal 2, the IP header should be 4-byte aligned, it is %lu past",
				    rx_arch(), what, seen->nh % 4);
	}
	RX_EXPECT_SHINFO(test, seen->shinfo, what);
	if (fixups > 0) {
		ok = false;
		KUNIT_FAIL(test, RX_AT "receiving it took %lld unaligned-access fixup(s)",
			   rx_arch(), what, fixups);
	}
	kunit_info(test,
		   "rx_align_frame: driver=%s path=%s frame=%s len=%u class=%s band=%s headroom=%u mac_line_off=%lu nh_mod4=%lu head_frag=%d pp_recycle=%d fixups=%lld verdict=%s\n",
		   drv == &rx_unknown_driver ? nic->desc : drv->name, nic->desc,
		   rx_align_frame_names[seen->frame], seen->len, rx_class_names[class],
		   copied ? "copied" : "buffer", seen->headroom,
		   seen->mac % L1_CACHE_BYTES, seen->nh % 4, seen->head_frag,
		   seen->pp_recycle, fixups,
		   class == RX_HYPERVISOR ? "recorded" : !ok ? "fail" :
		   seen->nh % 4 ? "pass-cost" : "pass");
}

static void rx_driver_frames_case(struct kunit *test)
{
	const struct rx_nic *nic = test->param_value;
	struct net_device *tx = rx_sender_for(nic);
	const struct rx_driver_frame *sent[ARRAY_SIZE(rx_driver_frames)];
	long long fixups[ARRAY_SIZE(rx_driver_frames)];
	struct rtnl_link_stats64 rx_stats, tx_stats;
	unsigned int i, j, try, want = 0;
	struct rx_align_fixups *counter;
	struct rx_tap *tap;
	u64 before;

	/* a NIC that was bound but has no link is a driver nobody judged */
	if (!netif_carrier_ok(nic->dev) || !netif_carrier_ok(tx)) {
		KUNIT_FAIL(test, "arch %s: no link on %s (%s) or %s, its sender: no frame judged",
			   rx_arch(), nic->dev->name, nic->desc, tx->name);
		return;
	}

	tap = rx_align_tap_add(test, nic->dev, 0, false, false);
	/*
	 * A frame is received in softirq context, not in this task: count on
	 * every CPU, around each send until its frame arrived.
	 */
	counter = rx_align_fixups_get(test, true);
	for (i = 0; i < ARRAY_SIZE(rx_driver_frames); i++) {
		const struct rx_driver_frame *f = &rx_driver_frames[i];
		struct sk_buff *skb;
		int err;

		if (rx_drops_vlan(nic->dev, f)) {
			kunit_info(test, "%s filters VLANs in hardware: no %s frame\n",
				   nic->dev->name, rx_align_frame_names[f->frame]);
			continue;
		}
		fixups[want] = -1;	/* no counter: printed as -1, not judged */
		sent[want++] = f;
		before = counter ? rx_align_fixups_read(counter) : 0;
		/*
		 * Small rings and lazy interrupts under TCG: one at a time.  A
		 * NIC may drop frames while it reloads its filter (tulip's setup
		 * frame, as IPv6 joins its groups after link up), and sun4u's
		 * virtio_net transmits late: resend a frame not seen, waiting
		 * longer each time, and fail it only when no send arrived.
		 */
		for (try = 0; try < RX_SENDS && !rx_seen_frame(tap, f); try++) {
			if (try)
				kunit_info(test, "%s: %s %u-byte frame not seen, sent again\n",
					   nic->dev->name, rx_align_frame_names[f->frame], f->len);
			skb = rx_driver_tx_skb(tx, f, nic->dev->dev_addr);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			reinit_completion(&tap->seen);
			tap->want = tap->n + 1;
			err = dev_queue_xmit(skb);
			KUNIT_EXPECT_EQ_MSG(test, err, NET_XMIT_SUCCESS,
					    "%s: sending the %s %u-byte frame: %d", tx->name,
					    rx_align_frame_names[f->frame], f->len, err);
			wait_for_completion_timeout(&tap->seen, (HZ / 2) << try);
		}
		if (counter)
			fixups[want - 1] = rx_align_fixups_read(counter) - before;
	}
	if (nic->drv == &rx_unknown_driver)
		KUNIT_FAIL(test,
			   "arch %s: %s is bound to %s, which has no row in rx_drivers[] (rx_align_drivers_kunit.c): read how it receives and add one",
			   rx_arch(), nic->dev->name, nic->desc);
	/* a frame not judged is a hole a bug walks through */
	for (i = 0; i < want; i++)
		if (!rx_seen_frame(tap, sent[i]))
			KUNIT_FAIL(test, "arch %s: %s (%s) lost the %s %u-byte frame sent by %s%s",
				   rx_arch(), nic->dev->name, nic->desc,
				   rx_align_frame_names[sent[i]->frame], sent[i]->len,
				   tx == nic->dev ? "itself" : tx->name,
				   tx == nic->dev && !tap->n ?
				   " (nothing came back: is its link looped back?)" : "");
	for (i = 0; i < tap->n; i++) {
		const struct rx_tap_seen *seen = &tap->frames[i];

		for (j = 0; j < want; j++)
			if (sent[j]->frame == seen->frame && sent[j]->len == seen->len)
				break;
		rx_driver_frame_check(test, nic, seen, j < want ? fixups[j] : -1);
	}
	dev_get_stats(nic->dev, &rx_stats);
	dev_get_stats(tx, &tx_stats);
	kunit_info(test, "%s (%s), frames from %s: %s; rx %llu packets, %llu dropped, %llu errors, %llu missed; %s tx %llu packets, %llu errors\n",
		   nic->dev->name, nic->desc, tx->name, nic->drv->why,
		   rx_stats.rx_packets, rx_stats.rx_dropped, rx_stats.rx_errors,
		   rx_stats.rx_missed_errors, tx->name, tx_stats.tx_packets,
		   tx_stats.tx_errors);
}

/* Every NIC the guest was given has a driver that brought it up. */
static void rx_drivers_bound(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < rx_nr_nics; i++)
		kunit_info(test, "%s: %s, %s, carrier %d%s\n", rx_nics[i].dev->name,
			   rx_nics[i].desc, rx_class_names[rx_nics[i].drv->class],
			   netif_carrier_ok(rx_nics[i].dev),
			   rx_tx_csum ? "" : ", sends without checksum offload (tx_csum=0)");
	if (!rx_expected_nics)
		kunit_skip(test,
			   "%u NIC(s) found; the command line names no count (rx_align_drivers_kunit.nics=)",
			   rx_nr_nics);
	KUNIT_EXPECT_EQ_MSG(test, rx_nr_nics, rx_expected_nics,
			    "arch %s: %u of the %u NICs came up with a driver",
			    rx_arch(), rx_nr_nics, rx_expected_nics);
}

static struct kunit_case rx_drivers_cases[] = {
	KUNIT_CASE(rx_drivers_bound),
	KUNIT_CASE_PARAM(rx_driver_frames_case, rx_nic_gen_params),
	{}
};

static struct kunit_suite rx_drivers_suite = {
	.name = "net_rx_align_drivers",
	.suite_init = rx_drivers_suite_init,
	.suite_exit = rx_drivers_suite_exit,
	.test_cases = rx_drivers_cases,
};

kunit_test_suite(rx_drivers_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment in NIC drivers");
MODULE_LICENSE("GPL");
