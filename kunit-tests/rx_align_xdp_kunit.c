// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for receive buffer alignment on the XDP paths, where the
 * kernel, not the driver, decides where a received frame lands:
 *
 *  - generic XDP copies an skb its program cannot handle in place into a
 *    page_pool buffer (skb_cow_data_for_xdp()) or grows its head;
 *  - veth copies every skb whose headroom is below XDP_PACKET_HEADROOM
 *    before running its native XDP program (skb_pp_cow_data());
 *  - an xdp_frame becomes an skb again in cpumap and veth
 *    (xdp_build_skb_from_frame()).
 *
 * Each case runs a real XDP program ("return XDP_PASS", run by the BPF
 * interpreter or JIT) on the real path and checks where the IP header is
 * when the frame reaches the stack, against the architecture's promise.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/if_link.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/page_pool/helpers.h>
#include <net/rtnetlink.h>
#include <net/sock.h>
#include <net/xdp.h>

#include "rx_align.h"

KUNIT_DEFINE_ACTION_WRAPPER(rx_free_netdev, free_netdev, struct net_device *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_kfree_skb, kfree_skb, struct sk_buff *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_page_pool_destroy, page_pool_destroy,
			    struct page_pool *);
KUNIT_DEFINE_ACTION_WRAPPER(rx_rxq_unreg, xdp_rxq_info_unreg,
			    struct xdp_rxq_info *);

/* ---- An XDP program, as the verifier would hand it to a driver ---- */

static void rx_bpf_prog_release(void *prog)
{
	/* With the bpf() syscall programs are refcounted, else simply freed. */
	if (IS_ENABLED(CONFIG_BPF_SYSCALL))
		bpf_prog_put(prog);
	else
		bpf_prog_free(prog);
}

/*
 * "return XDP_PASS".  @frags is what BPF_F_XDP_HAS_FRAGS at load time
 * sets: the program can take multi-buffer frames, so generic XDP copies
 * an skb it cannot run on in place instead of linearizing it.
 */
static struct bpf_prog *rx_xdp_pass_prog(struct kunit *test, bool frags)
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

/* An skb pointer that a path may replace: the cleanup frees the last one. */
static void rx_kfree_skb_ref(void *ref)
{
	kfree_skb(*(struct sk_buff **)ref);
}

static struct sk_buff **rx_skb_ref(struct kunit *test)
{
	struct sk_buff **ref = kunit_kzalloc(test, sizeof(*ref), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ref);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_kfree_skb_ref,
							ref), 0);
	return ref;
}

static struct net_device *rx_dummy_netdev(struct kunit *test)
{
	struct net_device *dev = alloc_netdev_dummy(0);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_free_netdev,
							dev), 0);
	return dev;
}

/* ---- Generic XDP: what __netif_receive_skb_core() runs ---- */

struct rx_generic_param {
	const char *name;
	bool frags;		/* the program takes multi-buffer frames */
	bool nonlinear;		/* the driver built the skb from page frags */
	enum rx_frame frame;
	unsigned int len;
	bool l3;		/* no MAC header: tun (IFF_TUN), ipip, WireGuard */
	unsigned int reserve;	/* more driver headroom (tun's is settable) */
};

static const struct rx_generic_param rx_generic_params[] = {
	{ "legacy_prog_linear_ipv4", false, false, RX_IPV4, ETH_FRAME_LEN },
	{ "legacy_prog_nonlinear_ipv4", false, true, RX_IPV4, ETH_FRAME_LEN },
	{ "frags_prog_linear_ipv4", true, false, RX_IPV4, ETH_FRAME_LEN },
	/* a small copy is a page_pool fragment, not a whole page */
	{ "frags_prog_linear_ipv4_min", true, false, RX_IPV4, ETH_ZLEN },
	{ "frags_prog_linear_ipv6", true, false, RX_IPV6, ETH_FRAME_LEN },
	{ "frags_prog_linear_vlan_ipv4", true, false, RX_VLAN_IPV4,
	  ETH_FRAME_LEN + VLAN_HLEN },
	{ "frags_prog_nonlinear_ipv4", true, true, RX_IPV4, ETH_FRAME_LEN },
	{ "frags_prog_nonlinear_ipv6", true, true, RX_IPV6, ETH_FRAME_LEN },
	/*
	 * The copy starts at the MAC header: without one, the IP header is
	 * first, and a pad meant for an Ethernet header would misalign it.
	 */
	{ "legacy_prog_l3_linear_ipv4", false, false, RX_IPV4, ETH_DATA_LEN,
	  .l3 = true },
	{ "frags_prog_l3_linear_ipv4", true, false, RX_IPV4, ETH_DATA_LEN,
	  .l3 = true },
	{ "frags_prog_l3_nonlinear_ipv6", true, true, RX_IPV6, ETH_DATA_LEN,
	  .l3 = true },
	/* tun's headroom follows ndo_set_rx_headroom(): not always aligned */
	{ "frags_prog_l3_linear_ipv4_headroom_2", true, false, RX_IPV4,
	  ETH_DATA_LEN, .l3 = true, .reserve = 2 },
};

KUNIT_ARRAY_PARAM_DESC(rx_generic, rx_generic_params, name);

/*
 * A driver's skb as netif_receive_skb() gets it: netdev_alloc_skb_ip_align()
 * with the whole frame, or (@nonlinear) the headers in the head and the
 * rest of the frame in a page fragment.  For a device without a MAC
 * header (@l3) the frame is what follows the Ethernet header, received as
 * tun does in IFF_TUN mode: behind NET_SKB_PAD, with no NET_IP_ALIGN.
 */
static struct sk_buff *rx_driver_skb(struct kunit *test, struct net_device *dev,
				     const struct rx_generic_param *p)
{
	unsigned int skip = p->l3 ? ETH_HLEN : 0;
	unsigned int len = p->len - skip;
	unsigned int head = p->nonlinear ? rx_frame_min(p->frame) - skip : len;
	struct sk_buff *skb;
	struct page *page;
	int room;
	u8 *buf;

	buf = kunit_kmalloc(test, p->len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	rx_align_fill_frame(buf, p->frame, p->len, dev->dev_addr);
	buf += skip;
	skb = p->l3 ? netdev_alloc_skb(dev, head + p->reserve) :
		      netdev_alloc_skb_ip_align(dev, head);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, p->reserve);
	/* what the allocator promised, before the frame goes in */
	room = skb_tailroom(skb);
	if (room < head) {
		kfree_skb(skb);
		KUNIT_FAIL(test,
			   "arch %s: netdev_alloc_skb(%u): tailroom %d is less than asked",
			   rx_arch(), head, room);
		return NULL;
	}
	skb_put_data(skb, buf, head);
	if (p->nonlinear) {
		page = dev_alloc_page();
		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		memcpy(page_address(page), buf + head, len - head);
		skb_add_rx_frag(skb, 0, page, 0, len - head, PAGE_SIZE);
	}
	return skb;
}

static void rx_generic_xdp(struct kunit *test)
{
	const struct rx_generic_param *p = test->param_value;
	struct bpf_prog *prog = rx_xdp_pass_prog(test, p->frags);
	struct net_device *dev = rx_dummy_netdev(test);
	struct sk_buff **skb = rx_skb_ref(test);
	struct rx_align_fixups *f = rx_align_fixups_get(test, false);
	unsigned long mac, nh, was;
	u32 act;

	*skb = rx_driver_skb(test, dev, p);
	KUNIT_ASSERT_NOT_NULL(test, *skb);

	/* the driver, then __netif_receive_skb_core() up to do_xdp_generic() */
	if (p->l3) {
		skb_reset_mac_header(*skb);
		(*skb)->protocol = rx_frame_proto(p->frame);
	} else {
		(*skb)->protocol = eth_type_trans(*skb, dev);
	}
	skb_reset_network_header(*skb);
	skb_reset_transport_header(*skb);
	skb_reset_mac_len(*skb);
	was = (unsigned long)skb_network_header(*skb);
	rcu_read_lock();
	local_bh_disable();
	act = do_xdp_generic(prog, skb);
	local_bh_enable();
	rcu_read_unlock();
	if (act != XDP_PASS)
		*skb = NULL;	/* dropped and freed */
	KUNIT_ASSERT_EQ_MSG(test, act, XDP_PASS,
			    "%s: generic XDP dropped the frame", p->name);

	/* ... and on from there: untag, then hand it to the protocol */
	if (eth_type_vlan((*skb)->protocol)) {
		*skb = skb_vlan_untag(*skb);
		KUNIT_ASSERT_NOT_NULL(test, *skb);
	}
	mac = rx_mac_start(*skb);
	nh = (unsigned long)skb_network_header(*skb);
	rx_align_report_frame(test, p->frags ? "generic_xdp_frags" : "generic_xdp",
			      p->name, (*skb)->len + (nh - mac),
			mac - (unsigned long)(*skb)->head, mac, nh,
			(*skb)->head_frag, (*skb)->pp_recycle);
	KUNIT_EXPECT_GE_MSG(test, mac - (unsigned long)(*skb)->head,
			    XDP_PACKET_HEADROOM,
			    "%s: the XDP program got less than XDP_PACKET_HEADROOM",
			    p->name);
	if (p->l3 && !(*skb)->pp_recycle)
		/* grown in place by a multiple of NET_SKB_PAD: where the driver put it */
		KUNIT_EXPECT_EQ_MSG(test, nh % 4, was % 4,
				    RX_AT
				    "the driver put the IP header %lu past a 4-byte boundary, the head grown in place %lu past (page offset %lu)",
				    rx_arch(), p->name, was % 4, nh % 4,
				    nh & ~PAGE_MASK);
	else if (p->l3)
		/* copied into the system page_pool: no MAC header to pad for */
		KUNIT_EXPECT_EQ_MSG(test, nh % 4, 0,
				    RX_AT
				    "the driver put the IP header %lu past a 4-byte boundary, the copy %lu past (page offset %lu)",
				    rx_arch(), p->name, was % 4, nh % 4,
				    nh & ~PAGE_MASK);
	else
		RX_EXPECT_NH(test, skb_network_header(*skb), p->name);
	RX_EXPECT_SHINFO(test, (unsigned long)skb_shinfo(*skb), p->name);
	/* grown in place, a header the driver put off stays off: its cost */
	if (!p->l3 || (*skb)->pp_recycle || was % 4 == 0)
		RX_EXPECT_NO_FIXUPS(test, f, skb_network_header(*skb),
				    p->frame == RX_IPV6, p->name);
}

/* ---- xdp_frame -> skb, as cpumap and veth do for redirected frames ---- */

struct rx_frame_param {
	const char *name;
	bool bulk;		/* the sk_buff from napi_skb_cache_get_bulk() */
	enum rx_frame frame;
};

static const struct rx_frame_param rx_frame_params[] = {
	{ "xdp_build_skb_from_frame_ipv4", false, RX_IPV4 },
	{ "xdp_build_skb_from_frame_ipv6", false, RX_IPV6 },
	{ "__xdp_build_skb_from_frame_bulk_ipv4", true, RX_IPV4 },
	{ "__xdp_build_skb_from_frame_bulk_vlan_ipv4", true, RX_VLAN_IPV4 },
};

KUNIT_ARRAY_PARAM_DESC(rx_frame, rx_frame_params, name);

static void rx_xdp_frame_to_skb(struct kunit *test)
{
	const struct rx_frame_param *p = test->param_value;
	/* What an XDP driver leaves in front of the frame. */
	unsigned int headroom = XDP_PACKET_HEADROOM + NET_IP_ALIGN;
	struct net_device *dev = rx_dummy_netdev(test);
	struct page_pool_params pp = {
		.pool_size = 16,
		.nid = NUMA_NO_NODE,
		.dma_dir = DMA_FROM_DEVICE,
	};
	struct xdp_rxq_info *rxq;
	struct xdp_frame *xdpf;
	struct page_pool *pool;
	struct xdp_buff xdp;
	struct sk_buff *skb;
	struct page *page;
	void *data, *bulk = NULL;

	pool = page_pool_create(&pp);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(pool), "page_pool_create: %pe", pool);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							rx_page_pool_destroy,
							pool), 0);
	rxq = kunit_kzalloc(test, sizeof(*rxq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rxq);
	KUNIT_ASSERT_EQ(test, xdp_rxq_info_reg(rxq, dev, 0, 0), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_rxq_unreg,
							rxq), 0);
	KUNIT_ASSERT_EQ(test, xdp_rxq_info_reg_mem_model(rxq,
							 MEM_TYPE_PAGE_POOL,
							 pool), 0);

	local_bh_disable();
	page = page_pool_dev_alloc_pages(pool);
	local_bh_enable();
	KUNIT_ASSERT_NOT_NULL(test, page);
	xdp_init_buff(&xdp, PAGE_SIZE, rxq);
	xdp_prepare_buff(&xdp, page_address(page), headroom, ETH_FRAME_LEN,
			 true);
	data = xdp.data;
	rx_align_fill_frame(data, p->frame, ETH_FRAME_LEN, dev->dev_addr);

	xdpf = xdp_convert_buff_to_frame(&xdp);
	if (!xdpf)
		page_pool_put_full_page(pool, page, false);
	KUNIT_ASSERT_NOT_NULL(test, xdpf);
	if (p->bulk) {
		local_bh_disable();
		if (!napi_skb_cache_get_bulk(&bulk, 1))
			xdp_return_frame(xdpf);
		local_bh_enable();
		KUNIT_ASSERT_NOT_NULL(test, bulk);
		skb = __xdp_build_skb_from_frame(xdpf, bulk, dev);
	} else {
		skb = xdp_build_skb_from_frame(xdpf, dev);
	}
	if (!skb)
		xdp_return_frame(xdpf);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_kfree_skb,
							skb), 0);

	/* The frame stays where the driver put it, in the page it came in. */
	KUNIT_EXPECT_PTR_EQ_MSG(test, (void *)skb_mac_header(skb), data,
				"%s: MAC header at page offset %lu, the frame was at %u",
				p->name,
				(unsigned long)skb_mac_header(skb) & ~PAGE_MASK,
				headroom);
	KUNIT_EXPECT_PTR_EQ(test, (void *)skb->head, page_address(page));
	KUNIT_EXPECT_EQ(test, skb_end_offset(skb),
			SKB_WITH_OVERHEAD(PAGE_SIZE));
	KUNIT_EXPECT_TRUE(test, skb->pp_recycle);
	skb_reset_network_header(skb);
	if (eth_type_vlan(skb->protocol)) {
		struct sk_buff *untagged = skb_vlan_untag(skb);

		if (!untagged)	/* it freed the skb */
			kunit_remove_action(test, rx_kfree_skb, skb);
		KUNIT_ASSERT_PTR_EQ(test, untagged, skb);
	}
	rx_align_report_frame(test, p->bulk ? "__xdp_build_skb_from_frame" :
			"xdp_build_skb_from_frame", rx_align_frame_names[p->frame],
			ETH_FRAME_LEN, headroom, rx_mac_start(skb),
			(unsigned long)skb_network_header(skb), skb->head_frag,
			skb->pp_recycle);
	RX_EXPECT_NH(test, skb_network_header(skb), p->name);
}

/* ---- veth: a real pair, a native XDP program on the receiving end ---- */

/*
 * Names of our own, so that a device someone else created in the initial
 * namespace is never taken for ours, nor deleted: the pair is created with
 * NLM_F_EXCL and deleted through the device found right after.
 */
struct rx_veth_names {
	char tx[IFNAMSIZ];
	char rx[IFNAMSIZ];
};

static void rx_veth_names(struct rx_veth_names *names)
{
	u32 id = get_random_u32();

	snprintf(names->tx, IFNAMSIZ, "rxa%08xt", id);
	snprintf(names->rx, IFNAMSIZ, "rxa%08xr", id);
}

/* The kernel's own answer to an rtnetlink request: 0 or -errno. */
static int rx_netlink_ack(struct socket *sock)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct nlmsghdr *nlh;
	struct kvec iov;
	int len, err;
	void *buf;

	buf = kmalloc(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	iov.iov_base = buf;
	iov.iov_len = NLMSG_GOODSIZE;
	len = kernel_recvmsg(sock, &msg, &iov, 1, NLMSG_GOODSIZE,
			     MSG_DONTWAIT);
	nlh = buf;
	if (len < 0)
		err = len;
	else if (!nlmsg_ok(nlh, len) || nlh->nlmsg_type != NLMSG_ERROR)
		err = -EPROTO;
	else
		err = ((struct nlmsgerr *)nlmsg_data(nlh))->error;
	kfree(buf);
	return err;
}

/* `ip link add TX type veth peer name RX`, from here. */
static int rx_veth_add(const struct rx_veth_names *names)
{
	/* Addressed to the kernel, so rtnetlink checks our capabilities. */
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct msghdr msg = { .msg_name = &kernel,
			      .msg_namelen = sizeof(kernel) };
	struct nlattr *linkinfo, *data, *peer;
	struct ifinfomsg *ifm;
	struct nlmsghdr *nlh;
	struct socket *sock;
	struct sk_buff *req;
	struct kvec iov;
	int err = -EMSGSIZE;

	req = nlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	nlh = nlmsg_put(req, 0, 1, RTM_NEWLINK, sizeof(*ifm),
			NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL | NLM_F_ACK);
	if (!nlh)
		goto out;
	ifm = nlmsg_data(nlh);
	memset(ifm, 0, sizeof(*ifm));
	if (nla_put_string(req, IFLA_IFNAME, names->tx))
		goto out;
	linkinfo = nla_nest_start(req, IFLA_LINKINFO);
	if (!linkinfo || nla_put_string(req, IFLA_INFO_KIND, "veth"))
		goto out;
	data = nla_nest_start(req, IFLA_INFO_DATA);
	peer = data ? nla_nest_start(req, VETH_INFO_PEER) : NULL;
	/* the peer's own ifinfomsg, then its attributes */
	ifm = peer ? nla_reserve_nohdr(req, sizeof(*ifm)) : NULL;
	if (!ifm)
		goto out;
	memset(ifm, 0, sizeof(*ifm));
	if (nla_put_string(req, IFLA_IFNAME, names->rx))
		goto out;
	nla_nest_end(req, peer);
	nla_nest_end(req, data);
	nla_nest_end(req, linkinfo);
	nlmsg_end(req, nlh);

	err = sock_create_kern(&init_net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE,
			       &sock);
	if (err)
		goto out;
	iov.iov_base = req->data;
	iov.iov_len = req->len;
	err = kernel_sendmsg(sock, &msg, &iov, 1, req->len);
	if (err >= 0)
		err = rx_netlink_ack(sock);
	sock_release(sock);
out:
	nlmsg_free(req);
	return err;
}

/*
 * Deleting one end deletes the pair.  Unregistering only queues the device:
 * it is freed after rtnl_unlock(), once our reference is gone.
 */
static void rx_veth_del(void *data)
{
	struct net_device *dev = data;

	rtnl_lock();
	if (dev->reg_state == NETREG_REGISTERED)
		rtnl_delete_link(dev, 0, NULL);
	dev_put(dev);
	rtnl_unlock();
}

/* Attach @prog as the driver's native XDP program (dev_xdp_install()). */
static int rx_xdp_setup(struct net_device *dev, struct bpf_prog *prog)
{
	struct netdev_bpf bpf = { .command = XDP_SETUP_PROG, .prog = prog };
	int err;

	/* The driver owns a reference to its program and drops it later. */
	if (prog)
		bpf_prog_inc(prog);
	rtnl_lock();
	err = dev->netdev_ops->ndo_bpf(dev, &bpf);
	rtnl_unlock();
	if (err && prog)
		bpf_prog_put(prog);
	return err;
}

static void rx_xdp_detach(void *dev)
{
	rx_xdp_setup(dev, NULL);
}

static void rx_dev_put(void *dev)
{
	dev_put(dev);
}

static struct net_device *rx_veth_get(struct kunit *test, const char *name,
				      kunit_action_t *release)
{
	struct net_device *dev = dev_get_by_name(&init_net, name);

	KUNIT_ASSERT_NOT_NULL_MSG(test, dev, "%s vanished", name);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, release, dev), 0);
	return dev;
}

/*
 * A locally generated frame as the IP output path hands it to the device:
 * LL_RESERVED_SPACE() in front of the network header, then the MAC header
 * pushed in front of it.
 */
static struct sk_buff *rx_tx_skb(struct net_device *dev, enum rx_frame frame,
				 unsigned int len, const u8 *dest)
{
	unsigned int hlen = rx_frame_hlen(frame);
	/* a VLAN device's hard_header_len has the tag in it */
	unsigned int hh = LL_RESERVED_SPACE_EXTRA(dev, hlen - ETH_HLEN);
	struct sk_buff *skb;

	skb = alloc_skb(hh + len + 15, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, hh - hlen);
	rx_align_fill_frame(skb_put(skb, len), frame, len, dest);
	skb->dev = dev;
	skb->protocol = ((struct ethhdr *)skb->data)->h_proto;
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, hlen);
	return skb;
}

struct rx_veth_param {
	const char *name;
	enum rx_frame frame;
	unsigned int len;
};

static const struct rx_veth_param rx_veth_params[] = {
	{ "ipv4_min", RX_IPV4, ETH_ZLEN },
	{ "ipv4_mtu", RX_IPV4, ETH_FRAME_LEN },
	{ "ipv6_mtu", RX_IPV6, ETH_FRAME_LEN },
	{ "vlan_ipv4_mtu", RX_VLAN_IPV4, ETH_FRAME_LEN + VLAN_HLEN },
};

KUNIT_ARRAY_PARAM_DESC(rx_veth, rx_veth_params, name);

static void rx_veth_xdp(struct kunit *test)
{
	const struct rx_veth_param *p = test->param_value;
	struct bpf_prog *prog = rx_xdp_pass_prog(test, false);
	struct rx_align_fixups *f = rx_align_fixups_get(test, false);
	struct rx_veth_names names;
	struct net_device *tx, *rx;
	struct sk_buff *skb;
	struct rx_tap_seen *seen;
	struct rx_tap *tap;
	char what[64];
	int err;

	rx_veth_names(&names);
	err = rx_veth_add(&names);
	if (err == -EOPNOTSUPP)
		kunit_skip(test, "no veth driver: CONFIG_VETH is not set");
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "creating the veth pair %s: %d",
			    names.tx, err);
	tx = rx_veth_get(test, names.tx, rx_veth_del);
	rx = rx_veth_get(test, names.rx, rx_dev_put);

	rtnl_lock();
	err = dev_open(rx, NULL) ?: dev_open(tx, NULL);
	rtnl_unlock();
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "bringing the pair up: %d", err);
	err = rx_xdp_setup(rx, prog);
	KUNIT_ASSERT_EQ_MSG(test, err, 0, "attaching XDP to %s: %d",
			    names.rx, err);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, rx_xdp_detach,
							rx), 0);
	/*
	 * Sniff, before any protocol: recorded, a head whose skb_shared_info
	 * is off fails the case here rather than crash ip_rcv()'s clone.
	 * Where fixups are counted, the sniffer holds the frame to read its
	 * header after, as a packet socket holds it (ip_rcv() then clones).
	 */
	tap = rx_align_tap_add(test, rx, 1, true, f);

	skb = rx_tx_skb(tx, p->frame, p->len, rx->dev_addr);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	err = dev_queue_xmit(skb);
	KUNIT_ASSERT_EQ_MSG(test, err, NET_XMIT_SUCCESS, "dev_queue_xmit: %d",
			    err);
	KUNIT_ASSERT_TRUE_MSG(test,
			      wait_for_completion_timeout(&tap->seen, HZ),
			      "%s: nothing reached the stack on %s", p->name,
			      names.rx);

	seen = &tap->frames[0];
	rx_align_report_frame(test, "veth_xdp", p->name, seen->len,
			      seen->headroom, seen->mac,
			seen->nh, seen->head_frag, seen->pp_recycle);
	/* Less headroom than XDP needs: veth must have copied the frame. */
	KUNIT_EXPECT_TRUE_MSG(test, seen->pp_recycle,
			      "%s: veth did not copy the frame into its page_pool",
			      p->name);
	snprintf(what, sizeof(what), "veth XDP, %s", p->name);
	RX_EXPECT_NH(test, (void *)seen->nh, what);
	RX_EXPECT_SHINFO(test, seen->shinfo, what);
	RX_EXPECT_NO_FIXUPS(test, f, (void *)seen->nh, seen->frame == RX_IPV6,
			    what);
}

static struct kunit_case rx_xdp_cases[] = {
	KUNIT_CASE_PARAM(rx_generic_xdp, rx_generic_gen_params),
	KUNIT_CASE_PARAM(rx_xdp_frame_to_skb, rx_frame_gen_params),
	KUNIT_CASE_PARAM(rx_veth_xdp, rx_veth_gen_params),
	{}
};

static struct kunit_suite rx_xdp_suite = {
	.name = "net_rx_align_xdp",
	.test_cases = rx_xdp_cases,
};

kunit_test_suite(rx_xdp_suite);

MODULE_DESCRIPTION("KUnit tests for receive buffer alignment on the XDP paths");
MODULE_LICENSE("GPL");
