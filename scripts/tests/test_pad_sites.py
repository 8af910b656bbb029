"""The semantic patch of kernel-patches/ on a small driver, and scripts/pad-sites around it."""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from rxalign import kbuild, pad_sites, paths

SERIES = Path(__file__).resolve().parents[2] / 'kernel-patches' / 'coccinelle'

DRIVER = textwrap.dedent('''\
    #include <linux/netdevice.h>

    static int refill(struct net_device *dev, struct device *d, dma_addr_t *a)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, 1536 + 2);

    	if (!skb)
    		return -ENOMEM;
    	skb_reserve(skb, 2);
    	*a = dma_map_single(d, skb->data, 1536, DMA_FROM_DEVICE);
    	return 0;
    }

    static struct sk_buff *copybreak(struct net_device *dev, void *buf, int len)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, len + 2);

    	if (!skb)
    		return NULL;
    	skb_reserve(skb, 2);
    	skb_put_data(skb, buf, len);
    	return skb;
    }

    static struct sk_buff *elsewhere(struct net_device *dev)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, 1536);

    	if (skb)
    		skb_reserve(skb, 2);
    	return skb;
    }

    static int chained(struct net_device *dev, struct sk_buff **slot, struct device *d,
    		   dma_addr_t *a)
    {
    	struct sk_buff *skb;

    	skb = *slot = netdev_alloc_skb(dev, 1536 + 2);
    	if (!skb)
    		return -ENOMEM;
    	skb_reserve(skb, 2);
    	*a = dma_map_single(d, skb->data, 1536, DMA_FROM_DEVICE);
    	return 0;
    }

    static void premapped(struct net_device *dev, struct device *d, dma_addr_t *a)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, 1536);

    	if (!skb)
    		return;
    	*a = dma_map_single(d, skb->data, 1536, DMA_FROM_DEVICE);
    	skb_reserve(skb, 2);
    }

    static void before_data(struct sk_buff *skb, struct device *d, dma_addr_t *a)
    {
    	skb_reserve(skb, 2);
    	*a = dma_map_single(d, skb->data - 2, 1536, DMA_FROM_DEVICE);
    }

    static struct sk_buff *built(void *buf)
    {
    	struct sk_buff *skb = napi_build_skb(buf, 2048);

    	if (!skb)
    		return NULL;
    	skb_reserve(skb, 2);
    	return skb;
    }

    static void bus_mode(struct sk_buff *skb, struct fake_priv *lp)
    {
    	if (lp->wide_bus)
    		skb_reserve(skb, 2);
    }

    static struct sk_buff *pio(struct net_device *dev, void __iomem *port, int len)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, len + 2);
    	u8 *buf;

    	if (!skb)
    		return NULL;
    	skb_reserve(skb, 2);
    	buf = skb_put(skb, len);
    	read_fifo(port, buf, len);
    	return skb;
    }

    static void realign(struct sk_buff *skb, int len)
    {
    	memmove(skb->data + 2, skb->data, len);
    	skb_reserve(skb, 2);
    }

    #if 0
    static void dead(struct sk_buff *skb)
    {
    	skb_reserve(skb, 2);
    }
    #endif

    static int tx(struct net_device *dev, struct device *d, dma_addr_t *a, int len)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, len + 2);

    	if (!skb)
    		return -ENOMEM;
    	skb_reserve(skb, 2);
    	build_frame(skb_put(skb, len));
    	*a = dma_map_single(d, skb->data, len, DMA_TO_DEVICE);
    	return 0;
    }

    static int unpadded(struct net_device *dev, struct device *d, dma_addr_t *a)
    {
    	struct sk_buff *skb = netdev_alloc_skb(dev, 1536);

    	if (!skb)
    		return -ENOMEM;
    	skb_reserve(skb, 2);	/* align the IP header */
    	*a = dma_map_single(d, skb->data, 1534, DMA_BIDIRECTIONAL);
    	return 0;
    }

    static int other_alloc(struct device *d, dma_addr_t *a)
    {
    	struct sk_buff *skb = dev_alloc_skb(1536 + 2);

    	if (!skb)
    		return -ENOMEM;
    	skb_reserve(skb, 2);
    	*a = dma_map_single(d, skb->data, 1536, DMA_FROM_DEVICE);
    	return 0;
    }
    ''')
# The reserves of DRIVER whose buffers a device then writes: the dma class.
DMA_LINES = [9, 42, 123, 134]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    t = tmp_path / 'linux'
    (t / 'drivers/net').mkdir(parents=True)
    (t / 'net').mkdir()
    (t / 'drivers/net/fake.c').write_text(DRIVER)
    patch = next(SERIES.glob('*-coccinelle-api-add-net_ip_align.cocci.patch'))
    subprocess.run(['git', 'apply', '--include=scripts/*', str(patch)], cwd=t, check=True)
    return t


def test_grep_sees_dead_code_as_dead(tree: Path) -> None:
    sites = pad_sites.grep_sites(tree)
    assert [(n, live) for _, n, live in sites] == [
        (9, True), (20, True), (30, True), (42, True), (54, True), (59, True), (69, True),
        (76, True), (86, True), (95, True), (101, False), (111, True), (123, True),
        (134, True)]


def spatch(tree: Path, mode: str) -> str:
    return subprocess.run(['spatch', '--very-quiet', '-D', mode, '--no-includes',
                           '--include-headers', '--sp-file', paths.COCCI, 'drivers/net/fake.c'],
                          cwd=tree, capture_output=True, text=True, check=True).stdout


SPATCH = pytest.mark.skipif(not shutil.which('spatch'), reason='coccinelle not installed')
CLASSES = [(9, 'dma'), (20, 'copy'), (30, 'other'), (42, 'dma'), (54, 'hw'), (59, 'hw'),
           (69, 'hw'), (76, 'hw'), (86, 'copy'), (95, 'copy'), (111, 'tx'), (123, 'dma'),
           (134, 'dma')]


@SPATCH
def test_report_mode_classifies(tree: Path, tmp_path: Path) -> None:
    sites = pad_sites.spatch_sites(tree, ['drivers/net/fake.c'], tmp_path / 'log')
    assert [(s.line, s.cls) for s in sites] == CLASSES
    why = {s.line: s.why for s in sites}
    assert 'mapped before the reserve' in why[54] and 'data - 2' in why[59]
    assert 'built around' in why[69] and 'only if lp->wide_bus' in why[76]
    assert 'read_fifo() at line 88' in why[86] and 'memmove' in why[95]
    # mapped DMA_TO_DEVICE: a transmit buffer, never converted
    assert 'DMA_TO_DEVICE' in why[111]


@SPATCH
def test_org_mode_gives_the_same_classes_as_org_todos(tree: Path) -> None:
    out = spatch(tree, 'org').splitlines()
    assert all(line.startswith('* TODO [[view:drivers/net/fake.c::face=ovl-face1::linb=')
               for line in out)
    got = [(int(re.search(r'linb=(\d+)', line).group(1)),     # type: ignore[union-attr]
            re.search(r'\]\[(\w+):', line).group(1))          # type: ignore[union-attr]
           for line in out]
    assert got == CLASSES


@SPATCH
def test_context_mode_marks_the_dma_reserves_and_their_mappings(tree: Path) -> None:
    out = spatch(tree, 'context').splitlines()
    starred = [ln[1:].strip() for ln in out if ln.startswith('-') and not ln.startswith('---')]
    assert starred.count('skb_reserve(skb, 2);') == 3
    assert 'skb_reserve(skb, 2);\t/* align the IP header */' in starred
    maps = [ln for ln in starred if 'dma_map_single' in ln]
    assert len(maps) == len(DMA_LINES)
    assert not any('DMA_TO_DEVICE' in ln for ln in maps)


@SPATCH
def test_patch_mode_converts_the_dma_class_only(tree: Path) -> None:
    out = spatch(tree, 'patch').splitlines()
    removed = [ln[1:].strip() for ln in out if ln.startswith('-\t')]
    added = [ln[1:].strip() for ln in out if ln.startswith('+\t')]
    # netdev_alloc_skb() and its reserve become netdev_alloc_skb_ip_align(),
    # its + 2 dropped (a chained assignment split, one a line); another
    # allocator keeps its reserve, with NET_IP_ALIGN for both 2s.  spatch
    # 1.1.1 (Debian 12) keeps the comment of a line it removes on the line
    # before, which it removes and adds again; 1.3 (Debian 13) removes the
    # comment with its line and leaves the line before alone
    glued = 'return -ENOMEM;' in removed
    assert removed == [
        'struct sk_buff *skb = netdev_alloc_skb(dev, 1536 + 2);', 'skb_reserve(skb, 2);',
        'skb = *slot = netdev_alloc_skb(dev, 1536 + 2);', 'skb_reserve(skb, 2);',
        'struct sk_buff *skb = netdev_alloc_skb(dev, 1536);',
        *(['return -ENOMEM;'] if glued else []),
        'skb_reserve(skb, 2);\t/* align the IP header */',
        'struct sk_buff *skb = dev_alloc_skb(1536 + 2);', 'skb_reserve(skb, 2);']
    assert added == [
        'struct sk_buff *skb = netdev_alloc_skb_ip_align(dev, 1536);',
        'skb = netdev_alloc_skb_ip_align(dev, 1536);', '*slot = skb;',
        'struct sk_buff *skb = netdev_alloc_skb_ip_align(dev, 1536);',
        *(['return -ENOMEM;/* align the IP header */'] if glued else []),
        'struct sk_buff *skb = dev_alloc_skb(1536 + NET_IP_ALIGN);',
        'skb_reserve(skb, NET_IP_ALIGN);']


def test_markdown_counts(tree: Path) -> None:
    sites = [pad_sites.Site('drivers/net/fake.c', 9, 'dma', 'dma: x', 'skb_reserve(skb, 2);'),
             pad_sites.Site('drivers/net/fake.c', 20, 'copy', 'copy: x', 'skb_reserve(skb, 2);'),
             pad_sites.Site('drivers/net/old.c', 7, 'copy', 'PIO', 'skb_reserve(skb, 2);',
                        by='review')]
    md = pad_sites.markdown('fake', sites, [], [('drivers/net/fake.c', 49)], ['drivers/net/gone.c'])
    assert '| dma | 1 | 1 | 0 | 1 |' in md and '| copy | 2 | 1 | 1 | 2 |' in md
    assert '| other | 0 | 0 | 0 | 0 |' in md
    assert '`drivers/net/fake.c:49`' in md and '`drivers/net/gone.c`' in md
    assert '| `drivers/net/old.c:7` | review | PIO |' in md


def test_review_classifies_only_other_sites_and_names_stale_entries(tmp_path: Path) -> None:
    review = tmp_path / 'reviewed.txt'
    review.write_text('# FILE CLASS WHY\n'
                      'drivers/net/a.c  copy  ei_block_input() reads the frame by PIO\n'
                      'drivers/net/b.c  dma  mapped in refill()\n'
                      'drivers/net/gone.c  hw  gone\n')
    sites = [pad_sites.Site('drivers/net/a.c', 1, 'other', 'other: x', 'c'),
             pad_sites.Site('drivers/net/b.c', 2, 'copy', 'copy: x', 'c'),
             pad_sites.Site('drivers/net/b.c', 3, 'other', 'other: x', 'c')]
    out, stale = pad_sites.apply_review(sites, pad_sites.load_review(review))
    assert [(s.cls, s.by) for s in out] == [('copy', 'review'), ('copy', 'semantic patch'),
                                           ('dma', 'review')]
    assert out[0].why == 'ei_block_input() reads the frame by PIO'
    assert stale == ['drivers/net/gone.c']
    review.write_text('drivers/net/a.c  maybe  who knows\n')
    with pytest.raises(ValueError, match='reviewed.txt:1'):
        pad_sites.load_review(review)


def test_the_committed_review_parses() -> None:
    review = pad_sites.load_review(pad_sites.REVIEWED)
    assert review and all(cls != 'other' for cls, _ in review.values())


def test_compile_test_finds_the_files_and_symbols(tree: Path) -> None:
    from rxalign import series
    (tree / 'drivers/net/Makefile').write_text('obj-$(CONFIG_FAKE_NET) += fake.o\n')
    patch = tree / 'p.patch'
    patch.write_text('--- a/drivers/net/fake.c\n+++ b/drivers/net/fake.c\n@@ -1 +1 @@\n')
    assert series.touched_c_files([patch]) == ['drivers/net/fake.c']
    assert kbuild.kconfig_symbol(tree, 'drivers/net/fake.c') == 'FAKE_NET'
    # net/core/Makefile's shape: obj-y lists continued over lines
    (tree / 'net/core').mkdir()
    (tree / 'net/core/Makefile').write_text(
        'obj-y := sock.o request_sock.o \\\n\t skbuff.o datagram.o\n'
        'obj-$(CONFIG_SYSCTL) += sysctl_net_core.o\n')
    assert kbuild.kconfig_symbol(tree, 'net/core/skbuff.c') == kbuild.BUILTIN
    assert kbuild.kconfig_symbol(tree, 'net/core/sysctl_net_core.c') == 'SYSCTL'
    assert kbuild.kconfig_symbol(tree, 'net/core/core.c') is None
    # tulip's shape: tulip_core.o is part of the module tulip.o
    (tree / 'drivers/net/tulip').mkdir()
    (tree / 'drivers/net/tulip/Makefile').write_text(
        'obj-$(CONFIG_TULIP)\t\t+= tulip.o\n'
        'tulip-objs\t\t\t:= eeprom.o interrupt.o media.o \\\n\t\t\t   timer.o tulip_core.o\t\t\\\n'
        '\t\t\t   21142.o pnic.o pnic2.o\n')
    assert kbuild.kconfig_symbol(tree, 'drivers/net/tulip/tulip_core.c') == 'TULIP'
    assert kbuild.kconfig_symbol(tree, 'drivers/net/tulip/pnic2.c') == 'TULIP'
    assert kbuild.kconfig_symbol(tree, 'drivers/net/tulip/other.c') is None
