"""series-check's comparison: patch mode and the series must change the same code."""

from __future__ import annotations

from rxalign import series_check

COCCI = '''--- a.c
+++ b.c
@@ -1,2 +1,2 @@
-\tskb_reserve(skb, 2);
+\tskb_reserve(skb, NET_IP_ALIGN);
'''
HAND = COCCI + '''@@ -9 +9 @@
-\tlen - 2,
+\tlen - NET_IP_ALIGN,
'''


def test_equal_changes_pass() -> None:
    lines = series_check.changed_lines(COCCI)
    ok, why = series_check.compare('drivers/net/x.c', lines, lines)
    assert ok and "exactly patch mode's 2 statements" in why


def test_a_series_that_does_more_fails_unless_declared() -> None:
    cocci, series = series_check.changed_lines(COCCI), series_check.changed_lines(HAND)
    ok, why = series_check.compare('drivers/net/x.c', cocci, series)
    assert not ok and 'the series changes what patch mode does not' in why
    assert 'len-NET_IP_ALIGN' in why
    hand = next(iter(series_check.HAND_EDITS))
    ok, why = series_check.compare(hand, cocci, series)
    assert ok and 'plus 2 by hand' in why


def test_a_series_that_misses_a_patch_mode_change_fails() -> None:
    cocci, series = series_check.changed_lines(HAND), series_check.changed_lines(COCCI)
    hand = next(iter(series_check.HAND_EDITS))
    ok, why = series_check.compare(hand, cocci, series)
    assert not ok and 'patch mode changes what the series does not' in why


PRISTINE = '''/* Frames land at an offset of "+2". */
static void refill(void)
{
	for (;;) {
		struct sk_buff *skb = netdev_alloc_skb(dev, np->rx_buf_sz + 2);
		if (skb == NULL)
			break;		/* Better luck next round. */
		skb_reserve(skb, 2);	/* Align IP on 16 byte boundaries */
	}
}
'''
# What spatch prints: the call wrapped at its own width, and the comment of
# the removed reserve glued to the line before.
SPATCH = '''/* Frames land at an offset of "+2". */
static void refill(void)
{
	for (;;) {
		struct sk_buff *skb = netdev_alloc_skb_ip_align(dev,
								np->rx_buf_sz);
		if (skb == NULL)
			break;		/* Better luck next round. *//* Align IP on 16 byte boundaries */
	}
}
'''
# What the series does: wrapped after the =, the glued comment dropped, the
# comment the change made wrong fixed.
SERIES = '''/* Frames land at an offset of NET_IP_ALIGN. */
static void refill(void)
{
	for (;;) {
		struct sk_buff *skb =
			netdev_alloc_skb_ip_align(dev, np->rx_buf_sz);
		if (skb == NULL)
			break;		/* Better luck next round. */
	}
}
'''


def test_layout_and_comments_are_not_compared() -> None:
    cocci = series_check.code_changes(PRISTINE, SPATCH)
    series = series_check.code_changes(PRISTINE, SERIES)
    assert cocci == series
    assert list(series[0]) == ['structsk_buff*skb=netdev_alloc_skb(dev,np->rx_buf_sz+2);',
                               'skb_reserve(skb,2);']
    ok, why = series_check.compare('drivers/net/x.c', cocci, series)
    assert ok and "exactly patch mode's 3 statements" in why


def test_code_in_a_changed_line_still_counts() -> None:
    other = SERIES.replace('np->rx_buf_sz);', 'np->rx_buf_sz - 2);')
    ok, why = series_check.compare('drivers/net/x.c', series_check.code_changes(PRISTINE, SPATCH),
                                   series_check.code_changes(PRISTINE, other))
    assert not ok and 'netdev_alloc_skb_ip_align(dev,np->rx_buf_sz);' in why
