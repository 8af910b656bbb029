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
    assert [(n, live) for _, n, live in sites] == [(9, True), (20, True), (30, True), (37, False)]


@pytest.mark.skipif(not shutil.which('spatch'), reason='coccinelle not installed')
def test_the_semantic_patch_classifies_and_converts(tree: Path, tmp_path: Path) -> None:
    sites = audit.spatch_sites(tree, ['drivers/net/fake.c'], tmp_path / 'log')
    assert [(s.line, s.cls) for s in sites] == [(9, 'dma'), (20, 'copy'), (30, 'other')]
    proc = subprocess.run(['spatch', '--very-quiet', '-D', 'patch', '--no-includes',
                           '--include-headers', '--sp-file', audit.COCCI, 'drivers/net/fake.c'],
                          cwd=tree, capture_output=True, text=True, check=True)
    removed = [ln for ln in proc.stdout.splitlines() if ln.startswith('-\t')]
    added = [ln for ln in proc.stdout.splitlines() if ln.startswith('+\t')]
    # only the DMA-mapped buffer, and the + 2 of its allocation
    assert [ln.strip('-\t ') for ln in removed] == [
        'struct sk_buff *skb = netdev_alloc_skb(dev, 1536 + 2);', 'skb_reserve(skb, 2);']
    assert all('NET_IP_ALIGN' in ln for ln in added) and len(added) == 2


def test_markdown_counts(tree: Path) -> None:
    sites = [audit.Site('drivers/net/fake.c', 9, 'dma', '', 'skb_reserve(skb, 2);'),
             audit.Site('drivers/net/fake.c', 20, 'copy', '', 'skb_reserve(skb, 2);')]
    md = audit.markdown('fake', sites, [], [('drivers/net/fake.c', 37)])
    assert '| dma | 1 | 1 |' in md and '| copy | 1 | 1 |' in md and '| other | 0 | 0 |' in md
    assert '`drivers/net/fake.c:37`' in md
