"""How the harness writes a duration, in one place: progress lines and every report."""

from __future__ import annotations


def seconds(s: float) -> str:
    """A phase's time: whole seconds, minutes above one (`1m34s`, `2s`)."""
    m, sec = divmod(int(round(s)), 60)
    return f'{m}m{sec:02d}s' if m else f'{sec}s'
