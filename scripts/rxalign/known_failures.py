"""Known failures (like NIPA's kunit-expected): shown in every report, not gating.

One rule per line, `ARCH: CASE-PREFIX  # why`; ARCH may be `*`, and a
CASE-PREFIX of `*` also covers an arch whose results are missing altogether
(a known build failure).  A failing case a rule covers becomes XFAIL; an
arch whose only failures are known passes the gate.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Dict, List


@dataclasses.dataclass(frozen=True)
class Rule:
    arch: str
    prefix: str
    reason: str

    def covers(self, arch: str, name: str) -> bool:
        return self.arch in ('*', arch) and (self.prefix == '*' or name.startswith(self.prefix))


def parse(text: str, origin: str = 'expected-failures') -> List[Rule]:
    rules = []
    for n, raw in enumerate(text.splitlines(), 1):
        line, _, reason = raw.partition('#')
        if not line.strip():
            continue
        arch, sep, prefix = line.partition(':')
        if not sep or not arch.strip() or not prefix.strip():
            raise ValueError(f'{origin}:{n}: expected "ARCH: CASE-PREFIX  # why", got {raw!r}')
        rules.append(Rule(arch.strip(), prefix.strip(), reason.strip()))
    return rules


def load(path: Path) -> List[Rule]:
    return parse(path.read_text(), str(path))


def apply(arch: str, verdict: Dict[str, Any], rules: List[Rule]) -> Dict[str, Any]:
    """Mark known failures in one arch's verdict JSON; returns it."""
    known = 0
    for case in verdict.get('cases', []):
        if case['status'] == 'FAIL' and any(r.covers(arch, case['name']) for r in rules):
            case['status'] = 'XFAIL'
            known += 1
    if verdict['status'] == 'failed' and known and \
            not any(c['status'] == 'FAIL' for c in verdict.get('cases', [])):
        verdict['status'] = 'passed'
        verdict['cause'] = f'{arch}: passed with {known} known failure(s)'
    elif verdict['status'] in ('infra', 'environment'):
        rule = next((r for r in rules if r.covers(arch, '*') and r.prefix == '*'), None)
        if rule:
            verdict['status'] = 'known'
            verdict['cause'] += f' [known: {rule.reason or "expected-failures"}]'
    return verdict
