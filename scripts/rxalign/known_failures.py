"""Known failures (like NIPA's kunit-expected): shown in every report, not gating.

One rule per line, `ARCH: NAME  # why`.  ARCH is an arch of the table or
`*`.  NAME is a suite, a suite.case or a suite.case.parameter of the test
module: it covers that test and everything under it (whole names only, so
`x86_64: n` is an error, not a rule that covers every case).  A failing
case a rule covers is a known failure (XFAIL): shown, not gating.  A skip
without a reason is never covered: it is no failure of the kernel but of
the test.  NAME `*` covers only an arch whose results are missing
altogether (a known build failure, a boot that never prints): a failed
case, a crash, a hang or a missing case of an arch that ran any case
still gates (results.decide() says so); it must name its ARCH.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Collection, List, Optional

from .arches import BY_NAME
from .exitcodes import Exit, HarnessError
from .results import CaseStatus, Verdict

ANY = '*'


@dataclasses.dataclass(frozen=True)
class Rule:
    arch: str
    name: str                   # suite[.case[.param]], or ANY
    reason: str
    origin: str = ''            # file:line, for errors

    def covers_arch(self, arch: str) -> bool:
        return self.arch in (ANY, arch)

    def covers(self, arch: str, case: str) -> bool:
        return self.covers_arch(arch) and self.name != ANY and \
            (case == self.name or case.startswith(self.name + '.'))


def parse(text: str, origin: str = 'expected-failures') -> List[Rule]:
    rules = []
    for n, raw in enumerate(text.splitlines(), 1):
        line, _, reason = raw.partition('#')
        if not line.strip():
            continue
        arch, sep, name = line.partition(':')
        if not sep or not arch.strip() or not name.strip():
            raise ValueError(f'{origin}:{n}: expected "ARCH: SUITE.CASE  # why", got {raw!r}')
        rules.append(Rule(arch.strip(), name.strip(), reason.strip(), f'{origin}:{n}'))
    return rules


def load(path: Path) -> List[Rule]:
    return parse(path.read_text(), str(path))


def check(rules: List[Rule], arches: Collection[str], suites: Collection[str],
          cases: Collection[str] = ()) -> None:
    """Each rule names a known arch and a suite of the test module, or `*`; a
    case after the suite must be one the module declares (@cases, if given)."""
    for r in rules:
        if r.arch == ANY and r.name == ANY:
            raise ValueError(f'{r.origin}: "*: *" would excuse every arch whose results are '
                             'missing, a build or boot failure anywhere; name the arch '
                             '("sh: *")')
        if r.arch != ANY and r.arch not in arches:
            raise ValueError(f'{r.origin}: unknown arch {r.arch!r}; known: '
                             f'{", ".join(sorted(arches))}, or "*"')
        if r.name != ANY and r.name.split('.')[0] not in suites:
            raise ValueError(f'{r.origin}: {r.name!r} names no suite of the test module '
                             f'({", ".join(sorted(suites))}): write a whole suite, '
                             'suite.case or suite.case.parameter, or "*" for an arch '
                             'whose results are missing')
        parts = r.name.split('.')
        if cases and r.name != ANY and len(parts) > 1 and parts[1] not in cases:
            raise ValueError(f'{r.origin}: {r.name!r}: {parts[0]} has no case {parts[1]!r} '
                             '(the KUNIT_CASE names in kunit-tests/*.c): fix the name')


def from_option(path: Optional[Path], suites: Collection[str],
                cases: Collection[str] = ()) -> List[Rule]:
    """The rules of --expected FILE, checked; a usage error that names the line."""
    try:
        rules = load(path) if path else []
        check(rules, BY_NAME, suites, cases)
    except OSError as e:
        raise HarnessError(Exit.USAGE, f'--expected {path}: {e.strerror or e}; give a file '
                           'of "ARCH: SUITE[.CASE]  # why" lines (docs/results.md: --expected)') from None
    except UnicodeDecodeError as e:
        raise HarnessError(Exit.USAGE, f'--expected {path}: not a text file (byte {e.start} is '
                           f'no {e.encoding}); give a file of "ARCH: SUITE[.CASE]  # why" '
                           'lines') from None
    except ValueError as e:
        raise HarnessError(Exit.USAGE, f'--expected: {e}') from None
    return rules


def whole_arch(rules: List[Rule], arch: str) -> Optional[Rule]:
    """The rule, if any, that expects the arch's results to be missing."""
    return next((r for r in rules if r.covers_arch(arch) and r.name == ANY), None)


def apply(verdict: Verdict, rules: List[Rule]) -> Verdict:
    """Mark the known failures of one arch's verdict; returns it."""
    for case in verdict.cases:
        rule = next((r for r in rules if r.covers(verdict.arch, case.name)), None)
        # a rule excuses the assertion, never what the kernel reported meanwhile
        if case.status == CaseStatus.FAIL and rule and not case.report:
            case.known = rule.reason or rule.origin
    whole = whole_arch(rules, verdict.arch)
    if whole:
        verdict.known = whole.reason or whole.origin
    return verdict
