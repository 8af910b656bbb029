"""Report writers: one results model in, report.md/.html, junit.xml, JSON out.

They all read the merged results (arch -> verdict as JSON), so a report
made at the end of a run and one regenerated later by scripts/report from
several results directories are the same.
"""

from __future__ import annotations

import html
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Dict, Iterable, List, Tuple

from .kunit_driver import fmt_seconds

Results = Dict[str, Any]   # {'meta': {...}, 'arches': {arch: verdict json}}

FACT_COLUMNS = ('net_ip_align', 'net_skb_pad', 'l1_cache_bytes', 'smp_cache_bytes',
                'page_size', 'dma_cache_align', 'efficient_unaligned', 'bits', 'endian')
REPORT_FILES = ('report.md', 'report.html', 'junit.xml', 'results.json', 'kcidb.json')


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(text)
    os.replace(tmp, path)


def merge(parts: Iterable[Results]) -> Results:
    """Several runs (a CI that fans arches out) into one; a later run of an arch wins."""
    merged: Results = {'meta': {'runs': []}, 'arches': {}}
    for part in sorted(parts, key=lambda r: str(r.get('meta', {}).get('finished', ''))):
        meta = part.get('meta', {})
        merged['meta']['runs'].append(meta)
        for key in ('tree', 'head'):
            if key in meta:
                merged['meta'].setdefault(key, meta[key])
        merged['arches'].update(part.get('arches', {}))
    return merged


def load(dirs: Iterable[Path]) -> Results:
    parts = []
    for d in dirs:
        path = d / 'results.json'
        try:
            parts.append(json.loads(path.read_text()))
        except (OSError, ValueError) as e:
            raise ValueError(f'{path}: not a results file of run-kunit ({e})') from e
    return merge(parts)


def _counts(v: Dict[str, Any]) -> Dict[str, int]:
    counts = {s: 0 for s in ('PASS', 'FAIL', 'XFAIL', 'SKIP', 'CRASH')}
    for c in v.get('cases', []):
        counts[c['status']] = counts.get(c['status'], 0) + 1
    counts['MISSING'] = len(v.get('missing', []))
    return counts


def _case_key(name: str) -> str:
    """suite.case, without the parameter."""
    return '.'.join(name.split('.')[:2])


# ---- report.md ----

def markdown(results: Results) -> str:
    arches = results['arches']
    out = [f'# rx-align KUnit report: {results["meta"].get("tree", "")}', '']
    out.append('| arch | verdict | pass | fail | known | skip | missing | build | boot+run |')
    out.append('|---|---|---|---|---|---|---|---|---|')
    for name, v in arches.items():
        c = _counts(v)
        s = v.get('seconds', {})
        out.append(f'| {name} | {v["status"]} | {c["PASS"]} | {c["FAIL"] + c["CRASH"]} | '
                   f'{c["XFAIL"]} | {c["SKIP"]} | {c["MISSING"]} | '
                   f'{fmt_seconds(s.get("build", 0))} | {s.get("run", 0)}s |')
    out += ['', '## Policy facts (from net_rx_align_policy)', '',
            '| arch | ' + ' | '.join(FACT_COLUMNS) + ' |', '|---' * (len(FACT_COLUMNS) + 1) + '|']
    for name, v in arches.items():
        facts = v.get('facts', {})
        out.append(f'| {name} | ' + ' | '.join(facts.get(k, '?') for k in FACT_COLUMNS) + ' |')
    out.append('')
    for name, v in arches.items():
        bad = [c for c in v.get('cases', []) if c['status'] in ('FAIL', 'CRASH', 'XFAIL')]
        if v['status'] == 'passed' and not bad:
            continue
        out += [f'## {name}: {v["status"]}', '', v.get('cause', ''), '']
        for case in bad:
            tag = ' (known failure)' if case['status'] == 'XFAIL' else ''
            out.append(f'- `{case["name"]}`{tag}: {case.get("message") or case["status"]}')
        for m in v.get('missing', []):
            out.append(f'- `{m}`: missing from the KTAP output')
        out.append('')
    return '\n'.join(out) + '\n'


# ---- report.html ----

_COLOURS = {'PASS': '#c8f0c8', 'FAIL': '#f4b4b4', 'CRASH': '#f4b4b4', 'XFAIL': '#f8e0a0',
            'SKIP': '#e0e0e0', 'MISSING': '#d0b0f0'}


def _cell(cases: List[Dict[str, Any]], missing: bool) -> Tuple[str, str, str]:
    """(status, text, details) of one arch x test-case cell."""
    if missing:
        return 'MISSING', 'missing', 'not in the KTAP output'
    if not cases:
        return '', '', ''
    by: Dict[str, int] = {}
    for c in cases:
        by[c['status']] = by.get(c['status'], 0) + 1
    worst = next((s for s in ('CRASH', 'FAIL', 'XFAIL', 'SKIP', 'PASS') if s in by), 'PASS')
    text = ' '.join(f'{n} {s.lower()}' for s, n in sorted(by.items()))
    details = '\n'.join(f'{c["name"].split(".", 2)[-1]}: {c.get("message", "")}'
                        for c in cases if c['status'] in ('FAIL', 'CRASH', 'XFAIL', 'SKIP'))
    return worst, text, details


def html_page(results: Results) -> str:
    arches = results['arches']
    keys: List[str] = []
    for v in arches.values():
        for c in v.get('cases', []):
            if _case_key(c['name']) not in keys:
                keys.append(_case_key(c['name']))
        for m in v.get('missing', []):
            if _case_key(m) not in keys:
                keys.append(_case_key(m))
    e = html.escape
    rows = []
    for key in keys:
        cells = []
        for v in arches.values():
            cases = [c for c in v.get('cases', []) if _case_key(c['name']) == key]
            missing = any(m == key or m == key.split('.')[0] for m in v.get('missing', []))
            status, text, details = _cell(cases, missing)
            body = e(text)
            if details:
                body = f'<details><summary>{e(text)}</summary><pre>{e(details)}</pre></details>'
            style = f' style="background:{_COLOURS[status]}"' if status else ''
            cells.append(f'<td{style} title="{e(details[:500])}">{body}</td>')
        rows.append(f'<tr><th>{e(key)}</th>{"".join(cells)}</tr>')
    head = ''.join(f'<th>{e(a)}</th>' for a in arches)
    verdicts = ''.join(
        f'<td style="background:{_COLOURS["PASS" if v["status"] == "passed" else "FAIL"]}" '
        f'title="{e(v.get("cause", ""))}">{e(v["status"])}</td>' for v in arches.values())
    facts = ''.join(
        f'<tr><th>{e(k)}</th>' + ''.join(f'<td>{e(v.get("facts", {}).get(k, "?"))}</td>'
                                         for v in arches.values()) + '</tr>'
        for k in FACT_COLUMNS)
    causes = ''.join(f'<li><b>{e(a)}</b>: {e(v.get("cause", ""))}</li>'
                     for a, v in arches.items())
    title = e(f'rx-align KUnit report: {results["meta"].get("tree", "")}')
    return f'''<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: sans-serif; margin: 1em; }}
table {{ border-collapse: collapse; margin-bottom: 1.5em; }}
th, td {{ border: 1px solid #999; padding: 2px 6px; text-align: left; vertical-align: top; }}
pre {{ margin: 0; font-size: 85%; white-space: pre-wrap; }}
</style></head><body>
<h1>{title}</h1>
<ul>{causes}</ul>
<h2>Verdicts</h2>
<table><tr><th>arch</th>{head}</tr><tr><th>verdict</th>{verdicts}</tr></table>
<h2>Policy facts</h2>
<table><tr><th>fact</th>{head}</tr>{facts}</table>
<h2>Test cases</h2>
<table><tr><th>suite.case</th>{head}</tr>{"".join(rows)}</table>
</body></html>
'''


# ---- junit.xml ----

def junit(results: Results) -> str:
    root = ET.Element('testsuites', name='rx-align')
    totals = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
    for arch, v in results['arches'].items():
        suites: Dict[str, ET.Element] = {}

        def suite(name: str) -> ET.Element:
            if name not in suites:
                el = ET.SubElement(root, 'testsuite', name=f'{arch}.{name}')
                props = ET.SubElement(el, 'properties')
                for k, val in v.get('facts', {}).items():
                    ET.SubElement(props, 'property', name=k, value=str(val))
                suites[name] = el
            return suites[name]

        for c in v.get('cases', []):
            parts = c['name'].split('.', 2)
            tc = ET.SubElement(suite(parts[0]), 'testcase', classname=f'{arch}.{_case_key(c["name"])}',
                               name=parts[-1], time='0')
            log = '\n'.join(c.get('log', []))
            if c['status'] in ('FAIL', 'XFAIL'):
                el = ET.SubElement(tc, 'failure', message=c.get('message', '')[:1000], type='FAIL')
                el.text = log
                if c['status'] == 'XFAIL':
                    el.set('type', 'known-failure')
            elif c['status'] == 'CRASH':
                ET.SubElement(tc, 'error', message='crashed', type='CRASH').text = log
            elif c['status'] == 'SKIP':
                ET.SubElement(tc, 'skipped', message=c.get('message', ''))
        for m in v.get('missing', []):
            tc = ET.SubElement(suite(m.split('.')[0]), 'testcase', classname=f'{arch}.{m}',
                               name=m.split('.')[-1], time='0')
            ET.SubElement(tc, 'error', message='missing from the KTAP output', type='MISSING')
        if v['status'] not in ('passed', 'failed'):
            # The arch itself did not produce complete results: say so as an error.
            tc = ET.SubElement(suite('run'), 'testcase', classname=f'{arch}.run', name='boot',
                               time=str(v.get('seconds', {}).get('run', 0)))
            ET.SubElement(tc, 'error', message=v.get('cause', '')[:1000], type=v['status'])
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
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'


# ---- kcidb.json ----

_KCIDB_STATUS = {'PASS': 'PASS', 'FAIL': 'FAIL', 'XFAIL': 'FAIL', 'SKIP': 'SKIP',
                 'CRASH': 'ERROR'}


def kcidb(results: Results) -> Dict[str, Any]:
    """A KCIDB v4-shaped document: one checkout, a build per arch, a test per case."""
    origin = 'rxalign'
    head = results['meta'].get('head', 'unknown')
    checkout = f'{origin}:{head[:12]}'
    data: Dict[str, Any] = {'version': {'major': 4, 'minor': 3},
                            'checkouts': [{'id': checkout, 'origin': origin,
                                           'git_commit_hash': head, 'valid': True}],
                            'builds': [], 'tests': []}
    for arch, v in results['arches'].items():
        build = f'{checkout}:{arch}'
        data['builds'].append({'id': build, 'origin': origin, 'checkout_id': checkout,
                               'architecture': arch,
                               'duration': v.get('seconds', {}).get('build', 0),
                               'valid': 'build failed' not in v.get('cause', '')})
        names = [(c['name'], _KCIDB_STATUS[c['status']], c.get('message', ''))
                 for c in v.get('cases', [])]
        names += [(m, 'MISS', 'missing from the KTAP output') for m in v.get('missing', [])]
        for name, status, msg in names:
            path = 'kunit.' + '.'.join(re.sub(r'[^\w=-]+', '_', p) for p in name.split('.'))
            data['tests'].append({'id': f'{build}:{path}', 'origin': origin, 'build_id': build,
                                  'path': path, 'status': status,
                                  'misc': {'message': msg} if msg else {}})
    return data


def write_all(out_dir: Path, results: Results) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(out_dir / 'results.json', json.dumps(results, indent=1) + '\n')
    atomic_write(out_dir / 'report.md', markdown(results))
    atomic_write(out_dir / 'report.html', html_page(results))
    atomic_write(out_dir / 'junit.xml', junit(results))
    atomic_write(out_dir / 'kcidb.json', json.dumps(kcidb(results), indent=1) + '\n')


def terminal_table(results: Results) -> str:
    rows = [('arch', 'verdict', 'pass', 'fail', 'skip', 'missing', 'build', 'run')]
    for arch, v in results['arches'].items():
        c = _counts(v)
        s = v.get('seconds', {})
        rows.append((arch, v['status'], str(c['PASS']), str(c['FAIL'] + c['CRASH']),
                     str(c['SKIP']), str(c['MISSING']), fmt_seconds(s.get('build', 0)),
                     f'{s.get("run", 0)}s'))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
