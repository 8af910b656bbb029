"""Where each case is in an arch's ktap.log: its line range, its time, a crash's trace.

The reports point a reader at the lines of the console log a case printed
(`ktap.log:120-135`), show how long it took where the console has printk
timestamps, and quote the backtrace of a kernel crash.  console.read()
makes the index in its one walk over the log, with the case names it
files everything else under, and the verdict keeps it (results.json);
results of format 3 and older did not, and their reports index the saved
log with the same walk.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional


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

    def to_json(self) -> List[Any]:
        return [self.first, self.last] + ([self.seconds] if self.seconds is not None else [])

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Span':
        """[first, last] or [first, last, seconds]; ValueError otherwise."""
        ok = isinstance(data, list) and len(data) in (2, 3) and \
            all(isinstance(x, int) and not isinstance(x, bool) for x in data[:2]) and \
            all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in data[2:])
        if not ok:
            raise ValueError(f'{where}: a line span is [first, last] or [first, last, '
                             f'seconds], not {data!r}')
        return cls(data[0], data[1], float(data[2]) if len(data) == 3 else None)


@dataclasses.dataclass
class Index:
    cases: Dict[str, Span] = dataclasses.field(default_factory=dict)
    crash: Optional[Span] = None
    crash_lines: List[str] = dataclasses.field(default_factory=list)

    def to_json(self) -> Dict[str, Any]:
        return {'cases': {name: s.to_json() for name, s in self.cases.items()},
                'crash': self.crash.to_json() if self.crash else None,
                'crash_lines': list(self.crash_lines)}

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Index':
        where = f'{where}: index'
        if not isinstance(data, dict) or not isinstance(data.get('cases', {}), dict):
            raise ValueError(f'{where}: not an object with cases by name')
        lines = data.get('crash_lines', [])
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise ValueError(f'{where}: crash_lines is not a list of strings')
        crash = data.get('crash')
        return cls(cases={name: Span.from_json(s, f'{where}: {name}')
                          for name, s in data.get('cases', {}).items()},
                   crash=Span.from_json(crash, f'{where}: crash') if crash is not None else None,
                   crash_lines=lines)
