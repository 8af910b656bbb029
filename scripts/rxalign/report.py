"""Report writers: one Results in, report.md/.html, junit.xml, JSON out.

report.md, junit.xml and the JSON are written here, report.html by
report_html.py; what both reports tabulate is computed once in tables.py.
They all read the same typed Results (results.py), so a report made at the
end of a run and one regenerated later by scripts/report from several
results directories are the same, and every status they show is decided
from the cases by results.decide().
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import baseline, console, fmt, ktap_index, report_html, tables
from .exitcodes import Exit, HarnessError
from .report_html import Links
from .results import (ArchStatus, Case, CaseStatus, FrameVerdict, Problem, ProblemKind,
                      Results, RunMeta, Verdict, decide)

REPORT_FILES = ('report.md', 'report.html', 'junit.xml', 'results.json', 'kcidb.json')


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(text, encoding='utf-8')
    os.replace(tmp, path)


def merge(parts: Sequence[Tuple[Path, Results]], run_id: str = '',
          require: Sequence[str] = ()) -> Results:
    """Several results directories (a CI that fans arches out) into one.

    They must have tested the same thing in the same run: the same tree
    content, the same series, the same run id (and `run_id`, when given);
    each arch may come from one directory only. Every arch in `require`, or
    that a run was asked for, that none of them has gets an infra verdict:
    its job ended without results, and that must not read as a pass.
    """
    merged = Results(runs=[], arches={})
    where: Dict[str, Path] = {}
    first: Optional[Tuple[Path, RunMeta]] = None
    for d, part in parts:
        for meta in part.runs:
            if run_id and meta.run_id != run_id:
                raise HarnessError(Exit.MISMATCH, f'{d}: results of run {meta.run_id!r}, not '
                                   f'of this run ({run_id!r}): a directory left by an '
                                   'earlier pipeline? Merge only this run\'s results')
            if first is None:
                first = (d, meta)
            elif meta.identity() != first[1].identity():
                diff = [f'{k} {getattr(meta, k)!r} vs {getattr(first[1], k)!r}'
                        for k in RunMeta.IDENTITY if getattr(meta, k) != getattr(first[1], k)]
                raise HarnessError(Exit.MISMATCH, f'{d} and {first[0]} are results of '
                                   f'different runs or trees ({"; ".join(diff)}): merge only '
                                   'the results of one run of one tree')
            merged.runs.append(meta)
        for arch, v in part.arches.items():
            if arch in where:
                raise HarnessError(Exit.MISMATCH, f'{arch} is in both {where[arch]} and {d}: '
                                   'merge one results directory per arch')
            where[arch] = d
            merged.arches[arch] = v
    asked = [a for meta in merged.runs for a in meta.arches]
    for arch in dict.fromkeys([*require, *asked]):
        if arch not in merged.arches:
            merged.arches[arch] = Verdict(arch=arch, problems=[Problem(
                ProblemKind.NO_RESULTS, f'{arch}: no results: no results directory of this run has '
                'it (its job ended before writing them, or was never run)')])
    return merged


# ---- report.md ----

def _md(text: str) -> str:
    """Text from a log, safe in a markdown table cell."""
    return text.replace('|', '\\|').replace('\n', ' ')


def _md_link(text: str, href: str) -> str:
    return f'[{text}]({href})' if href else text


def _md_cell(m: tables.Matrix, row: tables.Row, arch: str,
             comparison: Optional[baseline.Comparison]) -> str:
    cell = m.cell(row, arch)
    change = comparison.cell(m.title, row, arch) if comparison else None
    if not cell.frames:
        return f'{change.kind.value} (was {_md(change.before)})' if change else '—'
    seen = cell.seen
    parts = []
    for s in seen:
        text = ' / '.join(tables.number(n) for n in (s.offsets.headroom, s.offsets.nh_mod4,
                                                     s.offsets.mac_line_off))
        if s.fit == tables.Fit.OFF:
            text = f'✗ {text}'
        if len(seen) > 1 and s.lengths:
            text += f' ({tables.lengths_text(s.lengths)})'
        parts.append(text)
    text = '; '.join(parts)
    if m.title == 'driver':
        said = ', '.join(k.value for k in cell.verdicts) or '?'
        if FrameVerdict.FAIL in cell.verdicts:
            said = f'**{said}**'
        if len(m.classes(row)) > 1:
            said += ' (' + ', '.join(k.value for k in cell.classes) + ')'
        text = f'{said}: {text}'
    if change:
        text += f' **{change.kind.value}**' + (f' (was {change.before})' if change.before else '')
    return _md(text)


def _md_matrix(m: tables.Matrix, results: Results, rows: Sequence[tables.Row],
               comparison: Optional[baseline.Comparison]) -> List[str]:
    driver = m.title == 'driver'
    heads = [m.title] + (['class'] if driver else []) + ['frame']
    heads += [tables.align_head(a, results.arches.get(a)) for a in m.arches]
    out = ['| ' + ' | '.join(_md(h) for h in heads) + ' |', '|---' * len(heads) + '|']
    last = ''
    for row in rows:
        name = row[0]
        lead = [_md(name) if name != last else '']
        if driver:
            lead.append(', '.join(k.value for k in m.classes(row)) or '?')
        last = name
        out.append('| ' + ' | '.join(lead + [_md(row[1])]
                                     + [_md_cell(m, row, a, comparison) for a in m.arches])
                   + ' |')
    return out


def _md_grid(m: tables.Matrix, results: Results,
             comparison: Optional[baseline.Comparison]) -> List[str]:
    """The rows that differ, then the whole grid behind a <details>."""
    rows = baseline.shown_rows(m, comparison)
    out = [f'{len(rows)} of {len(m.rows)} rows differ (a frame off, arches that disagree'
           + (f', or a change since {comparison.run_id}' if comparison else '') + ').', '']
    if rows:
        out += _md_matrix(m, results, rows, comparison) + ['']
    gone = baseline.gone_rows(m, comparison)
    if gone:
        out += [f'Gone since {comparison.run_id if comparison else "?"}: '
                + ', '.join(f'{r[0]} {r[1]}' for r in gone), '']
    out += [f'<details><summary>The full grid: {len(m.rows)} rows</summary>', '']
    out += _md_matrix(m, results, m.rows, comparison) + ['', '</details>', '']
    return out


def _md_measured(results: Results, comparison: Optional[baseline.Comparison]) -> List[str]:
    paths, drivers = tables.paths(results), tables.drivers(results)
    malformed = [(a, x) for a, v in results.arches.items() for x in v.malformed_frames]
    if not paths and not drivers and not malformed:
        return []
    out = ['## Where the frame lands (rx_align_frame)', '',
           'Each cell: headroom / IP header mod 4 / MAC header offset in its cache line, in '
           'bytes (frame lengths when they differ). Each frame\'s IP header is judged by the '
           'rule its case named (rx_align_want()): ' + tables.legend(tables.RULE_MEANINGS)
           + '; the column head names the arch\'s NET_IP_ALIGN; ✗ marks a frame whose IP '
           'header is not where its rule wants it.', '']
    empty = tables.without_results(results)
    if empty:
        out += ['Not in the grids, with no results: '
                + '; '.join(f'{a} ({_md(why)})' for a, why in empty.items()), '']
    if paths:
        out += ['### Receive paths', ''] + _md_grid(paths, results, comparison)
    if drivers:
        out += ['### Drivers', '', 'Class: how the driver places the frame ('
                + tables.legend(tables.CLASS_MEANINGS) + '). Verdict: the drivers suite\'s ('
                + tables.legend(tables.VERDICT_MEANINGS) + ').', ''] \
            + _md_grid(drivers, results, comparison)
        out += _md_nic_counts(tables.nic_counts(results))
    if malformed:
        out += [f'{len(malformed)} rx_align_frame: line(s) could not be read:', '']
        out += [f'- {a}, `{x.case}`: `{x.line}` ({x.why})' for a, x in malformed]
        out.append('')
    return out


def _md_nic_counts(counts: List[tables.NicCount]) -> List[str]:
    if not counts:
        return []
    out = ['### Frames per NIC', '', 'Sent: distinct frames (a frame not seen is sent again, '
           'up to three times: resent); judged: every frame but a hypervisor\'s (recorded); '
           '2 off: IP header not on a 4-byte boundary; fixups: unaligned-access fixups '
           'counted while its frames were received (-: the arch has no counter); bands: '
           'copied by the driver or received in its buffer.', '',
           '| arch | NIC | case | sent | received | judged | 2 off | failed | lost | resent '
           '| fixups | bands |', '|---|---|---|---|---|---|---|---|---|---|---|---|']
    out += [f'| {c.arch} | {_md(c.nic)} | {c.status} | {c.sent} | {c.received} | {c.judged} '
            f'| {c.off} | {c.failed} | {c.lost} | {c.resent} | {tables.fixups_text(c.fixups)} '
            f'| {tables.bands_text(c.bands)} |' for c in counts]
    return out + ['']


def _md_coverage(results: Results) -> List[str]:
    """--coverage: a line per profiled file of each arch (its lines and
    functions in <arch>/coverage/)."""
    out: List[str] = []
    for name, v in results.arches.items():
        if v.coverage:
            out += [f'## Coverage: {name} (`{name}/coverage/`)', '']
            out += [f'- {c.describe()}' for c in v.coverage] + ['']
    return out


def _md_changes(comparison: Optional[baseline.Comparison]) -> List[str]:
    if not comparison:
        return []
    out = [f'## Changes since {comparison.run_id}', '',
           f'Baseline: `{comparison.where}` (run `{comparison.run_id}`). The gate is this '
           'run\'s cases alone.', '']
    for a in comparison.arches:
        out.append(f'- {a.arch}: {a.then} -> {a.after.value}')
    if comparison.not_compared:
        out.append('- not in the baseline (a case failing there is new): '
                   + ', '.join(comparison.not_compared))
    if comparison.arches or comparison.not_compared:
        out.append('')
    if comparison.cases:
        out += ['| arch | case | change | then | now |', '|---|---|---|---|---|']
        for kind in baseline.Change:
            out += [f'| {c.arch} | `{_md(c.case)}` | {c.kind.value} | {c.before or "—"} | '
                    f'{c.after or "—"} |' for c in comparison.of_kind(kind)]
        out.append('')
    return out


def _md_case_line(arch: str, case: Case, links: Mapping[str, str],
                  where: Optional[ktap_index.Span]) -> str:
    tag = f' (known failure: {case.known})' if case.shown == 'XFAIL' else ''
    what = case.message or case.shown
    if case.gating and case.status == CaseStatus.SKIP:
        what = 'skipped without a reason'
    lines = ''
    if where and 'ktap.log' in links:
        lines = ' (' + _md_link(f'ktap.log:{where.text}',
                                f'{links["ktap.log"]}#{where.anchor}') + ')'
    return f'- `{case.name}`{tag}{lines}: {_md(what)}'


def _md_every_case(results: Results, links: Links, index: Mapping[str, ktap_index.Index],
                   comparison: Optional[baseline.Comparison]) -> List[str]:
    out = ['## Every case', '']
    for arch, v in results.arches.items():
        if not v.cases and not v.missing:
            continue
        spans = index[arch].cases if arch in index else {}
        log = links.get(arch, {}).get('ktap.log', '')
        timed = tables.timed(v, spans)
        heads = ['case', 'parameter', 'status'] + (['time'] if timed else []) + \
            ['ktap.log', 'change']
        out += [f'<details><summary>{arch}: {len(v.cases)} cases'
                + (f', {len(v.missing)} missing' if v.missing else '') + '</summary>', '',
                '| ' + ' | '.join(heads) + ' |', '|---' * len(heads) + '|']
        for c in v.cases:
            key = tables.case_key(c.name)
            param = c.name[len(key) + 1:]
            where = spans.get(c.name)
            took = [tables.case_time(where.seconds) if where and where.seconds is not None
                    else ''] if timed else []
            at = _md_link(where.text, f'{log}#{where.anchor}' if log else '') if where else ''
            change = comparison.case(arch, c.name) if comparison else None
            out.append('| ' + ' | '.join([f'`{_md(key)}`', _md(param),
                                          baseline.shown(v, c.name), *took, at,
                                          change.value if change else '']) + ' |')
        for m in v.missing:
            change = comparison.case(arch, m) if comparison else None
            out.append('| ' + ' | '.join([f'`{_md(m)}`', '', 'MISSING', *([''] if timed else []),
                                          '', change.value if change else '']) + ' |')
        out += ['', '</details>', '']
    return out if len(out) > 2 else []


def _md_skips(results: Results) -> List[str]:
    out = []
    for arch, v in results.arches.items():
        by: Dict[str, List[str]] = {}
        for c in v.cases:
            if c.status == CaseStatus.SKIP and c.message:
                by.setdefault(c.message, []).append(c.name)
        for reason, names in by.items():
            out.append(f'- {arch}: {_md(reason)}: {len(names)} case(s): '
                       + ', '.join(f'`{_md(n)}`' for n in names[:5])
                       + (' ...' if len(names) > 5 else ''))
    return ['## Skipped, with a reason', ''] + out + [''] if out else []


def markdown(results: Results, links: Optional[Links] = None,
             index: Optional[Mapping[str, ktap_index.Index]] = None,
             comparison: Optional[baseline.Comparison] = None) -> str:
    links, index = links or {}, index or {}
    arches = results.arches
    tree = tables.tree_base(results.meta.tree) if results.runs else ''
    out = [f'# rx-align KUnit report: {tree}', '', f'**{tables.gate_line(results)}**', '']
    if comparison:
        out += [f'**{comparison.summary()}**', '']
    if results.runs:
        meta = results.meta
        out += [f'tree `{meta.tree}`, run `{meta.run_id}`, head `{meta.head[:12]}`, tree hash '
                f'`{meta.tree_hash[:12]}`, series `{meta.series[:12]}`, finished '
                + ', '.join(dict.fromkeys(r.finished for r in results.runs)), '']
        out += [f'{what}: `{text}`  ' for what, text in tables.provenance(results)]
        out += [f'**partial: {r.interrupted}**' for r in results.runs if r.interrupted]
        out += [f'toolchain: {line}  ' for line in tables.toolchains(results)] + ['']
        out += [''] if any(r.interrupted for r in results.runs) else []
    out.append('| arch | verdict | pass | fail | known | skip | missing | build | boot+run | '
               'logs |')
    out.append('|---|---|---|---|---|---|---|---|---|---|')
    for name, v in arches.items():
        c = tables.counts(v)
        logs = ', '.join(_md_link(f, href) for f, href in links.get(name, {}).items()) or '—'
        out.append(f'| {name} | {v.status.value} | {c["PASS"]} | {c["FAIL"] + c["CRASH"]} | '
                   f'{c["XFAIL"]} | {c["SKIP"]} | {c["MISSING"]} | '
                   f'{tables.phase_time(v, "build")} | {tables.phase_time(v, "run")} | {logs} |')
    out.append('')
    out += _md_changes(comparison)
    out += ['## Policy facts (from net_rx_align_policy)', '',
            '| arch | ' + ' | '.join(tables.FACT_COLUMNS) + ' |',
            '|---' * (len(tables.FACT_COLUMNS) + 1) + '|']
    for name, v in arches.items():
        out.append(f'| {name} | ' + ' | '.join(_md(v.facts.get(k, '?'))
                                               for k in tables.FACT_COLUMNS) + ' |')
    out.append('')
    out += _md_measured(results, comparison)
    out += _md_coverage(results)
    for name, v in arches.items():
        bad = [c for c in v.cases if c.shown in ('FAIL', 'CRASH', 'XFAIL') or c.gating]
        if v.status == ArchStatus.PASSED and not bad:
            continue
        out += [f'## {name}: {v.status.value}', '']
        if v.problem or v.status != ArchStatus.FAILED:
            out += [tables.why(v), '']   # a failed arch's cause is the list below
        idx = index.get(name, ktap_index.Index())
        if v.problem and idx.crash:
            log = links.get(name, {}).get('ktap.log', '')
            out += ['The crash, ' + _md_link(f'ktap.log:{idx.crash.text}',
                                             f'{log}#{idx.crash.anchor}' if log else '') + ':',
                    '', '```', *idx.crash_lines, '```', '']
        for case in bad:
            out.append(_md_case_line(name, case, links.get(name, {}), idx.cases.get(case.name)))
        for m in v.missing:
            out.append(f'- `{m}`: missing from the KTAP output')
        out.append('')
    out += _md_skips(results)
    out += _md_every_case(results, links, index, comparison)
    return tables.printable('\n'.join(out) + '\n')


# ---- junit.xml ----

def junit(results: Results) -> str:
    root = ET.Element('testsuites', name='rx-align')
    totals = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
    for arch, v in results.arches.items():
        suites: Dict[str, ET.Element] = {}

        def suite(name: str) -> ET.Element:
            if name not in suites:
                el = ET.SubElement(root, 'testsuite', name=f'{arch}.{name}')
                props = ET.SubElement(el, 'properties')
                for k, val in v.facts.items():
                    ET.SubElement(props, 'property', name=k, value=str(val))
                suites[name] = el
            return suites[name]

        for c in v.cases:
            parts = c.name.split('.', 2)
            tc = ET.SubElement(suite(parts[0]), 'testcase', classname=f'{arch}.{tables.case_key(c.name)}',
                               name=parts[-1], time='0')
            log = '\n'.join(c.log)
            # one verdict: a failure or an error here is one that gates, and
            # only that (a known failure, which does not, is skipped)
            if c.shown == 'FAIL':
                el = ET.SubElement(tc, 'failure', message=(c.message or c.report)[:1000],
                                   type='FAIL')
                el.text = log
            elif c.shown == 'XFAIL':
                ET.SubElement(tc, 'skipped', message=f'known failure: {c.known}: '
                              f'{c.message}'[:1000])
            elif c.shown == 'CRASH':
                ET.SubElement(tc, 'error', message='crashed', type='CRASH').text = log
            elif c.gating:
                ET.SubElement(tc, 'failure', message='skipped without a reason', type='SKIP')
            elif c.shown == 'SKIP':
                ET.SubElement(tc, 'skipped', message=c.message)
        for m in v.missing:
            tc = ET.SubElement(suite(m.split('.')[0]), 'testcase', classname=f'{arch}.{m}',
                               name=m.split('.')[-1], time='0')
            ET.SubElement(tc, 'error', message='missing from the KTAP output', type='MISSING')
        if v.status not in (ArchStatus.PASSED, ArchStatus.FAILED):
            # The arch itself did not produce complete results: say so as an
            # error, or, where a rule expects that, as skipped.
            tc = ET.SubElement(suite('run'), 'testcase', classname=f'{arch}.run', name='boot',
                               time=str(v.seconds.get('run', 0)))
            if v.status == ArchStatus.KNOWN:
                ET.SubElement(tc, 'skipped', message=v.cause[:1000])
            else:
                ET.SubElement(tc, 'error', message=v.cause[:1000], type=v.status.value)
        for el in suites.values():
            cases = el.findall('testcase')
            n = {'tests': len(cases),
                 'failures': sum(1 for t in cases if t.find('failure') is not None),
                 'errors': sum(1 for t in cases if t.find('error') is not None),
                 'skipped': sum(1 for t in cases if t.find('skipped') is not None)}
            for k, val in n.items():
                el.set(k, str(val))
                totals[k] += val
            el.set('time', '0')
    for k, val in totals.items():
        root.set(k, str(val))
    ET.indent(root)
    # ElementTree escapes markup, not the characters XML forbids: tables.printable
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + \
        tables.printable(ET.tostring(root, encoding='unicode')) + '\n'


# ---- kcidb.json ----
#
# The rules below are KCIDB's I/O schema v5.3 (kcidb-io,
# kcidb_io/schema/v05_03.py; tests/kcidb-v5.3.schema.json holds it as test
# data and tests/test_report.py validates our output against it): an origin
# matches [a-z0-9_]+ and every id is "<origin>:<anything>", unique per kind;
# a test path is dot-separated components of [a-zA-Z0-9_-]; a build's
# architecture matches ^[a-z0-9_]*$; git_commit_hash is 40 hex digits; a
# build and a test have a status, one of FAIL ERROR MISS PASS DONE SKIP
# (v5 has no `valid` for builds and no `waived` for tests); no property may
# be null, and no object takes properties the schema does not name.

KCIDB_VERSION = {'major': 5, 'minor': 3}
ORIGIN = 'rxalign'
RUN_PATH = 'kunit'      # the test that stands for an arch's whole KUnit run
_KCIDB_STATUS = {'PASS': 'PASS', 'FAIL': 'FAIL', 'XFAIL': 'FAIL', 'SKIP': 'SKIP',
                 'CRASH': 'ERROR'}
# The run as a whole, by the arch's status; a build that failed or never
# happened makes it MISS (the test did not run).
_KCIDB_RUN = {ArchStatus.PASSED: 'PASS', ArchStatus.FAILED: 'FAIL', ArchStatus.INFRA: 'ERROR',
              ArchStatus.KNOWN: 'ERROR', ArchStatus.ENVIRONMENT: 'MISS'}
_PATH_UNSAFE = re.compile(r'[^a-zA-Z0-9_-]+')
_SHA1 = re.compile(r'^[0-9a-f]{40}$')
_BUILD_FAILED = re.compile(r': (?:build|kunit\.py config) failed: ')


def kcidb_component(name: str) -> str:
    """One KUnit name (a parameter's may hold '=', spaces, ',') as a path component."""
    return _PATH_UNSAFE.sub('_', name).strip('_') or '_'


def kcidb_path(name: str) -> str:
    """kunit.<suite>.<case>[.<param>] with each component path-safe.

    The suite and case are C identifiers already; only the third component,
    a parameter's description, needs mapping ('len=1' -> 'len_1').
    """
    parts = name.split('.', 2)
    return RUN_PATH + '.' + '.'.join(kcidb_component(p) for p in parts)


def _build_status(v: Verdict) -> str:
    """PASS: a kernel was built (or an up-to-date one reused); FAIL: config or
    build failed; MISS: no build happened that we know of (the machine cannot
    build the arch, or its job left no results: no log at all)."""
    problem = v.problem.cause if v.problem else ''
    if _BUILD_FAILED.search(problem):
        return 'FAIL'
    if not v.logs or (v.problem and v.problem.status == ArchStatus.ENVIRONMENT):
        return 'MISS'
    return 'PASS'


def kcidb(results: Results) -> Dict[str, Any]:
    """A KCIDB v5.3 document: one checkout, a build per arch, a test for each
    arch's run and one per case."""
    meta = results.meta if results.runs else None
    head = meta.head if meta else ''
    checkout = f'{ORIGIN}:{(head or "unknown")[:12]}'
    co: Dict[str, Any] = {'id': checkout, 'origin': ORIGIN, 'valid': True}
    if _SHA1.match(head):
        co['git_commit_hash'] = head
    if meta:
        co['comment'] = meta.tree
        co['misc'] = {'tree_hash': meta.tree_hash, 'series': meta.series, 'run_id': meta.run_id}
    data: Dict[str, Any] = {'version': dict(KCIDB_VERSION), 'checkouts': [co],
                            'builds': [], 'tests': []}
    for arch, v in results.arches.items():
        build = f'{checkout}:{arch}'
        built = _build_status(v)
        b: Dict[str, Any] = {'id': build, 'origin': ORIGIN, 'checkout_id': checkout,
                             'architecture': kcidb_component(arch).lower(), 'status': built}
        if 'build' in v.seconds:
            b['duration'] = float(v.seconds['build'])
        data['builds'].append(b)
        status, cause = decide(v)
        run: Dict[str, Any] = {'kunit_status': status.value, 'cause': cause}
        if v.known:
            run['known'] = v.known
        tests = [(RUN_PATH, _KCIDB_RUN[status] if built == 'PASS' else 'MISS', run)]
        paths: Dict[str, str] = {}
        ids: Dict[str, int] = {}
        cases = [(c.name, _KCIDB_STATUS[c.shown], c.message, c.shown, c.known) for c in v.cases]
        cases += [(m, 'MISS', 'missing from the KTAP output', 'MISSING', '') for m in v.missing]
        for name, kstatus, msg, shown, known in cases:
            path = kcidb_path(name)
            if path in paths and paths[path] != name:
                # two parameter names that map alike: keep both, apart
                path += '-' + hashlib.sha256(name.encode()).hexdigest()[:8]
            paths[path] = name
            misc: Dict[str, Any] = {'kunit_name': name, 'kunit_status': shown}
            if msg:
                misc['message'] = msg
            if known:
                misc['known'] = known
            tests.append((path, kstatus, misc))
        for path, kstatus, misc in tests:
            # the same name twice in the KTAP output (a case run twice): one
            # id each, or KCIDB merges them and may keep the PASS
            n = ids[path] = ids.get(path, 0) + 1
            data['tests'].append({'id': f'{build}:{path}' + (f'#{n}' if n > 1 else ''),
                                  'origin': ORIGIN, 'build_id': build, 'path': path,
                                  'status': kstatus, 'misc': misc})
    return data


def log_links(results: Results, page_dir: Path,
              homes: Optional[Mapping[str, Path]] = None) -> Dict[str, Dict[str, str]]:
    """Each arch's build and KTAP logs and its .config as links relative to the page.

    An arch's logs are `<arch>/build.log`, `<arch>/ktap.log` and `<arch>/config`
    in the results directory it came from (`homes`; by default the page's
    own); a log that is not there is not linked.
    """
    links: Dict[str, Dict[str, str]] = {}
    for arch, v in results.arches.items():
        home = (homes or {}).get(arch, page_dir)
        found: Dict[str, str] = {}
        for key in ('build', 'ktap', 'config'):
            if key in v.logs:
                name = Path(v.logs[key]).name
                target = home / arch / name
                if target.is_file():
                    found[name] = urllib.parse.quote(
                        Path(os.path.relpath(target, page_dir)).as_posix())
        links[arch] = found
    return links


def relative_logs(data: Dict[str, Any], results: Results, out_dir: Path,
                  homes: Optional[Mapping[str, Path]] = None) -> Dict[str, Any]:
    """results.json with each log named relative to `out_dir` (where it will be read
    from): `<arch>/ktap.log`, or `../a/<arch>/ktap.log` in a merge. The causes that
    name a log name it the same way."""
    for arch, v in results.arches.items():
        home = (homes or {}).get(arch, out_dir)
        stored = data['arches'][arch]
        stored['logs'] = dict(stored['logs'])      # to_json() shares the verdict's own
        for key, path in v.logs.items():
            rel = Path(os.path.relpath(home / arch / Path(path).name, out_dir)).as_posix()
            stored['logs'][key] = rel
            for where in (stored, stored.get('problem') or {}, *stored['problems']):
                if isinstance(where.get('cause'), str):
                    where['cause'] = where['cause'].replace(path, rel)
    return data


def log_index(path: Path) -> ktap_index.Index:
    """Where the cases are in a saved ktap.log, for results that did not keep it
    (format 3 and older): the walk that judges a log, again; empty without one."""
    try:
        return console.read(path.read_text(errors='replace').splitlines()).index
    except OSError:
        return ktap_index.Index()


def write_all(out_dir: Path, results: Results, with_results: bool = True,
              homes: Optional[Mapping[str, Path]] = None,
              comparison: Optional[baseline.Comparison] = None) -> None:
    """Every report file; results.json too unless `with_results` is False.

    `homes` names the results directory each arch's logs are in, when that
    is not `out_dir` (a merge); the directory written is `out_dir` or a
    sibling renamed onto it, so the links are relative to either.
    `comparison` (--baseline) adds what changed; it never changes the gate.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    if with_results:
        data = relative_logs(results.to_json(), results, out_dir, homes)
        atomic_write(out_dir / 'results.json', json.dumps(data, indent=1) + '\n')
    links = log_links(results, out_dir, homes)
    index = {arch: v.index if v.index is not None
             else log_index((homes or {}).get(arch, out_dir) / arch / 'ktap.log')
             for arch, v in results.arches.items()}
    atomic_write(out_dir / 'report.md', markdown(results, links, index, comparison))
    atomic_write(out_dir / 'report.html',
                 report_html.page(results, links, index, comparison))
    atomic_write(out_dir / 'junit.xml', junit(results))
    atomic_write(out_dir / 'kcidb.json', json.dumps(kcidb(results), indent=1) + '\n')


def terminal_table(results: Results) -> str:
    rows = [('arch', 'verdict', 'pass', 'fail', 'skip', 'missing', 'build', 'run')]
    for arch, v in results.arches.items():
        c = tables.counts(v)
        rows.append((arch, v.status.value, str(c['PASS']), str(c['FAIL'] + c['CRASH']),
                     str(c['SKIP']), str(c['MISSING']), tables.phase_time(v, 'build'),
                     tables.phase_time(v, 'run')))
    return tables.printable(fmt.columns(rows))
