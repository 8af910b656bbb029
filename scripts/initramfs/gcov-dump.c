// SPDX-License-Identifier: GPL-2.0
/*
 * gcov-dump: the /init of a run-kunit --coverage kernel.
 *
 * KUnit has run (built in, before /init) and the gcov counters of every file
 * built with GCOV_PROFILE are in debugfs.  Print each .gcda file under
 * /sys/kernel/debug/gcov in base64 between markers, for the harness to
 * decode (scripts/rxalign/coverage.py), then reset the machine: QEMU runs
 * with -no-reboot, so it exits.  Where a reset does not end QEMU (sun4u:
 * OpenBIOS boots again), the arch builds it with
 * -DRX_GCOV_STOP=LINUX_REBOOT_CMD_POWER_OFF.
 *
 *   rx_align_gcov: begin
 *   rx_align_gcov: file PATH
 *   rx_align_gcov: data BASE64                 57 bytes a line
 *   rx_align_gcov: end PATH SIZE FNV1A32       bytes read, their checksum
 *   rx_align_gcov: done FILES
 * or
 *   rx_align_gcov: unavailable: WHY
 *
 * Each line is one write(), and the console loglevel is lowered first, so
 * that a kernel message does not land inside one; one that does anyway
 * fails the checksum.  Built with the tree's nolibc, statically, for the
 * arch booted.
 */
#include <linux/reboot.h>

/* a test builds it for this machine: fixtures/coverage/host-shim.h */
#ifndef MOUNT_AT
#define MOUNT_AT	"/debug"
#endif
#define GCOV_DIR	MOUNT_AT "/gcov"

#ifndef RX_GCOV_STOP
#define RX_GCOV_STOP	LINUX_REBOOT_CMD_RESTART
#endif
#define LINE_BYTES	57		/* 76 base64 characters */
#define SYSLOG_ACTION_CONSOLE_LEVEL 8

static const char b64[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static char path[4096];
static unsigned char chunk[4096 + LINE_BYTES];
static char line[256 + sizeof(path)];
static unsigned long files;

static void put(const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(1, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= w;
	}
}

/* "rx_align_gcov: " WHAT ARG "\n", in one write */
static void say(const char *what, const char *arg)
{
	size_t n = 0;
	const char *parts[] = { "rx_align_gcov: ", what, arg, "\n" };

	for (size_t i = 0; i < 4; i++)
		for (const char *p = parts[i]; *p && n < sizeof(line) - 1; p++)
			line[n++] = *p;
	put(line, n);
}

static char *number(char *at, unsigned long v, unsigned int base)
{
	char digits[24];
	int i = 0;

	do {
		digits[i++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (i)
		*at++ = digits[--i];
	return at;
}

static void data_line(const unsigned char *p, size_t n)
{
	char *o = line;
	const char *head = "rx_align_gcov: data ";

	while (*head)
		*o++ = *head++;
	for (size_t i = 0; i < n; i += 3) {
		unsigned int v = p[i] << 16;

		v |= (i + 1 < n ? p[i + 1] : 0) << 8;
		v |= i + 2 < n ? p[i + 2] : 0;
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < n ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? b64[v & 63] : '=';
	}
	*o++ = '\n';
	put(line, o - line);
}

static void dump(void)
{
	unsigned long size = 0;
	unsigned int fnv = 2166136261u;
	size_t have = 0, i;
	int fd = open(path, O_RDONLY);
	char tail[64], *o;

	say("file ", path);
	if (fd < 0) {
		say("unavailable: cannot open ", path);
		return;
	}
	for (;;) {
		ssize_t r = read(fd, chunk + have, sizeof(chunk) - have);

		if (r <= 0)
			break;
		for (i = have; i < have + r; i++)
			fnv = (fnv ^ chunk[i]) * 16777619u;
		have += r;
		size += r;
		for (i = 0; have - i >= LINE_BYTES; i += LINE_BYTES)
			data_line(chunk + i, LINE_BYTES);
		memmove(chunk, chunk + i, have - i);
		have -= i;
	}
	if (have)
		data_line(chunk, have);
	close(fd);
	o = tail;
	*o++ = ' ';
	o = number(o, size, 10);
	*o++ = ' ';
	o = number(o, fnv, 16);
	*o = 0;
	/* the path, then the size and checksum */
	o = path + strlen(path);
	if (o + strlen(tail) < path + sizeof(path)) {
		strcpy(o, tail);
		say("end ", path);
		*o = 0;
	}
	files++;
}

static void walk(size_t len)
{
	char buf[4096];		/* one per level: walk() recurses */
	int fd = open(path, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	for (;;) {
		long n = getdents64(fd, (void *)buf, sizeof(buf));

		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			size_t name = strlen(d->d_name);

			if (!d->d_reclen)
				break;
			off += d->d_reclen;
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") ||
			    len + 1 + name >= sizeof(path) - 64)
				continue;
			path[len] = '/';
			strcpy(path + len + 1, d->d_name);
			if (d->d_type == DT_DIR)
				walk(len + 1 + name);
			else if (d->d_type == DT_REG && name > 5 &&
				 !strcmp(d->d_name + name - 5, ".gcda"))
				dump();
			path[len] = 0;
		}
	}
	close(fd);
}

int main(void)
{
	char count[24];
	int dir;

	/*
	 * kernel messages to the console only from KERN_EMERG on (nolibc's
	 * raw syscall macro, as 6.1-6.12 and 7.x name it)
	 */
#ifdef __nolibc_syscall3
	__nolibc_syscall3(__NR_syslog, SYSLOG_ACTION_CONSOLE_LEVEL, 0, 1);
#else
	my_syscall3(__NR_syslog, SYSLOG_ACTION_CONSOLE_LEVEL, 0, 1);
#endif
	mkdir(MOUNT_AT, 0755);
	dir = mount("debugfs", MOUNT_AT, "debugfs", 0, 0) < 0 ? -2 :
		open(GCOV_DIR, O_RDONLY | O_DIRECTORY);
	if (dir == -2) {
		say("unavailable: ", "cannot mount debugfs");
	} else if (dir < 0) {
		say("unavailable: ", "no " GCOV_DIR " (CONFIG_GCOV_KERNEL?)");
	} else {
		close(dir);
		say("begin", "");
		strcpy(path, GCOV_DIR);
		walk(strlen(path));
		*number(count, files, 10) = 0;
		say("done ", count);
	}
	reboot(RX_GCOV_STOP);
	return 0;
}
