"""How the harness writes a duration, in one place: progress lines and every report."""

from __future__ import annotations

from typing import Sequence


def seconds(s: float) -> str:
    """A phase's time: whole seconds, minutes above one (`1m34s`, `2s`)."""
    m, sec = divmod(int(round(s)), 60)
    return f'{m}m{sec:02d}s' if m else f'{sec}s'


def columns(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cells as aligned columns, two spaces apart, no trailing blanks."""
    widths = [max(len(r[i]) for r in rows if i < len(r)) for i in range(max(map(len, rows)))]
    return '\n'.join('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
