"""Known failures (like NIPA's kunit-expected): shown in every report, not gating.

A file of rules for one kernel: a line `kernel: VERSION` (6.12, 7.3, a
--tree's VERSION.PATCHLEVEL) or `kernel: any`, then one rule per line,
`ARCH: NAME  # why`.  A rule belongs to the kernel named above it, and a
rule for a kernel other than the one tested is refused (a usage error),
never applied to a kernel it was not seen on.  ARCH is an arch of the
table or `*`.  NAME is a suite, a suite.case or a suite.case.parameter of
the test module: it covers that test and everything under it (whole names
only, so `x86_64: n` is an error, not a rule that covers every case).  A
failing case a rule covers is a known failure (XFAIL): shown, not gating;
a rule excuses the failed assertion, never a kernel report or a crash in
that case.  A skip without a reason is never covered: it is no failure of
the kernel but of the test.  NAME `*` covers only an arch that ran and
gave no case (a known build failure, a boot that never prints): a failed
case, a crash, a hang, a missing case, or results that are missing still
gate (results.decide() says so); it must name its ARCH.

The marks are made afresh from the rules given, each time (run-kunit,
scripts/report): results.json keeps them for its readers, and no reader
of ours takes them back.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Collection, List, Optional

from .arches import BY_NAME
from .exitcodes import Exit, HarnessError
from .results import CaseStatus, Verdict

ANY = '*'
ANY_KERNEL = 'any'
KERNEL = re.compile(r'^\s*kernel\s*:\s*(\S+)\s*$')


@dataclasses.dataclass(frozen=True)
class Rule:
    arch: str
    name: str                   # suite[.case[.param]], or ANY
    reason: str
    origin: str = ''            # file:line, for errors
    kernel: str = ANY_KERNEL    # the kernel it holds on (the `kernel:` line above it)

    def covers_arch(self, arch: str) -> bool:
        return self.arch in (ANY, arch)

    def covers(self, arch: str, case: str) -> bool:
        return self.covers_arch(arch) and self.name != ANY and \
            (case == self.name or case.startswith(self.name + '.'))


def parse(text: str, origin: str = 'expected-failures') -> List[Rule]:
    rules = []
    kernel = ''
    for n, raw in enumerate(text.splitlines(), 1):
        line, _, reason = raw.partition('#')
        if not line.strip():
            continue
        k = KERNEL.match(line)
        if k:
            kernel = k.group(1)
            continue
        arch, sep, name = line.partition(':')
        if not sep or not arch.strip() or not name.strip():
            raise ValueError(f'{origin}:{n}: expected "ARCH: SUITE.CASE  # why", got {raw!r}')
        if not kernel:
            raise ValueError(f'{origin}:{n}: no kernel named above this rule: write '
                             '"kernel: 6.12" (the kernel it was seen on) or "kernel: any" '
                             'above the rules')
        rules.append(Rule(arch.strip(), name.strip(), reason.strip(), f'{origin}:{n}', kernel))
    return rules


def load(path: Path) -> List[Rule]:
    return parse(path.read_text(), str(path))


def check(rules: List[Rule], arches: Collection[str], suites: Collection[str],
          cases: Collection[str] = (), kernel: Optional[str] = '') -> None:
    """Each rule holds on @kernel (the one tested; '' unknown; None: no results
    to judge) or on any, names a known arch and a suite of the test module, or
    `*`; a case after the suite must be one the module declares (@cases, if given)."""
    for r in rules:
        if kernel is not None and r.kernel not in (ANY_KERNEL, kernel):
            tested = f'kernel {kernel}' if kernel else 'a kernel whose version is unknown'
            raise ValueError(f'{r.origin}: a rule for kernel {r.kernel}, but what is tested '
                             f'here is {tested}: give the rules of that kernel '
                             f'(expected/debian-{kernel or "VERSION"}.expected), or '
                             '"kernel: any" above a rule that holds on every kernel')
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
                cases: Collection[str] = (), kernel: Optional[str] = '') -> List[Rule]:
    """The rules of --expected FILE for @kernel, checked; a usage error that
    names the line."""
    try:
        rules = load(path) if path else []
        check(rules, BY_NAME, suites, cases, kernel)
    except OSError as e:
        raise HarnessError(Exit.USAGE, f'--expected {path}: {e.strerror or e}; give a file '
                           'of a "kernel: VERSION" line and "ARCH: SUITE[.CASE]  # why" lines '
                           '(docs/results.md: --expected)') from None
    except UnicodeDecodeError as e:
        raise HarnessError(Exit.USAGE, f'--expected {path}: not a text file (byte {e.start} is '
                           f'no {e.encoding}); give a file of a "kernel: VERSION" line and '
                           '"ARCH: SUITE[.CASE]  # why" lines') from None
    except ValueError as e:
        raise HarnessError(Exit.USAGE, f'--expected: {e}') from None
    return rules


def whole_arch(rules: List[Rule], arch: str) -> Optional[Rule]:
    """The rule, if any, that expects the arch's results to be missing."""
    return next((r for r in rules if r.covers_arch(arch) and r.name == ANY), None)


def apply(verdict: Verdict, rules: List[Rule]) -> Verdict:
    """Mark the known failures of one arch's verdict, afresh from @rules (a mark
    they do not make is taken away); returns it."""
    for case in verdict.cases:
        rule = next((r for r in rules if r.covers(verdict.arch, case.name)), None)
        # a rule excuses the assertion, never what the kernel reported meanwhile
        excused = case.status == CaseStatus.FAIL and rule and not case.report
        case.known = (rule.reason or rule.origin) if rule and excused else ''
    whole = whole_arch(rules, verdict.arch)
    verdict.known = (whole.reason or whole.origin) if whole else ''
    return verdict
