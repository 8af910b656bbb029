"""What changed since a baseline run: per case, per offset cell, per arch.

`scripts/report --baseline DIR` and `run-kunit --baseline DIR` compare the
results with an earlier results directory; run-kunit by default takes the
newest earlier run in kunit-results/ of the same tree base, kernel,
arches and --patches (a run with patches may also take one without),
read from each directory's results.json, never from `latest`, and chosen
and read before any build: one that cannot be read is a warning, never
a lost run. The comparison only shows: the gate is what the cases say,
whatever changed.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import tables
from .exitcodes import Exit, HarnessError
from .results import ArchStatus, CaseStatus, Results, RunMeta, Verdict, read_dir

NONE = 'none'                   # --baseline none: compare with nothing
MISSING = 'MISSING'             # a declared case absent from the KTAP output
SILENT_SKIP = 'SKIP (no reason)'
# A known failure (XFAIL) still fails: a rule made it known, the kernel did not fix it.
FAILING = frozenset({'FAIL', 'XFAIL', 'CRASH', MISSING, SILENT_SKIP})


class Change(str, enum.Enum):
    NEW_FAIL = 'new-fail'       # fails now; passed, skipped or did not exist then
    FIXED = 'fixed'             # failed then, does not now
    CHANGED = 'changed'         # another status or measurement, neither of the above
    NEW = 'new'                 # not in the baseline (and does not fail)
    GONE = 'gone'               # in the baseline, not now


@dataclasses.dataclass(frozen=True)
class CaseChange:
    arch: str
    case: str                   # suite.case[.param]
    kind: Change
    before: str                 # the status shown then ('' when new)
    after: str                  # the status shown now ('' when gone)


@dataclasses.dataclass(frozen=True)
class CellChange:
    """One cell of an offset grid (a path's or a driver's frame on one arch)."""
    table: str                  # 'path' or 'driver', as tables.Matrix.title
    row: tables.Row
    arch: str
    kind: Change
    before: str                 # the cell's measurements then, as tables.cell_text says
    after: str


@dataclasses.dataclass(frozen=True)
class ArchChange:
    arch: str
    before: Optional[ArchStatus]        # None: the arch is not in the baseline
    after: ArchStatus

    @property
    def then(self) -> str:
        return self.before.value if self.before else 'not in the baseline'

    @property
    def worse(self) -> bool:
        """The arch gates harder now than then (an arch not in the baseline
        counts as one that passed)."""
        order = list(GATING)
        return order.index(self.after) > order.index(self.before or ArchStatus.PASSED)


# Arch statuses from least to most gating (known and passed both let the run pass).
GATING = (ArchStatus.PASSED, ArchStatus.KNOWN, ArchStatus.FAILED, ArchStatus.INFRA,
          ArchStatus.ENVIRONMENT)


@dataclasses.dataclass
class Comparison:
    run_id: str                 # the baseline's run
    where: str                  # its directory, as given
    cases: List[CaseChange] = dataclasses.field(default_factory=list)
    cells: List[CellChange] = dataclasses.field(default_factory=list)
    arches: List[ArchChange] = dataclasses.field(default_factory=list)
    not_compared: List[str] = dataclasses.field(default_factory=list)  # arches only now

    def case(self, arch: str, name: str) -> Optional[Change]:
        return self._cases.get((arch, name))

    def cell(self, table: str, row: tables.Row, arch: str) -> Optional[CellChange]:
        return self._cells.get((table, row, arch))

    @property
    def _cases(self) -> Dict[Tuple[str, str], Change]:
        return {(c.arch, c.case): c.kind for c in self.cases}

    @property
    def _cells(self) -> Dict[Tuple[str, tables.Row, str], CellChange]:
        return {(c.table, c.row, c.arch): c for c in self.cells}

    def of_kind(self, kind: Change) -> List[CaseChange]:
        return [c for c in self.cases if c.kind == kind]

    def summary(self, n: int = 3) -> str:
        """One line for the gate banner: new failures first, named (a case that
        fails now and did not, an arch that gates harder now or is not in the
        baseline and does not pass); the rest counted. "no new failure" only
        when nothing gates harder than in the baseline."""
        since = f'since {self.run_id}'
        cases = self.of_kind(Change.NEW_FAIL)
        named = {c.arch for c in cases}
        new = [f'{c.arch} {c.case}' for c in cases] + \
            [f'{a.arch} {a.then} -> {a.after.value}' for a in self.arches
             if a.worse and a.arch not in named]
        counts = [f'{len(self.of_kind(k))} {k.value}' for k in
                  (Change.FIXED, Change.CHANGED, Change.NEW, Change.GONE) if self.of_kind(k)]
        # passed <-> failed is what the cases say; an arch that lost its results is not
        judged = (ArchStatus.PASSED, ArchStatus.FAILED)
        other = [f'{a.arch} {a.then} -> {a.after.value}' for a in self.arches
                 if (a.before not in judged or a.after not in judged)
                 and not (a.worse and a.arch not in named)]
        rest = ', '.join(other + counts)
        if not new:
            return f'no new failure {since}' + (f'; cases: {rest}' if rest else
                                                '; nothing changed')
        more = f' and {len(new) - n} more' if len(new) > n else ''
        return (f'{len(new)} new failure{"s" if len(new) > 1 else ""} {since}: '
                f'{", ".join(new[:n])}{more}' + (f'; also {rest}' if rest else ''))


def shown(v: Verdict, name: str) -> str:
    """A case's status as the comparison sees it: a skip without a reason fails."""
    for c in v.cases:
        if c.name == name:
            if c.status == CaseStatus.SKIP and c.gating:
                return SILENT_SKIP
            return c.shown
    return MISSING if name in v.missing else ''


def _case_kind(before: str, after: str) -> Optional[Change]:
    if before == after:
        return None
    if not before:
        return Change.NEW_FAIL if after in FAILING else Change.NEW
    if not after:
        return Change.GONE
    if after in FAILING and before not in FAILING:
        return Change.NEW_FAIL
    if before in FAILING and after not in FAILING:
        return Change.FIXED
    return Change.CHANGED


def _cells(now: tables.Matrix, then: tables.Matrix, arches: Sequence[str]) -> List[CellChange]:
    out = []
    for row in dict.fromkeys([*now.rows, *then.rows]):
        for arch in arches:
            a, b = then.cell(row, arch) if arch in then.arches else None, now.cell(row, arch)
            before = tables.cell_text(a) if a and a.frames else ''
            after = tables.cell_text(b) if b.frames else ''
            if before == after:
                continue
            if not before:
                kind = Change.NEW_FAIL if b.fit == tables.Fit.OFF else Change.NEW
            elif not after:
                kind = Change.GONE
            elif a and a.fit != tables.Fit.OFF and b.fit == tables.Fit.OFF:
                kind = Change.NEW_FAIL
            elif a and a.fit == tables.Fit.OFF and b.fit != tables.Fit.OFF:
                kind = Change.FIXED
            else:
                kind = Change.CHANGED
            out.append(CellChange(now.title, row, arch, kind, before, after))
    return out


def compare(now: Results, then: Results, where: str = '') -> Comparison:
    """`now` against `then`, arch by arch; an arch the baseline does not have
    is compared with nothing: each case failing now is a new failure, and an
    arch that does not pass is a change."""
    comp = Comparison(run_id=then.meta.run_id if then.runs else '?', where=where)
    both = [a for a in now.arches if a in then.arches]
    comp.not_compared = [a for a in now.arches if a not in then.arches]
    for arch in comp.not_compared:
        v = now.arches[arch]
        if v.status not in (ArchStatus.PASSED, ArchStatus.KNOWN):
            comp.arches.append(ArchChange(arch, None, v.status))
        for name in dict.fromkeys([c.name for c in v.cases] + v.missing):
            after = shown(v, name)
            if after in FAILING:
                comp.cases.append(CaseChange(arch, name, Change.NEW_FAIL, '', after))
    for arch in both:
        v, w = now.arches[arch], then.arches[arch]
        if v.status != w.status:
            comp.arches.append(ArchChange(arch, w.status, v.status))
        if not v.cases and not v.missing:
            continue    # nothing ran now: the arch's own change says it, not each case
        names = [c.name for c in w.cases] + w.missing
        names += [n for n in [c.name for c in v.cases] + v.missing if n not in names]
        for name in dict.fromkeys(names):
            before, after = shown(w, name), shown(v, name)
            kind = _case_kind(before, after)
            if kind:
                comp.cases.append(CaseChange(arch, name, kind, before, after))
    for table in (tables.paths, tables.drivers):
        comp.cells += _cells(table(now), table(then), both)
    return comp


def shown_rows(m: tables.Matrix, comparison: Optional[Comparison]) -> List[tables.Row]:
    """The rows the default view shows: those that differ across arches or against
    the baseline."""
    return [r for r in m.rows if tables.differs(m, r) or
            (comparison and any(comparison.cell(m.title, r, a) for a in m.arches))]


def gone_rows(m: tables.Matrix, comparison: Optional[Comparison]) -> List[tables.Row]:
    """Rows the baseline had and this run does not."""
    if not comparison:
        return []
    return list(dict.fromkeys(c.row for c in comparison.cells
                              if c.table == m.title and c.row not in m.rows))


def read(d: Path) -> Results:
    """A baseline directory's results, or a usage error that says what to give instead."""
    fix = 'give --baseline a results directory of run-kunit, or --baseline none'
    if d.name == 'results.json' and d.is_file():
        d = d.parent            # the file names its directory
    if not (d / 'results.json').is_file():
        raise HarnessError(Exit.USAGE, f'--baseline {d}: no results.json there: {fix}')
    try:
        return read_dir(d)[0]
    except ValueError as e:
        raise HarnessError(Exit.USAGE, f'--baseline {d}: unreadable or of an unknown format '
                           f'({e}): {fix}') from None


Warn = Callable[[str], None]


def _same_run(meta: RunMeta, of: RunMeta) -> bool:
    """@meta is a baseline for a run of @of: the same tree base, kernel,
    arches and suites (a --drivers run is no plain run's), and the same
    --patches or none (a plain run is the baseline of a patched one, never the
    other way round; results that do not say which patches they had are none's)."""
    return (tables.tree_base(meta.tree) == tables.tree_base(of.tree)
            and meta.kernel == of.kernel and sorted(meta.arches) == sorted(of.arches)
            and meta.suites == of.suites
            and meta.patches is not None and meta.patches in ((), of.patches))


def previous(root: Path, of: RunMeta, warn: Warn) -> Optional[Tuple[Path, Results]]:
    """The newest run in `root` (kunit-results/) that is a baseline of a run of
    @of (not itself), read; its results.json says what it was, not its name.
    A file that cannot be read is named by a warning and passed over."""
    found: List[Tuple[str, Path]] = []
    seen = set()
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        real = d.resolve()
        if real in seen or not (d / 'results.json').is_file():
            continue
        seen.add(real)
        try:
            data = json.loads((d / 'results.json').read_text(encoding='utf-8'))
            meta = RunMeta.from_json(data.get('meta') if isinstance(data, dict) else data,
                                     str(d / 'results.json'))
        except (OSError, ValueError, RecursionError) as e:
            warn(f'{d}: passed over as a baseline, its results.json cannot be read ({e})')
            continue
        if meta.run_id != of.run_id and _same_run(meta, of):
            found.append((meta.finished, d))
    for _, d in sorted(found, reverse=True):
        try:
            return d, read_dir(d)[0]
        except ValueError as e:
            warn(f'{d}: passed over as a baseline, it cannot be read ({e})')
    return None


@dataclasses.dataclass
class Option:
    """run-kunit's --baseline: a results directory, `none`, or unset: the previous
    run of the same tree base, kernel, arches and patches in kunit-results/, if
    there is one."""
    spec: Optional[str]
    given: Optional[Results] = None

    @classmethod
    def parse(cls, spec: Optional[str]) -> 'Option':
        """Read a given directory now, so that a wrong one is refused before any build."""
        given = read(Path(spec)) if spec and spec != NONE else None
        return cls(spec, given)

    def choose(self, of: RunMeta, root: Path, warn: Warn) -> Optional[Tuple[str, Results]]:
        """The baseline of a run of @of, and where it is: before any build, so
        that nothing about it can cost the run its results."""
        if self.spec == NONE:
            return None
        if self.given:
            return str(self.spec), self.given
        found = previous(root, of, warn)
        return (str(found[0]), found[1]) if found else None
