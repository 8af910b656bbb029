// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment in real NIC drivers, for a
 * guest made for them: it takes over the NICs it is told to take (nics=,
 * by name or MAC address), sends frames between them and closes again
 * what it opened.  Nothing else is touched; without nics= every case
 * skips.
 *
 * The allocator suites prove what the allocators promise; what matters to
 * the stack is where a driver puts the frame it hands up.  Each case takes
 * one named NIC as the receiver, sends IPv4, IPv6 and 802.1Q frames of
 * several sizes to it from another (QEMU's NICs on one hub: -netdev
 * hubport), and records where the receiver's driver put each frame when
 * the stack parses it.  A guest with one NIC sends from that NIC to
 * itself, so its link must loop back (a -netdev socket on the hub whose
 * peer is its own address).
 *
 * Every frame is judged by one rule: where the CPU has no cheap unaligned
 * loads (no HAVE_EFFICIENT_UNALIGNED_ACCESS) it must reach the stack with
 * its IP header on a 4-byte boundary, whatever the driver.  On top of
 * that, what the driver promises, from reading it: a driver that reserves
 * NET_IP_ALIGN in front of a buffer the device writes, or that copies
 * into one, must put the IP header where the architecture asks; one that
 * copies behind a literal 2, or whose chip writes 2 bytes before the
 * frame, must put it on a 4-byte boundary everywhere.  Only where a
 * hypervisor owns the buffer is a frame recorded and not judged.  Every
 * frame sent must arrive, and a NIC whose driver has no row below fails.
 */

#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/delay.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/hex.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netdev_lock.h>

#include "rx_align.h"

enum rx_class {
	RX_IP_ALIGN,	/* NET_IP_ALIGN in front of the DMA or the copy */
	RX_PAD2,	/* a CPU copy behind a literal 2 */
	RX_SHIFT2,	/* the chip writes 2 bytes before the frame */
	RX_DEVICE,	/* the chip or no reserve decides: the arch's rule */
	RX_HYPERVISOR,	/* the hypervisor fills the buffer: recorded */
	RX_XDP,		/* a native XDP program ran first */
};

static const char * const rx_class_names[] = {
	[RX_IP_ALIGN] = "ip_align", [RX_PAD2] = "copy_pad2",
	[RX_SHIFT2] = "chip_shift2", [RX_DEVICE] = "device",
	[RX_HYPERVISOR] = "hypervisor", [RX_XDP] = "xdp",
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

/* How each driver of QEMU's emulated NICs receives, from reading it. */
static const struct rx_driver rx_drivers[] = {
	{ .name = "e1000", .class = RX_IP_ALIGN, .copy_max = 256,
	  .copied = RX_IP_ALIGN,
	  .why = "NET_SKB_PAD + NET_IP_ALIGN, napi_build_skb(), or a copy" },
	{ .name = "e1000e", .class = RX_IP_ALIGN, .copy_max = 256,
	  .copied = RX_IP_ALIGN,
	  .why = "__netdev_alloc_skb_ip_align(); copies to napi_alloc_skb()" },
	{ .name = "igb", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "build_skb(), written NET_IP_ALIGN past a line" },
	{ .name = "e100", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb_ip_align(), a 16-byte RFD before the frame",
	  .dma_lead = 16 },
	{ .name = "8139cp", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb_ip_align()" },
	/* refuses QEMU's rtl8139, a C+ chip: 8139cp drives it */
	{ .name = "8139too", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "copies out of the ring into napi_alloc_skb()" },
	{ .name = "pcnet32", .class = RX_IP_ALIGN, .copy_max = 200,
	  .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb() + NET_IP_ALIGN; copybreak into the same" },
	{ .name = "vmxnet3", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "__netdev_alloc_skb_ip_align()" },
	/* mergeable buffers start with the 12-byte virtio_net_hdr */
	{ .name = "virtio_net", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "VIRTNET_RX_PAD (NET_IP_ALIGN + NET_SKB_PAD), or a copy",
	  .dma_lead = RX_LEAD_VARIES },
	{ .name = "ne2k-pci", .class = RX_PAD2, .copied = RX_PAD2,
	  .why = "lib8390 copies (PIO) behind skb_reserve(skb, 2)" },
	/* ne2k_isa: the same 8390 core, ne.c's ISA probe */
	{ .name = "ne", .class = RX_PAD2, .copied = RX_PAD2,
	  .why = "lib8390 copies (PIO) behind skb_reserve(skb, 2)" },
	{ .name = "smc91x", .class = RX_PAD2, .copied = RX_PAD2,
	  .why = "copies (PIO) behind skb_reserve(skb, 2)" },
	/* usbnet, for QEMU's usb-net in its CDC Ethernet configuration */
	{ .name = "cdc_ether", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "usbnet's __netdev_alloc_skb_ip_align(), the URB fills it" },
	{ .name = "smsc911x", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "the FIFO hands NET_IP_ALIGN pad bytes first (RX_CFG)" },
	{ .name = "calxedaxgmac", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb_ip_align()" },
	{ .name = "ftgmac100", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb_ip_align()" },
	/* Zynq's GEM (gem_rx_refill()) */
	{ .name = "macb", .class = RX_IP_ALIGN, .copied = RX_IP_ALIGN,
	  .why = "netdev_alloc_skb(), the MAC writes NET_IP_ALIGN in (RBOF)" },
	/*
	 * i.MX6/7/8 have RACC: SHIFT16 is set whatever NET_IP_ALIGN is.  The
	 * i.MX25/27 have none: the driver moves the frame up NET_IP_ALIGN
	 * where loads are not cheap (ARMv5).
	 */
	{ .name = "fec", .class = RX_SHIFT2, .copied = RX_SHIFT2,
	  .why = "the MAC shifts it 2 (RACC SHIFT16), or the driver moves it" },
	/* tulip_core.c's default rx_copybreak: PKT_BUF_SZ here, else 100 */
#if defined(__arm__) || !defined(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS)
	{ .name = "tulip", .class = RX_DEVICE, .copy_max = 1518,
	  .copied = RX_PAD2,
	  .why = "copies every frame (up to 1518 bytes) behind a literal 2" },
#else
	{ .name = "tulip", .class = RX_DEVICE, .copy_max = 99,
	  .copied = RX_PAD2,
	  .why = "copies below 100 bytes behind a literal 2, else no reserve" },
#endif
	/* sungem registers its driver as "gem" */
	{ .name = "gem", .class = RX_SHIFT2, .copy_max = 256, .copied = RX_PAD2,
	  .why = "the chip skips RX_OFFSET (2); copies behind a literal 2" },
	/* sunhme registers its PCI driver as "hme" */
	{ .name = "hme", .class = RX_SHIFT2, .copy_max = 256, .copied = RX_PAD2,
	  .why = "the chip skips RX_OFFSET (2); copies behind a literal 2" },
	{ .name = "ibmveth", .class = RX_HYPERVISOR, .copied = RX_HYPERVISOR,
	  .why = "the hypervisor writes into pool buffers without a reserve" },
	{ .name = "macsonic", .class = RX_DEVICE, .copied = RX_DEVICE,
	  .why = "the reserve follows the chip's 16/32-bit mode" },
	{ .name = "sunlance", .class = RX_PAD2, .copied = RX_PAD2,
	  .why = "copies every frame behind skb_reserve(skb, 2)" },
};

/* A driver without a row: the arch's rule still judges its frames. */
static const struct rx_driver rx_unknown_driver = {
	.name = "unknown", .class = RX_DEVICE, .copied = RX_DEVICE,
	.why = "not in rx_drivers[]",
};

#define RX_MAX_NICS 12

/*
 * The NICs to take over, by name or MAC address: nothing else is opened
 * or sent on.
 */
static char *rx_named[RX_MAX_NICS];
static unsigned int rx_nr_named;
module_param_array_named(nics, rx_named, charp, &rx_nr_named, 0444);
MODULE_PARM_DESC(nics,
		 "the NICs to test, by name or MAC address (eth0,52:54:00:12:34:01): each is opened, sent frames and, if it was down, closed again");

/*
 * A device the guest brought up before the suite and did not name: it
 * must be found up, and left so (net_rx_align_drivers_bystanders).
 */
static char *rx_up_before;
module_param_named(up_before, rx_up_before, charp, 0444);
MODULE_PARM_DESC(up_before,
		 "a NIC (name or MAC address) the guest brought up and did not name: it must stay up");

/*
 * macb appends the FCS of a frame it is not asked to checksum in software,
 * and QEMU 7.2's GEM transmits no descriptor over 1518 bytes: a tagged
 * 1518-byte frame never leaves.  Without checksum offload the MAC appends
 * the FCS itself.  Only the sending side changes; what is judged is receive.
 */
static bool rx_tx_csum = true;
module_param_named(tx_csum, rx_tx_csum, bool, 0444);
MODULE_PARM_DESC(tx_csum,
		 "N: the named NICs send without checksum offload, as after ethtool -K tx off");

struct rx_nic {
	struct net_device *dev;
	const struct rx_driver *drv;
	bool opened;			/* it was down: we close it again */
	netdev_features_t wanted;	/* its wanted_features, to restore */
	char desc[KUNIT_PARAM_DESC_SIZE];
	char xdp_desc[KUNIT_PARAM_DESC_SIZE];	/* its frames with XDP */
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

/* A case name per NIC: the driver's, numbered from its second NIC on. */
static void rx_nic_desc(struct rx_nic *nic, const char *driver)
{
	unsigned int i, same = 0;

	for (i = 0; i < rx_nr_nics; i++)
		if (rx_nics[i].drv == nic->drv &&
		    !strcmp(rx_driver_name(rx_nics[i].dev) ?: "", driver))
			same++;
	if (same)
		snprintf(nic->desc, sizeof(nic->desc), "%s_%u", driver,
			 same + 1);
	else
		strscpy(nic->desc, driver, sizeof(nic->desc));
	snprintf(nic->xdp_desc, sizeof(nic->xdp_desc), "%s+xdp", nic->desc);
}

static void rx_nic_set_csum(struct net_device *dev, netdev_features_t wanted)
{
	dev->wanted_features = wanted;
	netdev_lock_ops(dev);
	netdev_update_features(dev);
	netdev_unlock_ops(dev);
}

/* Put every NIC back as it was found. */
static void rx_nics_release(void)
{
	unsigned int i;

	rtnl_lock();
	for (i = 0; i < rx_nr_nics; i++) {
		struct rx_nic *nic = &rx_nics[i];

		if (nic->dev->wanted_features != nic->wanted)
			rx_nic_set_csum(nic->dev, nic->wanted);
		if (nic->opened)
			dev_close(nic->dev);
		dev_put(nic->dev);
	}
	rtnl_unlock();
	rx_nr_nics = 0;
}

/* The device @name names: an interface name or a MAC address.  RTNL. */
static struct net_device *rx_named_dev(const char *name)
{
	struct net_device *dev;
	u8 mac[ETH_ALEN];

	if (!mac_pton(name, mac))
		return __dev_get_by_name(&init_net, name);
	for_each_netdev(&init_net, dev)
		if (dev->type == ARPHRD_ETHER &&
		    ether_addr_equal_unaligned(dev->perm_addr, mac))
			return dev;
	return NULL;
}

/* Every named NIC exists with a driver bound: USB ones come late. */
static bool rx_named_nics_present(void)
{
	struct net_device *dev;
	unsigned int i;
	bool all = true;

	rtnl_lock();
	for (i = 0; i < rx_nr_named && all; i++) {
		dev = rx_named_dev(rx_named[i]);
		all = dev && rx_driver_name(dev);
	}
	rtnl_unlock();
	return all;
}

/* Take one named NIC: open it if it is down, note how to put it back. */
static void rx_nic_take(struct net_device *dev)
{
	struct rx_nic *nic = &rx_nics[rx_nr_nics];
	const char *name = rx_driver_name(dev);
	int err;

	if (dev->type != ARPHRD_ETHER || !name) {
		pr_warn("rx_align: %s is no Ethernet device with a driver: not tested\n",
			dev->name);
		return;
	}
	nic->dev = dev;
	nic->drv = rx_driver_of(name);
	nic->wanted = dev->wanted_features;
	nic->opened = !(dev->flags & IFF_UP);
	if (!rx_tx_csum)
		rx_nic_set_csum(dev, nic->wanted & ~NETIF_F_CSUM_MASK);
	err = dev_open(dev, NULL);
	if (err) {
		pr_warn("rx_align: %s (%s) does not come up: %d\n",
			dev->name, name, err);
		if (nic->wanted != dev->wanted_features)
			rx_nic_set_csum(dev, nic->wanted);
		return;
	}
	dev_hold(dev);
	rx_nic_desc(nic, name);
	rx_nr_nics++;
}

/*
 * Every other Ethernet device, and what happened to it while the suite
 * ran: a bystander is never opened, closed or reconfigured by it, which
 * net_rx_align_drivers_bystanders checks once the drivers suite put its NICs
 * back.
 */
struct rx_bystander {
	struct net_device *dev;		/* NULL once unregistered */
	char name[IFNAMSIZ];
	u8 mac[ETH_ALEN] __aligned(2);
	bool up;			/* as found */
	unsigned int touched;		/* state changes seen since */
	unsigned long last;		/* the last of them */
};

static struct rx_bystander rx_bystanders[RX_MAX_NICS];
static unsigned int rx_nr_bystanders;
/* The notifier's (un)registration replays events: not ours to count. */
static bool rx_watching;

static int rx_bystander_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	unsigned int i;

	if (!READ_ONCE(rx_watching))
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_UP: case NETDEV_GOING_DOWN: case NETDEV_DOWN:
	case NETDEV_FEAT_CHANGE: case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR: case NETDEV_UNREGISTER:
		break;
	default:
		return NOTIFY_DONE;
	}
	for (i = 0; i < rx_nr_bystanders; i++) {
		if (rx_bystanders[i].dev != dev)
			continue;
		rx_bystanders[i].touched++;
		rx_bystanders[i].last = event;
		if (event == NETDEV_UNREGISTER)
			rx_bystanders[i].dev = NULL;
	}
	return NOTIFY_DONE;
}

static struct notifier_block rx_bystander_nb = {
	.notifier_call = rx_bystander_event,
};

static bool rx_is_named(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < rx_nr_named; i++)
		if (rx_named_dev(rx_named[i]) == dev)
			return true;
	return false;
}

/* Before anything is touched: the devices to leave alone, as they are. */
static void rx_bystanders_record(void)
{
	struct rx_bystander *b;
	struct net_device *dev;

	rx_nr_bystanders = 0;
	rtnl_lock();
	for_each_netdev(&init_net, dev) {
		if (dev->type != ARPHRD_ETHER || rx_is_named(dev) ||
		    rx_nr_bystanders == ARRAY_SIZE(rx_bystanders))
			continue;
		b = &rx_bystanders[rx_nr_bystanders++];
		b->dev = dev;
		strscpy(b->name, dev->name, sizeof(b->name));
		ether_addr_copy(b->mac, dev->perm_addr);
		b->up = dev->flags & IFF_UP;
		b->touched = 0;
	}
	WRITE_ONCE(rx_watching, true);
	rtnl_unlock();
}

static int rx_drivers_suite_init(struct kunit_suite *suite)
{
	struct net_device *dev;
	unsigned int i, waited;

	for (waited = 0; waited < 10000 && !rx_named_nics_present();
	     waited += 100)
		msleep(100);

	/* the events a registration replays come before the record */
	if (register_netdevice_notifier(&rx_bystander_nb))
		pr_warn("rx_align: no netdevice notifier: bystanders unwatched\n");
	rx_bystanders_record();
	rx_nr_nics = 0;
	rtnl_lock();
	for (i = 0; i < rx_nr_named; i++) {
		dev = rx_named_dev(rx_named[i]);
		if (dev)
			rx_nic_take(dev);
		else
			pr_warn("rx_align: no device %s\n", rx_named[i]);
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
	rx_nics_release();
	/* what the release did to a bystander is counted by now */
	WRITE_ONCE(rx_watching, false);
	unregister_netdevice_notifier(&rx_bystander_nb);
}

/*
 * A case whose generator yields nothing is skipped without a reason: where
 * no NIC qualifies, the generator yields this one parameter instead, and
 * the case skips saying why.
 */
static const struct rx_nic rx_no_nic;

/*
 * The devices exist only once the guest has probed them, so the
 * parameters come from the list suite init made, not from a const table.
 */
static const void *rx_nic_gen_params(struct kunit *test, const void *prev,
				     char *desc)
{
	const struct rx_nic *nic = prev ? (const struct rx_nic *)prev + 1 :
					  rx_nics;

	if (prev == &rx_no_nic)
		return NULL;
	if (!prev && !rx_nr_nics) {
		strscpy(desc, "none", KUNIT_PARAM_DESC_SIZE);
		return &rx_no_nic;
	}
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
	/* e1000's copybreak of 256, with or without the FCS counted */
	{ RX_IPV4, 252 }, { RX_IPV4, 257 },
	{ RX_IPV4, ETH_FRAME_LEN }, { RX_IPV6, 150 },
	{ RX_IPV6, ETH_FRAME_LEN },
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
static const char * const rx_senders[] = {
	"hme", "virtio_net", "e1000e", "e1000",
};

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

/*
 * A device that filters VLANs in hardware drops a VID nobody registered:
 * register the frames' VID (100) for the case, where 8021q can program the
 * filter; without it the tagged frame is not sent.
 */
#define RX_VID 100

static void rx_vid_del(void *dev)
{
	rtnl_lock();
	vlan_vid_del(dev, htons(ETH_P_8021Q), RX_VID);
	rtnl_unlock();
}

static bool rx_accepts_vlan(struct kunit *test, struct net_device *dev)
{
	int err;

	if (!(dev->features & NETIF_F_HW_VLAN_CTAG_FILTER))
		return true;
	if (!IS_ENABLED(CONFIG_VLAN_8021Q))
		return false;
	rtnl_lock();
	err = vlan_vid_add(dev, htons(ETH_P_8021Q), RX_VID);
	rtnl_unlock();
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "%s: vlan_vid_add(%u): %d",
			    dev->name, RX_VID, err);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_vid_del, dev),
			0);
	return true;
}

static bool rx_seen_frame(const struct rx_tap *tap,
			  const struct rx_driver_frame *f)
{
	unsigned int i;

	for (i = 0; i < tap->n; i++)
		if (tap->frames[i].frame == f->frame &&
		    tap->frames[i].len == f->len)
			return true;
	return false;
}

/* What a frame's class promises for its network header. */
static enum rx_align_rule rx_class_rule(enum rx_class class)
{
	switch (class) {
	case RX_IP_ALIGN:
	case RX_XDP:
		return RX_RULE_IP_ALIGN;
	case RX_PAD2:
	case RX_SHIFT2:
		return RX_RULE_WORD;
	case RX_DEVICE:
		/* the one rule: the CPU decides what a 2-off costs */
		if (!IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS))
			return RX_RULE_WORD;
		return RX_RULE_NONE;
	default:
		return RX_RULE_NONE;
	}
}

enum rx_frame_fault {
	RX_FAULT_NH = BIT(0),		/* the network header, by its rule */
	RX_FAULT_DMA = BIT(1),		/* where the buffer starts */
	RX_FAULT_SHINFO = BIT(2),
	RX_FAULT_FIXUPS = BIT(3),	/* receiving it took fixups */
};

/*
 * Judge one frame: what each check found, in one place, for the case's
 * failures and the frame's log line alike.
 */
static void rx_driver_frame_check(struct kunit *test, const struct rx_nic *nic,
				  const struct rx_align_seen *seen,
				  long long fixups, bool xdp)
{
	const struct rx_driver *drv = nic->drv;
	bool copied = !xdp && seen->len <= drv->copy_max;
	enum rx_class class = xdp ? RX_XDP : copied ? drv->copied : drv->class;
	enum rx_align_rule rule = rx_class_rule(class);
	int want = rx_align_want(rule, 0);
	/* NET_IP_ALIGN into a cache line, the offset the arch chose */
	unsigned long start = (seen->mac - drv->dma_lead) % L1_CACHE_BYTES;
	unsigned int faults = 0;
	char what[64], extra[96];

	if (want >= 0 && seen->nh % 4 != want)
		faults |= RX_FAULT_NH;
	/* untagged frames only: a tagged one's MAC header may have moved */
	if (class == RX_IP_ALIGN && seen->frame != RX_VLAN_IPV4 &&
	    drv->dma_lead != RX_LEAD_VARIES && start != NET_IP_ALIGN)
		faults |= RX_FAULT_DMA;
	if (!IS_ALIGNED(seen->shinfo, RX_SHINFO_ALIGN))
		faults |= RX_FAULT_SHINFO;
	if (fixups > 0)
		faults |= RX_FAULT_FIXUPS;

	snprintf(what, sizeof(what), "%s %u-byte frame (%s)",
		 rx_align_frame_names[seen->frame], seen->len,
		 xdp ? "native XDP" : copied ? "copied" : "its rx buffer");
	snprintf(extra, sizeof(extra),
		 "driver=%s class=%s band=%s fixups=%lld", drv->name,
		 rx_class_names[class],
		 xdp ? "xdp" : copied ? "copied" : "buffer", fixups);
	rx_align_report_frame(test, xdp ? nic->xdp_desc : nic->desc,
			      rx_align_frame_names[seen->frame], seen, rule,
			      want, faults, extra);
	if (faults & RX_FAULT_NH)
		KUNIT_FAIL(test, "arch %s, %s, %s: " RX_NH_FMT, rx_arch(),
			   nic->desc, what, seen->nh & ~PAGE_MASK,
			   seen->nh % 4, rx_align_rule_name(rule), want);
	if (faults & RX_FAULT_DMA)
		KUNIT_FAIL(test,
			   "arch %s, %s, %s: the buffer starts %lu bytes into a %d-byte cache line, not NET_IP_ALIGN (%d) bytes",
			   rx_arch(), nic->desc, what, start, L1_CACHE_BYTES,
			   NET_IP_ALIGN);
	if (faults & RX_FAULT_SHINFO)
		KUNIT_FAIL(test, "arch %s, %s, %s: " RX_SHINFO_FMT, rx_arch(),
			   nic->desc, what, seen->shinfo & ~PAGE_MASK,
			   RX_SHINFO_ALIGN);
	if (faults & RX_FAULT_FIXUPS)
		KUNIT_FAIL(test,
			   "arch %s, %s, %s: receiving it took %lld unaligned-access fixup(s)",
			   rx_arch(), nic->desc, what, fixups);
}

/* One frame sent to a NIC, until it was seen or RX_SENDS sends were lost. */
struct rx_sent {
	const struct rx_driver_frame *f;
	unsigned int sends;	/* 0: an earlier send of its kind was seen */
	long long fixups;	/* while it was received; -1: not counted */
};

/*
 * Small rings and lazy interrupts under TCG: one frame at a time.  A NIC
 * may drop frames while it reloads its filter (tulip's setup frame, as
 * IPv6 joins its groups after link up), and sun4u's virtio_net transmits
 * late: resend a frame not seen, waiting longer each time; it is lost
 * only when no send arrived.  Returns how many sends it took.
 */
static unsigned int rx_send_until_seen(struct kunit *test,
				       const struct rx_nic *nic,
				       struct net_device *tx,
				       struct rx_tap *tap,
				       const struct rx_driver_frame *f)
{
	const char *kind = rx_align_frame_names[f->frame];
	struct sk_buff *skb;
	unsigned int try;
	int err;

	for (try = 0; try < RX_SENDS && !rx_seen_frame(tap, f); try++) {
		skb = rx_driver_tx_skb(tx, f, nic->dev->dev_addr);
		KUNIT_ASSERT_NOT_NULL(test, skb);
		reinit_completion(&tap->seen);
		tap->want = tap->n + 1;
		err = dev_queue_xmit(skb);
		KUNIT_EXPECT_EQ_MSG(test, err, NET_XMIT_SUCCESS,
				    "%s: sending the %s %u-byte frame: %d",
				    tx->name, kind, f->len, err);
		wait_for_completion_timeout(&tap->seen, (HZ / 2) << try);
	}
	return try;
}

/*
 * What became of one frame sent, in the key=value form of the frame
 * lines: the harness counts sent, lost and resent frames from these.
 */
static void rx_report_sent(struct kunit *test, const struct rx_nic *nic,
			   const struct rx_sent *sent, bool arrived)
{
	kunit_info(test,
		   "rx_align_sent: nic=%s frame=%s len=%u sends=%u outcome=%s\n",
		   nic->desc, rx_align_frame_names[sent->f->frame],
		   sent->f->len, sent->sends, arrived ? "seen" : "lost");
}

/* Send every kind of frame to @nic and judge each one that arrived. */
static void rx_nic_frames(struct kunit *test, const struct rx_nic *nic,
			  bool xdp)
{
	struct net_device *tx = rx_sender_for(nic);
	struct rx_sent sent[ARRAY_SIZE(rx_driver_frames)];
	struct rtnl_link_stats64 rx_stats, tx_stats;
	const struct rx_align_seen *seen;
	struct rx_align_fixups *counter;
	unsigned int i, j, n = 0;
	struct rx_tap *tap;
	bool vlan_ok;
	u64 before;

	/* a NIC that was bound but has no link is a driver nobody judged */
	if (!netif_carrier_ok(nic->dev) || !netif_carrier_ok(tx)) {
		KUNIT_FAIL(test,
			   "arch %s: no link on %s (%s) or %s, its sender: no frame judged",
			   rx_arch(), nic->dev->name, nic->desc, tx->name);
		return;
	}

	vlan_ok = rx_accepts_vlan(test, nic->dev);
	tap = rx_align_tap_add(test, nic->dev, 0, false, false);
	/*
	 * A frame is received in softirq context, not in this task: count on
	 * every CPU, around each send until its frame arrived.
	 */
	counter = rx_align_fixups_new(test, true);
	for (i = 0; i < ARRAY_SIZE(rx_driver_frames); i++) {
		const struct rx_driver_frame *f = &rx_driver_frames[i];

		if (f->frame == RX_VLAN_IPV4 && !vlan_ok) {
			kunit_info(test, "%s filters VLANs in hardware, no 8021q: no tagged frame\n",
				   nic->desc);
			continue;
		}
		before = counter ? rx_align_fixups_read(counter) : 0;
		sent[n].sends = rx_send_until_seen(test, nic, tx, tap, f);
		sent[n].f = f;
		sent[n++].fixups = counter ?
				   rx_align_fixups_read(counter) - before : -1;
	}
	if (nic->drv == &rx_unknown_driver)
		KUNIT_FAIL(test,
			   "arch %s: %s is bound to %s, which has no row in rx_drivers[]: read how it receives and add one",
			   rx_arch(), nic->dev->name, nic->desc);
	/* a frame not judged is a hole a bug walks through */
	for (i = 0; i < n; i++) {
		bool arrived = rx_seen_frame(tap, sent[i].f);

		rx_report_sent(test, nic, &sent[i], arrived);
		if (!arrived)
			KUNIT_FAIL(test,
				   "arch %s: %s (%s) lost the %s %u-byte frame sent by %s%s",
				   rx_arch(), nic->dev->name, nic->desc,
				   rx_align_frame_names[sent[i].f->frame],
				   sent[i].f->len,
				   tx == nic->dev ? "itself" : tx->name,
				   tx == nic->dev && !tap->n ?
				   " (none came back: loop it back)" : "");
	}
	for (i = 0; i < tap->n; i++) {
		seen = &tap->frames[i];
		for (j = 0; j < n; j++)
			if (sent[j].f->frame == seen->frame &&
			    sent[j].f->len == seen->len)
				break;
		rx_driver_frame_check(test, nic, seen,
				      j < n ? sent[j].fixups : -1, xdp);
	}
	dev_get_stats(nic->dev, &rx_stats);
	dev_get_stats(tx, &tx_stats);
	kunit_info(test, "%s (%s), frames from %s: %s; rx %llu packets, %llu dropped, %llu errors, %llu missed; %s tx %llu packets, %llu errors\n",
		   nic->dev->name, nic->desc, tx->name, nic->drv->why,
		   rx_stats.rx_packets, rx_stats.rx_dropped, rx_stats.rx_errors,
		   rx_stats.rx_missed_errors, tx->name, tx_stats.tx_packets,
		   tx_stats.tx_errors);
}

static void rx_driver_frames_case(struct kunit *test)
{
	if (test->param_value == &rx_no_nic)
		kunit_skip(test,
			   "no NIC named: rx_align_drivers_kunit.nics= says which to take over");
	rx_nic_frames(test, test->param_value, false);
}

/* ---- The same frames with a native XDP program on the receiver ---- */

/* Attach @prog as the driver's native XDP program (dev_xdp_install()). */
static int rx_nic_xdp(struct net_device *dev, struct bpf_prog *prog,
		      struct netlink_ext_ack *extack)
{
	struct netdev_bpf bpf = {
		.command = XDP_SETUP_PROG, .prog = prog, .extack = extack,
	};
	int err;

	/* the driver owns a reference to its program and drops it later */
	if (prog)
		bpf_prog_inc(prog);
	rtnl_lock();
	netdev_lock_ops(dev);
	err = dev->netdev_ops->ndo_bpf(dev, &bpf);
	netdev_unlock_ops(dev);
	rtnl_unlock();
	if (err && prog)
		bpf_prog_put(prog);
	return err;
}

static void rx_nic_xdp_detach(void *dev)
{
	rx_nic_xdp(dev, NULL, NULL);
}

/* The receive ring's size, or 256 where the driver does not say. */
static unsigned int rx_nic_ring(struct net_device *dev)
{
	const struct ethtool_ops *ops = dev->ethtool_ops;
	struct kernel_ethtool_ringparam kring = {};
	struct ethtool_ringparam ring = {};

	if (ops && ops->get_ringparam) {
		rtnl_lock();
		ops->get_ringparam(dev, &ring, &kring, NULL);
		rtnl_unlock();
	}
	return ring.rx_pending ?: 256;
}

/*
 * The buffers a driver posted before its program was attached may lack
 * the XDP headroom (virtio_net keeps them, and copies each frame that
 * lands in one): send a ring's worth of frames first, so that the frames
 * judged land in buffers posted with the program on.  They are not
 * judged; the line says how many arrived.
 */
static void rx_nic_cycle_ring(struct kunit *test, const struct rx_nic *nic)
{
	const struct rx_driver_frame f = { RX_IPV4, ETH_ZLEN };
	struct net_device *tx = rx_sender_for(nic);
	unsigned int i, n = rx_nic_ring(nic->dev);
	struct rtnl_link_stats64 stats;
	u64 start, got = 0, last;
	unsigned int idle = 0;
	struct sk_buff *skb;

	dev_get_stats(nic->dev, &stats);
	start = stats.rx_packets;
	for (i = 0; i < n; i++) {
		skb = rx_driver_tx_skb(tx, &f, nic->dev->dev_addr);
		if (!skb || dev_queue_xmit(skb) != NET_XMIT_SUCCESS)
			break;
	}
	/* until they all arrived, or none came for a second */
	do {
		last = got;
		msleep(100);
		dev_get_stats(nic->dev, &stats);
		got = stats.rx_packets - start;
		idle = got == last ? idle + 1 : 0;
	} while (got < i && idle < 10);
	kunit_info(test, "%s: %llu of %u frames sent by %s arrived to cycle a %u-buffer ring\n",
		   nic->desc, got, i, tx->name, n);
}

/*
 * Where the driver runs a native XDP program, the kernel's XDP headroom
 * and the driver's own headers decide where the frame lands: a
 * "return XDP_PASS" program, and the frames judged by NET_IP_ALIGN.
 */
static void rx_driver_xdp_frames_case(struct kunit *test)
{
	const struct rx_nic *nic = test->param_value;
	struct netlink_ext_ack extack = {};
	struct bpf_prog *prog;
	int err;

	if (nic == &rx_no_nic)
		kunit_skip(test,
			   "arch %s: no NIC here has a driver with native XDP (ndo_bpf)",
			   rx_arch());
	prog = rx_align_xdp_pass_prog(test, false);
	err = rx_nic_xdp(nic->dev, prog, &extack);
	if (err)
		kunit_skip(test, "%s takes no XDP program here: %d%s%s",
			   nic->desc, err, extack._msg ? ": " : "",
			   extack._msg ?: "");
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_nic_xdp_detach,
							nic->dev), 0);
	rx_nic_cycle_ring(test, nic);
	rx_nic_frames(test, nic, true);
}

/* The NICs whose driver can run a native XDP program. */
static const void *rx_xdp_nic_gen_params(struct kunit *test, const void *prev,
					 char *desc)
{
	const struct rx_nic *nic = prev ? (const struct rx_nic *)prev + 1 :
					  rx_nics;

	if (prev == &rx_no_nic)
		return NULL;
	for (; nic < rx_nics + rx_nr_nics; nic++) {
		if (nic->dev->netdev_ops->ndo_bpf) {
			strscpy(desc, nic->desc, KUNIT_PARAM_DESC_SIZE);
			return nic;
		}
	}
	if (prev)
		return NULL;
	strscpy(desc, "none", KUNIT_PARAM_DESC_SIZE);
	return &rx_no_nic;
}

/* Every NIC named has a driver that brought it up. */
static void rx_drivers_bound(struct kunit *test)
{
	unsigned int i;

	if (!rx_nr_named)
		kunit_skip(test,
			   "no NIC named: rx_align_drivers_kunit.nics= says which to take over");
	for (i = 0; i < rx_nr_nics; i++)
		kunit_info(test, "%s: %s, %s, carrier %d, %s%s\n",
			   rx_nics[i].dev->name, rx_nics[i].desc,
			   rx_class_names[rx_nics[i].drv->class],
			   netif_carrier_ok(rx_nics[i].dev),
			   rx_nics[i].opened ? "opened" : "was up already",
			   rx_tx_csum ? "" : ", no tx checksum offload");
	KUNIT_EXPECT_EQ_MSG(test, rx_nr_nics, rx_nr_named,
			    "arch %s: %u of the %u NICs named came up with a driver",
			    rx_arch(), rx_nr_nics, rx_nr_named);
}

static struct kunit_case rx_drivers_cases[] = {
	KUNIT_CASE(rx_drivers_bound),
	KUNIT_CASE_PARAM(rx_driver_frames_case, rx_nic_gen_params),
	KUNIT_CASE_PARAM(rx_driver_xdp_frames_case, rx_xdp_nic_gen_params),
	{}
};

static struct kunit_suite rx_drivers_suite = {
	.name = "net_rx_align_drivers",
	.init = rx_align_watch_kernel,
	.suite_init = rx_drivers_suite_init,
	.suite_exit = rx_drivers_suite_exit,
	.test_cases = rx_drivers_cases,
};

/* Whether @name (or MAC) was recorded as a bystander that was up. */
static bool rx_bystander_up(const char *name)
{
	u8 mac[ETH_ALEN] __aligned(2);
	unsigned int i;
	bool by_mac = mac_pton(name, mac);

	for (i = 0; i < rx_nr_bystanders; i++) {
		const struct rx_bystander *b = &rx_bystanders[i];

		if (by_mac ? ether_addr_equal(b->mac, mac) :
			     !strcmp(b->name, name))
			return b->up;
	}
	return false;
}

/*
 * After the drivers suite put its NICs back: every device it was not told
 * to take is as it found it, never opened, closed or reconfigured.
 */
static void rx_bystanders_untouched(struct kunit *test)
{
	const struct rx_bystander *b;
	unsigned int i;

	if (!rx_nr_named)
		kunit_skip(test, "the drivers suite took no NIC (no nics=)");
	/*
	 * Skip before any expectation: KUnit reports a skip over a failure, so
	 * a bystander named up_before= that is gone must fail, not skip.
	 */
	if (!rx_nr_bystanders && !rx_up_before)
		kunit_skip(test, "no Ethernet device but the %u named",
			   rx_nr_named);
	if (rx_up_before)
		KUNIT_EXPECT_TRUE_MSG(test, rx_bystander_up(rx_up_before),
				      "arch %s: %s, named up_before=, was not a bystander found up",
				      rx_arch(), rx_up_before);
	for (i = 0; i < rx_nr_bystanders; i++) {
		b = &rx_bystanders[i];
		kunit_info(test, "%s: %s as found, %u state change(s) since\n",
			   b->name, b->up ? "up" : "down", b->touched);
		KUNIT_EXPECT_EQ_MSG(test, b->touched, 0,
				    "arch %s: %s, not named, changed state (%s) while the drivers suite ran",
				    rx_arch(), b->name,
				    netdev_cmd_to_name(b->last));
		KUNIT_EXPECT_TRUE_MSG(test, b->dev &&
				      !!(b->dev->flags & IFF_UP) == b->up,
				      "arch %s: %s was %s, not now", rx_arch(),
				      b->name, b->up ? "up" : "down");
	}
}

static struct kunit_case rx_bystanders_cases[] = {
	KUNIT_CASE(rx_bystanders_untouched),
	{}
};

static struct kunit_suite rx_bystanders_suite = {
	.name = "net_rx_align_drivers_bystanders",
	.init = rx_align_watch_kernel,
	.test_cases = rx_bystanders_cases,
};

kunit_test_suites(&rx_drivers_suite, &rx_bystanders_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment in NIC drivers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
