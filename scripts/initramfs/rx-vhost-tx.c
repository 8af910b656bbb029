// SPDX-License-Identifier: GPL-2.0
/*
 * rx-vhost-tx: the guest side of vhost_net, for net_rx_align_vhost.
 *
 * The KUnit suite runs this from the initramfs (call_usermodehelper()):
 *
 *   rx-vhost-tx create  IFNAME           a persistent tap with a vnet header
 *   rx-vhost-tx send    IFNAME HEX       the Ethernet frame HEX (in hex)
 *                                        through vhost_net's TX ring
 *   rx-vhost-tx destroy IFNAME           the tap goes
 *
 * "send" is what QEMU does for a virtio-net device with vhost=on: one
 * memory region, a split TX ring, VIRTIO_F_VERSION_1 (a 12-byte header,
 * little-endian rings), the tap as the backend; the frames enter the host
 * stack through vhost_net_build_xdp() and tun_xdp_one().  Built with the
 * tree's nolibc (tools/include/nolibc), statically, for the arch booted.
 * Each failing step writes its errno to /dev/kmsg and exits with its own
 * status, for the suite to report.
 */
#include <linux/if_tun.h>
#include <linux/vhost.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

/* struct ifreq without <linux/if.h>, which wants libc's <sys/socket.h> */
struct tap_ifreq {
	char name[16];
	short flags;
	char room[32];		/* the rest of the union TUNSETIFF copies */
};

#define RING_NUM	16
#define FRAME_ROOM	2048
#define HDR_LEN		((int)sizeof(struct virtio_net_hdr_mrg_rxbuf))

/* desc, avail and used rings, then one buffer per frame */
static unsigned char mem[4096 + RING_NUM * FRAME_ROOM]
	__attribute__((aligned(4096)));
static unsigned char frames[RING_NUM * FRAME_ROOM];

enum step {
	STEP_USAGE = 10, STEP_TUN, STEP_TUNSETIFF, STEP_PERSIST, STEP_HDRSZ,
	STEP_FRAMES, STEP_VHOST, STEP_OWNER, STEP_FEATURES, STEP_MEM,
	STEP_RING, STEP_EVENTFD, STEP_BACKEND, STEP_KICK, STEP_USED,
};

/* "rx-vhost-tx: WHAT: errno N" to the kernel log (nolibc has no printf
 * to a file on every kernel this runs on) */
static int fail(enum step step, const char *what)
{
	char line[96] = "rx-vhost-tx: ", digits[12];
	int fd = open("/dev/kmsg", O_WRONLY), e = errno, i = sizeof(digits);
	size_t n = strlen(line);

	digits[--i] = 0;
	do {
		digits[--i] = '0' + e % 10;
		e /= 10;
	} while (e && i);
	while (*what && n < sizeof(line) - sizeof(digits) - 12)
		line[n++] = *what++;
	memcpy(line + n, ": errno ", 8);
	n += 8;
	memcpy(line + n, digits + i, sizeof(digits) - i);
	if (fd >= 0) {
		write(fd, line, strlen(line));
		close(fd);
	}
	return step;
}

/* the rings are little-endian once VIRTIO_F_VERSION_1 is acked */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define le16(v) __builtin_bswap16(v)
#define le32(v) __builtin_bswap32(v)
#define le64(v) __builtin_bswap64(v)
#else
#define le16(v) ((__u16)(v))
#define le32(v) ((__u32)(v))
#define le64(v) ((__u64)(v))
#endif

static int tap_open(const char *name, int *step)
{
	struct tap_ifreq ifr;
	int fd = open("/dev/net/tun", O_RDWR);

	if (fd < 0) {
		*step = fail(STEP_TUN, "/dev/net/tun");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.name, name, sizeof(ifr.name) - 1);
	ifr.flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		*step = fail(STEP_TUNSETIFF, "TUNSETIFF");
		return -1;
	}
	return fd;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* HEX into frames[]: the number of frames read (one), or -1 */
static int read_frames(const char *hex, unsigned int *lens)
{
	size_t n = strlen(hex), i;

	if (n % 2 || n / 2 > FRAME_ROOM - HDR_LEN)
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		frames[i] = hi << 4 | lo;
	}
	lens[0] = n / 2;
	return 1;
}

static int eventfd(void)
{
	/* nolibc's raw syscall macro, as 6.1-6.12 and 7.x name it */
#ifdef __nolibc_syscall2
	int fd = __nolibc_syscall2(__NR_eventfd2, 0, 0);
#else
	int fd = my_syscall2(__NR_eventfd2, 0, 0);
#endif

	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	return fd;
}

static int send_frames(int tap, const char *hex)
{
	struct vring_desc *desc = (struct vring_desc *)mem;
	struct vring_avail *avail = (struct vring_avail *)(mem + 1024);
	volatile struct vring_used *used = (struct vring_used *)(mem + 2048);
	struct {
		struct vhost_memory m;
		struct vhost_memory_region r;
	} table;
	struct vhost_vring_state num = { 1, RING_NUM }, base = { 1, 0 };
	struct vhost_vring_addr addr = { .index = 1 };
	struct vhost_vring_file kick = { .index = 1 }, call = { .index = 1 };
	struct vhost_vring_file backend = { .index = 1 };
	struct pollfd pfd;
	unsigned int lens[RING_NUM];
	__u64 features, one = 1;
	int hdr = HDR_LEN, n, i, tries, vhost;

	if (ioctl(tap, TUNSETVNETHDRSZ, &hdr) < 0)
		return fail(STEP_HDRSZ, "TUNSETVNETHDRSZ");
	n = read_frames(hex, lens);
	if (n <= 0) {
		errno = EINVAL;
		return fail(STEP_FRAMES, "the frame");
	}
	vhost = open("/dev/vhost-net", O_RDWR);
	if (vhost < 0)
		return fail(STEP_VHOST, "/dev/vhost-net");
	if (ioctl(vhost, VHOST_SET_OWNER, NULL) < 0)
		return fail(STEP_OWNER, "VHOST_SET_OWNER");
	if (ioctl(vhost, VHOST_GET_FEATURES, &features) < 0 ||
	    !(features & (1ULL << VIRTIO_F_VERSION_1)))
		return fail(STEP_FEATURES, "VHOST_GET_FEATURES");
	features = 1ULL << VIRTIO_F_VERSION_1;
	if (ioctl(vhost, VHOST_SET_FEATURES, &features) < 0)
		return fail(STEP_FEATURES, "VHOST_SET_FEATURES");

	memset(&table, 0, sizeof(table));
	table.m.nregions = 1;
	table.r.guest_phys_addr = (__u64)(unsigned long)mem;
	table.r.memory_size = sizeof(mem);
	table.r.userspace_addr = (__u64)(unsigned long)mem;
	if (ioctl(vhost, VHOST_SET_MEM_TABLE, &table) < 0)
		return fail(STEP_MEM, "VHOST_SET_MEM_TABLE");

	addr.desc_user_addr = (__u64)(unsigned long)desc;
	addr.avail_user_addr = (__u64)(unsigned long)avail;
	addr.used_user_addr = (__u64)(unsigned long)used;
	if (ioctl(vhost, VHOST_SET_VRING_NUM, &num) < 0 ||
	    ioctl(vhost, VHOST_SET_VRING_BASE, &base) < 0 ||
	    ioctl(vhost, VHOST_SET_VRING_ADDR, &addr) < 0)
		return fail(STEP_RING, "VHOST_SET_VRING_*");
	kick.fd = eventfd();
	call.fd = eventfd();
	if (kick.fd < 0 || call.fd < 0 ||
	    ioctl(vhost, VHOST_SET_VRING_KICK, &kick) < 0 ||
	    ioctl(vhost, VHOST_SET_VRING_CALL, &call) < 0)
		return fail(STEP_EVENTFD, "VHOST_SET_VRING_KICK/CALL");
	backend.fd = tap;
	if (ioctl(vhost, VHOST_NET_SET_BACKEND, &backend) < 0)
		return fail(STEP_BACKEND, "VHOST_NET_SET_BACKEND");

	/* each frame behind a zeroed virtio_net_hdr: no GSO, no csum */
	for (i = 0; i < n; i++) {
		unsigned char *buf = mem + 4096 + i * FRAME_ROOM;

		memset(buf, 0, HDR_LEN);
		memcpy(buf + HDR_LEN, frames + i * FRAME_ROOM, lens[i]);
		desc[i].addr = le64((__u64)(unsigned long)buf);
		desc[i].len = le32(HDR_LEN + lens[i]);
		desc[i].flags = 0;
		desc[i].next = 0;
		avail->ring[i] = le16(i);
	}
	__sync_synchronize();
	avail->idx = le16(n);
	__sync_synchronize();
	if (write(kick.fd, &one, sizeof(one)) != sizeof(one))
		return fail(STEP_KICK, "kick");

	pfd.fd = call.fd;
	pfd.events = POLLIN;
	for (tries = 0; tries < 50 && le16(used->idx) != n; tries++)
		poll(&pfd, 1, 100);
	if (le16(used->idx) != n) {
		errno = ETIMEDOUT;
		return fail(STEP_USED, "the used ring");
	}
	close(vhost);
	return 0;
}

int main(int argc, char **argv)
{
	int step = 0, tap, persist;

	if (argc < 3)
		return STEP_USAGE;
	tap = tap_open(argv[2], &step);
	if (tap < 0)
		return step;
	if (!strcmp(argv[1], "send"))
		return argc == 4 ? send_frames(tap, argv[3]) : STEP_USAGE;
	persist = !strcmp(argv[1], "create");
	if (!persist && strcmp(argv[1], "destroy"))
		return STEP_USAGE;
	if (ioctl(tap, TUNSETPERSIST, (void *)(unsigned long)persist) < 0)
		return fail(STEP_PERSIST, "TUNSETPERSIST");
	return 0;
}
