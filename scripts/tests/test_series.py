"""series.py: how a run's tree names the tree fixes it took."""

from __future__ import annotations

from pathlib import Path
from typing import List

from rxalign import arches, series

FIXES = (('0001-alpha-mm-do-not-call-show_signal_msg-which-alpha-doe.patch',
          'alpha: mm: do not call show_signal_msg(), which alpha does not have',
          'arch/alpha/mm/fault.c'),
         ('0002-parisc-cache-reject-PDC-cache-strides-longer-than-a-.patch',
          'parisc: cache: reject PDC cache strides longer than a cache line',
          'arch/parisc/kernel/cache.c'),
         ('0003-net-macsonic-select-BITREVERSE-for-bitrev8.patch',
          'net: macsonic: select BITREVERSE for bitrev8()',
          'drivers/net/ethernet/natsemi/Kconfig'))


def fixes(tmp_path: Path) -> List[Path]:
    out = []
    for name, subject, changed in FIXES:
        p = tmp_path / name
        p.write_text(f'From 0d82a429 Mon Sep 17 00:00:00 2001\nFrom: x <x@y>\n'
                     f'Subject: [PATCH] {subject}\n\n---\n'
                     f'diff --git a/{changed} b/{changed}\n--- a/{changed}\n+++ b/{changed}\n'
                     '@@ -1 +1 @@\n-a\n+b\n-- \n2.39.5\n')
        out.append(p)
    return out


def test_tree_fixes_of_other_arches_are_counted_not_listed(tmp_path: Path) -> None:
    """Issue 43.8: a mips run's report listed every tree fix by its file name,
    cut mid-word by git format-patch, those for arches it never built too.
    Seen failing on the code before, whose label for /tmp/r73mips-before
    (`--arch mips` on 7.3) read `... + tree fix
    0001-alpha-mm-do-not-call-show_signal_msg-which-alpha-doe + tree fix
    0002-parisc-cache-reject-PDC-cache-strides-longer-than-a- + tree fix
    0003-net-macsonic-select-BITREVERSE-for-bitrev8 + series ...`."""
    given = fixes(tmp_path)
    mips = series.fixes_label(given, arches.select('mips'))
    # the macsonic fix changes a Kconfig every arch reads: it is shown
    assert mips == (' + tree fix "net: macsonic: select BITREVERSE for bitrev8()"'
                    ' + 2 tree fixes for other arches (alpha, parisc)')
    assert series.fixes_label(given[:2], arches.select('mips,x86_64')) == \
        ' + 2 tree fixes (none for mips, x86_64: alpha, parisc)'
    assert series.fixes_label(given[:2], arches.select('parisc')) == (
        ' + tree fix "parisc: cache: reject PDC cache strides longer than a cache line"'
        ' + 1 tree fix for other arches (alpha)')
    assert series.fixes_label([], arches.select('mips')) == ''
    assert 'show_signal_msg-which-alpha-doe' not in mips


def test_a_series_comes_after_the_series_it_is_made_on() -> None:
    """net-next-tulip changes the lines net-tulip changes (issue 49 split
    them): every run must apply net-tulip first."""
    order = [s.name for s in series.SERIES]
    for s in series.SERIES:
        for base in s.after:
            assert base in order[:order.index(s.name)], (s.name, base)
    assert series.BY_NAME['net-next-tulip'].after == ('net-tulip',)
