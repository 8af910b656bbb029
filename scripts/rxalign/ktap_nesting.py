"""Where a KTAP stream is, line by line: the suite and parameterised case open.

One tracker for every reader that walks a console as it comes
(console.read, live.SuiteProgress).  A `# Subtest:` line opens a suite or a
parameterised case at its depth (four spaces a level); a result line ends
the one open at its depth when it names it, and a case otherwise, named
suite.case[.param] by what is open above it.

`see` says what a line is without moving; `take` moves: a reader that needs
the nesting as it was before the line (a report pinned on the case running)
does its work between the two.
"""

from __future__ import annotations

import dataclasses
import re
from typing import List, Optional, Tuple, Union

TIMESTAMP = re.compile(r'^\[\s*\d+\.\d+\]\s?')
SUBTEST = re.compile(r'^( *)# Subtest: (.+)$')
RESULT = re.compile(r'^( *)(?:not )?ok \d+ (?:- )?([^#]*?)\s*(?:#\s*(\w+)\b\s*(.*))?$')


@dataclasses.dataclass(frozen=True)
class Opened:
    """A `# Subtest:` line: a suite or a parameterised case begins."""
    depth: int
    name: str


@dataclasses.dataclass(frozen=True)
class Ended:
    """A result line."""
    depth: int
    names: Tuple[str, ...]      # what is open above it, then its own name
    parent: bool                # it ends the suite or parameterised case open at its depth
    failed: bool                # `not ok`
    directive: str              # the word after `#` (SKIP), as printed; '' for none
    reason: str                 # what follows the directive

    @property
    def name(self) -> str:
        return self.names[-1]

    @property
    def case(self) -> str:
        """suite.case[.param], or the suite or parameterised case it ends."""
        return '.'.join(self.names)


Step = Union[Opened, Ended]


class Nesting:
    """Feed it lines without timestamps: `path` is the suite, then the
    parameterised case, open now."""

    def __init__(self) -> None:
        self.path: List[str] = []

    def see(self, line: str) -> Optional[Step]:
        """What @line opens or ends, by the nesting as it is (nothing moves)."""
        s = SUBTEST.match(line)
        if s:
            return Opened(len(s.group(1)) // 4, s.group(2).strip())
        r = RESULT.match(line)
        if not r:
            return None
        depth, name = len(r.group(1)) // 4, r.group(2).strip()
        return Ended(depth=depth, names=tuple(self.path[:depth]) + (name,),
                     parent=depth < len(self.path) and self.path[depth] == name,
                     failed=line.lstrip().startswith('not ok'),
                     directive=r.group(3) or '', reason=(r.group(4) or '').strip())

    def take(self, step: Step) -> None:
        """Move past @step, which see() gave for the line now read."""
        if isinstance(step, Opened):
            self.path = self.path[:step.depth] + [step.name]
        elif step.parent:
            self.path = self.path[:step.depth]
