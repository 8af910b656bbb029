"""The semantic patch of kernel-patches/ on a small driver, and the audit around it."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from rxalign import audit

SERIES = Path(__file__).resolve().parents[2] / 'kernel-patches'

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

    #if 0
    static void dead(struct sk_buff *skb)
    {
    	skb_reserve(skb, 2);
    }
    #endif
    ''')


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
    sites = audit.grep_sites(tree)
    assert [(n, live) for _, n, live in sites] == [(9, True), (20, True), (30, True), (42, True),
                                                  (50, False)]


@pytest.mark.skipif(not shutil.which('spatch'), reason='coccinelle not installed')
def test_the_semantic_patch_classifies_and_converts(tree: Path, tmp_path: Path) -> None:
    sites = audit.spatch_sites(tree, ['drivers/net/fake.c'], tmp_path / 'log')
    assert [(s.line, s.cls) for s in sites] == [(9, 'dma'), (20, 'copy'), (30, 'other'),
                                                (42, 'dma')]
    proc = subprocess.run(['spatch', '--very-quiet', '-D', 'patch', '--no-includes',
                           '--include-headers', '--sp-file', audit.COCCI, 'drivers/net/fake.c'],
                          cwd=tree, capture_output=True, text=True, check=True)
    removed = [ln for ln in proc.stdout.splitlines() if ln.startswith('-\t')]
    added = [ln for ln in proc.stdout.splitlines() if ln.startswith('+\t')]
    # only the DMA-mapped buffers, and the + 2 of their allocations; a chained
    # assignment is split (checkpatch wants one assignment a line)
    assert [ln.strip('-\t ') for ln in removed] == [
        'struct sk_buff *skb = netdev_alloc_skb(dev, 1536 + 2);', 'skb_reserve(skb, 2);',
        'skb = *slot = netdev_alloc_skb(dev, 1536 + 2);', 'skb_reserve(skb, 2);']
    assert [ln.strip('+\t ') for ln in added] == [
        'struct sk_buff *skb = netdev_alloc_skb(dev, 1536 + NET_IP_ALIGN);',
        'skb_reserve(skb, NET_IP_ALIGN);',
        'skb = netdev_alloc_skb(dev, 1536 + NET_IP_ALIGN);', '*slot = skb;',
        'skb_reserve(skb, NET_IP_ALIGN);']


def test_markdown_counts(tree: Path) -> None:
    sites = [audit.Site('drivers/net/fake.c', 9, 'dma', '', 'skb_reserve(skb, 2);'),
             audit.Site('drivers/net/fake.c', 20, 'copy', '', 'skb_reserve(skb, 2);')]
    md = audit.markdown('fake', sites, [], [('drivers/net/fake.c', 49)])
    assert '| dma | 1 | 1 |' in md and '| copy | 1 | 1 |' in md and '| other | 0 | 0 |' in md
    assert '`drivers/net/fake.c:49`' in md


def test_compile_test_finds_the_files_and_symbols(tree: Path) -> None:
    from rxalign import compile_test
    (tree / 'drivers/net/Makefile').write_text('obj-$(CONFIG_FAKE_NET) += fake.o\n')
    patch = tree / 'p.patch'
    patch.write_text('--- a/drivers/net/fake.c\n+++ b/drivers/net/fake.c\n@@ -1 +1 @@\n')
    assert compile_test.touched_c_files([patch]) == ['drivers/net/fake.c']
    assert compile_test.kconfig_symbol(tree, 'drivers/net/fake.c') == 'FAKE_NET'
