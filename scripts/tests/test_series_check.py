"""series-check's comparison: patch mode and the series must change the same lines."""

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
    assert ok and "exactly patch mode's 2 lines" in why


def test_a_series_that_does_more_fails_unless_declared() -> None:
    cocci, series = series_check.changed_lines(COCCI), series_check.changed_lines(HAND)
    ok, why = series_check.compare('drivers/net/x.c', cocci, series)
    assert not ok and 'the series changes what patch mode does not' in why
    assert 'len - NET_IP_ALIGN' in why
    hand = next(iter(series_check.HAND_EDITS))
    ok, why = series_check.compare(hand, cocci, series)
    assert ok and 'plus 2 by hand' in why


def test_a_series_that_misses_a_patch_mode_change_fails() -> None:
    cocci, series = series_check.changed_lines(HAND), series_check.changed_lines(COCCI)
    hand = next(iter(series_check.HAND_EDITS))
    ok, why = series_check.compare(hand, cocci, series)
    assert not ok and 'patch mode changes what the series does not' in why
