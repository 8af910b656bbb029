"""Writers for the results directory: results.json (the data) and summary.md."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

from .kunit_runner import fmt_seconds
from .verdict import Verdict

FACT_COLUMNS = ('net_ip_align', 'net_skb_pad', 'smp_cache_bytes', 'page_size', 'bits', 'endian')


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + '.tmp')
    tmp.write_text(text)
    os.replace(tmp, path)


def results_json(verdicts: List[Verdict], meta: Dict[str, Any]) -> Dict[str, Any]:
    return {'meta': meta, 'arches': {v.arch: v.to_json() for v in verdicts}}


def summary_markdown(verdicts: List[Verdict], meta: Dict[str, Any]) -> str:
    out = [f'# rx-align KUnit results: {meta.get("tree", "")}', '']
    out.append('| arch | verdict | ' + ' | '.join(FACT_COLUMNS) +
               ' | pass | fail | skip | missing | build | run |')
    out.append('|' + '---|' * (len(FACT_COLUMNS) + 8))
    for v in verdicts:
        facts = ' | '.join(v.facts.get(k, '?') for k in FACT_COLUMNS)
        out.append(f'| {v.arch} | {v.status} | {facts} | {v.count("PASS")} | '
                   f'{v.count("FAIL")} | {v.count("SKIP")} | {len(v.missing)} | '
                   f'{fmt_seconds(v.seconds.get("build", 0))} | '
                   f'{v.seconds.get("run", 0)}s |')
    out.append('')
    for v in verdicts:
        if v.status == 'passed':
            continue
        out.append(f'## {v.arch}: {v.status}')
        out.append('')
        out.append(v.cause)
        out.append('')
        for c in v.cases:
            if c.status in ('FAIL', 'CRASH'):
                out.append(f'- `{c.name}`: {c.message or c.status}')
        out.append('')
    return '\n'.join(out) + '\n'


def write(out_dir: Path, verdicts: List[Verdict], meta: Dict[str, Any]) -> None:
    for v in verdicts:
        arch_dir = out_dir / v.arch
        arch_dir.mkdir(parents=True, exist_ok=True)
        _atomic_write(arch_dir / 'verdict.json', json.dumps(v.to_json(), indent=1) + '\n')
    _atomic_write(out_dir / 'results.json',
                  json.dumps(results_json(verdicts, meta), indent=1) + '\n')
    _atomic_write(out_dir / 'summary.md', summary_markdown(verdicts, meta))


def terminal_table(verdicts: List[Verdict]) -> str:
    rows = [('arch', 'verdict', 'pass', 'fail', 'skip', 'missing', 'build', 'run')]
    for v in verdicts:
        rows.append((v.arch, v.status, str(v.count('PASS')), str(v.count('FAIL')),
                     str(v.count('SKIP')), str(len(v.missing)),
                     fmt_seconds(v.seconds.get('build', 0)), f'{v.seconds.get("run", 0)}s'))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return '\n'.join('  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
