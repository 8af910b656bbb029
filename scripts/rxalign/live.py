"""The console as it comes: a line per suite that finished, while the guest runs.

kunit.py prints its test tree as the guest runs, but not with --raw_output=all,
which the driver needs to watch the console; this gives the same news, one
line a suite, between the phase lines ("booting and running...", "... done").
Only what a line says on its own is read: the verdict comes from the whole
log afterwards (verdict.judge), never from this.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, List

from .console import RESULT, SUBTEST, TIMESTAMP


@dataclasses.dataclass
class _Open:
    name: str
    indent: int                 # the indentation of its `# Subtest:` line and its tests


@dataclasses.dataclass
class _Counts:
    passed: int = 0
    skipped: int = 0
    failed: List[str] = dataclasses.field(default_factory=list)


class SuiteProgress:
    """Feed it console lines in order; when a suite's own result line comes, it
    says how the suite's tests went, counted as kunit.py counts them: each
    parameter of a parameterised case, each other case."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self._open: List[_Open] = []     # the suite, then a parameterised case
        self._counts = _Counts()
        self._failed_before = 0          # failures when the open parameterised case began

    def feed(self, raw: str) -> None:
        line = TIMESTAMP.sub('', raw.rstrip('\n'))
        s = SUBTEST.match(line)
        if s:
            if not self._open:
                self._counts = _Counts()
            self._failed_before = len(self._counts.failed)
            self._open.append(_Open(s.group(2).strip(), len(s.group(1))))
            return
        r = RESULT.match(line)
        if not r or not self._open:
            return
        name, skipped = r.group(2).strip(), (r.group(3) or '').upper() == 'SKIP'
        failed = line.lstrip().startswith('not ok')
        if len(r.group(1)) < self._open[-1].indent and name == self._open[-1].name:
            self._open.pop()
            if not self._open:
                self.say(self._summary(name, failed, skipped))
            elif failed and len(self._counts.failed) == self._failed_before:
                self._counts.failed.append(name)     # the case's own `not ok`
            return
        where = ' '.join(o.name for o in self._open[1:] + [_Open(name, 0)])
        if skipped:
            self._counts.skipped += 1
        elif failed:
            self._counts.failed.append(where)
        else:
            self._counts.passed += 1

    def _summary(self, suite: str, failed: bool, skipped: bool) -> str:
        c = self._counts
        said = 'skipped' if skipped else 'not ok' if failed else 'ok'
        parts = [f'{n} {what}' for n, what in ((c.passed, 'passed'), (len(c.failed), 'failed'),
                                              (c.skipped, 'skipped')) if n]
        shown = ', '.join(c.failed[:3]) + (' ...' if len(c.failed) > 3 else '')
        return (f'suite {suite}: {said}' + (f', {", ".join(parts)}' if parts else '')
                + (f' (failed: {shown})' if c.failed else ''))
