"""Where each case is in an arch's ktap.log: its line range, its time, a crash's trace.

The reports point a reader at the lines of the console log a case printed
(`ktap.log:120-135`), show how long it took where the console has printk
timestamps, and quote the backtrace of a kernel crash. Names are built as
console.read() builds them (suite.case[.param], from the indentation of
`# Subtest:` and result lines), so they match the cases of the verdict.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Dict, List, Optional

from .console import PANIC, RESULT, SUBTEST, TIMESTAMP
from .crashes import CRASH

STAMP = re.compile(r'^\[\s*(\d+\.\d+)\]')
HEADER = re.compile(r'^\s*(?:K?TAP version \d+|1\.\.\d+|# module: )')   # before a suite's cases
END_OF_TRACE = re.compile(r'---\[ end trace|---\[ end Kernel panic')
TRACE_LINES = 40                # at most this much of a crash is quoted


@dataclasses.dataclass(frozen=True)
class Span:
    """Lines first..last (1-based, both included) of ktap.log."""
    first: int
    last: int
    seconds: Optional[float] = None     # from printk timestamps, when the console has them

    @property
    def anchor(self) -> str:
        """The fragment log viewers (GitLab, GitHub, cgit) scroll to."""
        return f'L{self.first}' if self.first == self.last else f'L{self.first}-L{self.last}'

    @property
    def text(self) -> str:
        return str(self.first) if self.first == self.last else f'{self.first}-{self.last}'


@dataclasses.dataclass
class Index:
    cases: Dict[str, Span] = dataclasses.field(default_factory=dict)
    crash: Optional[Span] = None
    crash_lines: List[str] = dataclasses.field(default_factory=list)


def _stamp(line: str) -> Optional[float]:
    m = STAMP.match(line)
    return float(m.group(1)) if m else None


def index(raw: List[str]) -> Index:
    """A console log's lines -> where each leaf case and the first crash are."""
    out = Index()
    path: List[str] = []
    start = 0                   # index of the line before the next case's first line
    for i, line in enumerate(raw):
        text = TIMESTAMP.sub('', line.rstrip('\n'))
        s = SUBTEST.match(text)
        r = RESULT.match(text) if not s else None
        if HEADER.match(text):
            start = i
        elif s:
            depth = len(s.group(1)) // 4
            path = path[:depth] + [s.group(2).strip()]
            start = i
        elif r:
            depth, name = len(r.group(1)) // 4, r.group(2).strip()
            if depth < len(path) and path[depth] == name:
                path = path[:depth]         # a suite or a parameterised case closes
            else:
                then, now = _stamp(raw[start]), _stamp(line)
                took = round(now - then, 6) if then is not None and now is not None else None
                out.cases['.'.join(path[:depth] + [name])] = Span(start + 2, i + 1, took)
            start = i
        elif out.crash is None and CRASH.match(text):
            end = i
            while end + 1 < len(raw) and end + 1 - i < TRACE_LINES:
                end += 1
                tail = TIMESTAMP.sub('', raw[end])
                if END_OF_TRACE.search(tail) or PANIC.match(tail):
                    break
            out.crash = Span(i + 1, end + 1)
            out.crash_lines = [TIMESTAMP.sub('', ln.rstrip('\n')) for ln in raw[i:end + 1]]
    return out


def read(path: Path) -> Index:
    """The index of a ktap.log; an empty one when there is no such file."""
    try:
        return index(path.read_text(errors='replace').splitlines())
    except OSError:
        return Index()
