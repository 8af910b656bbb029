// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for where the two XDP copies put a frame: veth copies every
 * skb its native XDP program cannot run on in place into a page_pool
 * buffer (skb_pp_cow_data()), and generic XDP does the same for a program
 * that takes multi-buffer frames (skb_cow_data_for_xdp()).  Each case
 * sends an Ethernet frame through the copy and checks where its IP header
 * and skb_shared_info are when it reaches the stack, and, where the CPU
 * traps on misaligned loads, that reading the header takes no fixup.
 *
 * Not part of the series posted upstream: these cases fail on kernels
 * without the veth and generic XDP fixes (which carry their own test), so
 * they stay with the harness that runs them on every architecture.
 */

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>
#include <net/sock.h>

#include "rx_align.h"

/* ---- Generic XDP's copy, for a program that takes multi-buffer frames ---- */

static const struct rx_generic_param rx_copy_params[] = {
	{ "frags_prog_linear_ipv4", true, false, RX_IPV4, ETH_FRAME_LEN },
	/* a small copy is a page_pool fragment, not a whole page */
	{ "frags_prog_linear_ipv4_min", true, false, RX_IPV4, ETH_ZLEN },
	{ "frags_prog_linear_ipv6", true, false, RX_IPV6, ETH_FRAME_LEN },
	{ "frags_prog_linear_vlan_ipv4", true, false, RX_VLAN_IPV4,
	  ETH_FRAME_LEN + VLAN_HLEN },
	{ "frags_prog_nonlinear_ipv4", true, true, RX_IPV4, ETH_FRAME_LEN },
	{ "frags_prog_nonlinear_ipv6", true, true, RX_IPV6, ETH_FRAME_LEN },
	/* wherever the driver had the frame, the copy is where it belongs */
	{ "frags_prog_linear_ipv4_reserve_1", true, false, RX_IPV4,
	  ETH_FRAME_LEN, .reserve = 1 },
	{ "frags_prog_linear_ipv4_reserve_2", true, false, RX_IPV4,
	  ETH_FRAME_LEN, .reserve = 2 },
	{ "frags_prog_linear_ipv4_reserve_3", true, false, RX_IPV4,
	  ETH_FRAME_LEN, .reserve = 3 },
	{ "frags_prog_nonlinear_ipv6_reserve_2", true, true, RX_IPV6,
	  ETH_FRAME_LEN, .reserve = 2 },
};

KUNIT_ARRAY_PARAM_DESC(rx_copy, rx_copy_params, name);

static void rx_generic_xdp_copy(struct kunit *test)
{
	rx_align_generic_xdp(test, test->param_value);
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
	struct bpf_prog *prog = rx_align_xdp_pass_prog(test, false);
	struct rx_align_fixups *f = rx_align_fixups_new(test, false);
	struct rx_veth_names names;
	struct net_device *tx, *rx;
	struct rx_align_seen *seen;
	struct sk_buff *skb;
	struct rx_tap *tap;
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
	/* Less headroom than XDP needs: veth must have copied the frame. */
	KUNIT_EXPECT_TRUE_MSG(test, seen->pp_recycle,
			      "%s: veth did not copy the frame into its page_pool",
			      p->name);
	RX_EXPECT_FRAME(test, "veth_xdp", p->name, seen, RX_RULE_IP_ALIGN, 0);
	RX_EXPECT_SHINFO(test, seen->shinfo, p->name);
	RX_EXPECT_NO_FIXUPS(test, f, (void *)seen->nh, seen->frame == RX_IPV6,
			    p->name);
}

static struct kunit_case rx_xdp_copy_cases[] = {
	KUNIT_CASE_PARAM(rx_generic_xdp_copy, rx_copy_gen_params),
	KUNIT_CASE_PARAM(rx_veth_xdp, rx_veth_gen_params),
	{}
};

static struct kunit_suite rx_xdp_copy_suite = {
	.name = "net_rx_align_xdp_copy",
	.init = rx_align_watch_kernel,
	.test_cases = rx_xdp_copy_cases,
};

kunit_test_suite(rx_xdp_copy_suite);

MODULE_DESCRIPTION("KUnit tests for where veth's and generic XDP's copies put a frame");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");
