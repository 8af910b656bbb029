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

from .ktap_nesting import TIMESTAMP, Ended, Nesting, Opened


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
        self._nesting = Nesting()        # the suite, then a parameterised case
        self._counts = _Counts()
        self._failed_before = 0          # failures when the open parameterised case began

    def feed(self, raw: str) -> None:
        step = self._nesting.see(TIMESTAMP.sub('', raw.rstrip('\n')))
        if isinstance(step, Opened):
            if not self._nesting.path:
                self._counts = _Counts()
            self._failed_before = len(self._counts.failed)
        elif isinstance(step, Ended) and self._nesting.path:
            self._ended(step)
        if step:
            self._nesting.take(step)

    def _ended(self, r: Ended) -> None:
        skipped = r.directive.upper() == 'SKIP'
        if r.parent and r.depth == 0:
            self.say(self._summary(r.name, r.failed, skipped))
        elif r.parent:
            if r.failed and len(self._counts.failed) == self._failed_before:
                self._counts.failed.append(r.name)     # the case's own `not ok`
        elif skipped:
            self._counts.skipped += 1
        elif r.failed:
            self._counts.failed.append(' '.join(r.names[1:]))
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
