"""report.html: one self-contained page a maintainer reads first.

Top to bottom: what was tested and the gate; one row per arch (verdict,
counts, times, policy facts, its logs); where each receive path and each
driver put the frame on each arch, coloured by the arch's NET_IP_ALIGN;
every failure, open, with its full message; known failures and skips with
their reasons; every case. No external assets, no script: inline CSS only.
Everything that comes from a log or a results file is escaped.
"""

from __future__ import annotations

import html
from typing import Dict, List, Mapping, Optional, Tuple

from . import baseline, ktap_index, tables
from .baseline import Change, Comparison
from .exitcodes import Exit
from .results import ArchStatus, Case, CaseStatus, Results, Verdict

Links = Mapping[str, Mapping[str, str]]     # arch -> log file name -> href relative to the page

FACT_HEADS = {'net_ip_align': 'NET_IP_ALIGN', 'net_skb_pad': 'NET_SKB_PAD',
              'l1_cache_bytes': 'L1 line', 'smp_cache_bytes': 'SMP line',
              'page_size': 'page', 'dma_cache_align': 'DMA align',
              'efficient_unaligned': 'unaligned ok', 'bits': 'bits', 'endian': 'endian'}
Index = Mapping[str, ktap_index.Index]     # arch -> where its cases are in its ktap.log

CSS = '''
body { font: 14px/1.4 system-ui, sans-serif; margin: 1em 2em; color: #1a1a1a; }
h1 { font-size: 1.5em; margin: 0 0 .2em; }
h2 { font-size: 1.2em; margin: 1.6em 0 .4em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05em; margin: 1em 0 .3em; }
h4 { font-size: 1em; font-weight: normal; margin: .6em 0 .2em; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 0 1em; margin: .4em 0; }
dl.meta dt { color: #555; } dl.meta dd { margin: 0; font-family: monospace; }
.gate { font-size: 1.1em; font-weight: bold; padding: .3em .6em; display: inline-block; }
table { border-collapse: collapse; margin: .3em 0 1em; }
th, td { border: 1px solid #bbb; padding: 2px 7px; text-align: left; vertical-align: top; }
th { background: #f2f2f2; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th small, td small { color: #555; font-weight: normal; }
.s-passed, .s-PASS, .fit-ok { background: #cdeccd; }
.s-failed, .s-FAIL, .s-CRASH, .fit-off { background: #f6c0c0; }
.s-infra, .s-MISSING { background: #e4ccf4; }
.s-environment, .s-SKIP, .fit-unknown { background: #e6e6e6; }
.s-known, .s-XFAIL { background: #f8e6a8; }
td.none { color: #999; }
.m { font-family: monospace; white-space: nowrap; }
.m.bad { font-weight: bold; color: #8a0000; }
.v-fail { font-weight: bold; color: #8a0000; }
.legend { color: #333; max-width: 60em; }
.case { margin: .4em 0 .8em 1em; }
pre.msg { margin: .2em 0; padding: .4em .6em; background: #fff4f4; border-left: 3px solid #c33;
          white-space: pre-wrap; font-size: 90%; }
.measured { margin: .2em 0; color: #333; }
ul.plain { margin: .2em 0; padding-left: 1.2em; }
.since { font-weight: bold; padding: .2em .6em; margin: .2em 0; display: inline-block; }
.since.worse { background: #f6c0c0; } .since.same { background: #e6e6e6; }
.chg { display: block; font-size: 85%; font-weight: bold; white-space: nowrap; }
.chg-new-fail { color: #8a0000; } .chg-fixed { color: #1d6b1d; }
.chg-changed, .chg-new, .chg-gone { color: #5a3e00; }
td.chg-cell-new-fail { outline: 3px solid #c33; outline-offset: -3px; }
td.chg-cell-fixed { outline: 3px solid #2a8a2a; outline-offset: -3px; }
details { margin: .3em 0 1em; } summary { cursor: pointer; color: #174ea6; }
pre.trace { margin: .2em 0; padding: .4em .6em; background: #f4f4f4; border-left: 3px solid #888;
            white-space: pre-wrap; font-size: 85%; }
table.every td { font-size: 92%; }
'''


def e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _cause(v: Verdict) -> str:
    """The arch's cause without its name, and without the log path the page links."""
    text = tables.why(v)
    for path in v.logs.values():
        text = text.replace(f' (see {path})', '').replace(f'(see {path})', '')
    return text.strip()


# ---- header and per-arch summary ----

def _header(results: Results, comparison: Optional[Comparison]) -> str:
    meta = results.meta if results.runs else None
    gate = results.gate()
    status = 'passed' if gate == Exit.OK else 'failed' if gate == Exit.TEST_FAILED else 'infra'
    rows: List[Tuple[str, str]] = []
    if meta:
        rows += [('tree', meta.tree), ('head', meta.head), ('tree hash', meta.tree_hash),
                 ('series', meta.series), ('run id', meta.run_id)]
        if len(results.runs) == 1:
            rows.append(('finished', meta.finished))
        else:
            rows += [(f'run {i}', f'{r.finished}: {", ".join(r.arches)}')
                     for i, r in enumerate(results.runs, 1)]
        rows += tables.provenance(results)
        rows += [('partial', r.interrupted) for r in results.runs if r.interrupted]
        rows += [('toolchain', line) for line in tables.toolchains(results)]
    if comparison:
        rows.append(('baseline', f'{comparison.run_id} ({comparison.where})'))
    since = ''
    if comparison:
        worse = 'worse' if comparison.of_kind(Change.NEW_FAIL) or comparison.arches else 'same'
        since = (f'<br><a href="#changes" class="since {worse}" id="since">'
                 f'{e(comparison.summary())}</a>')
    title = f'rx-align: {tables.tree_base(meta.tree)}' if meta else 'rx-align'
    return (f'<header>\n<h1>{e(title)}</h1>\n'
            f'<p class="gate s-{status}" id="gate">{e(tables.gate_line(results))}</p>{since}\n'
            '<dl class="meta">'
            + ''.join(f'<dt>{e(k)}</dt><dd>{e(val)}</dd>' for k, val in rows if val)
            + '</dl>\n</header>\n')


def _summary(results: Results, links: Links) -> str:
    # the logs next to the verdict: the policy facts make the table wider
    # than a 1000 px window, and links at its far end were off screen
    heads = (['arch', 'verdict', 'logs', 'pass', 'fail', 'known', 'skip', 'missing', 'build',
              'boot+run'] + [FACT_HEADS[k] for k in tables.FACT_COLUMNS])
    out = ['<section id="arches">\n<h2>Arches</h2>\n<table class="summary">\n<tr>'
           + ''.join(f'<th>{e(h)}</th>' for h in heads) + '</tr>']
    for arch, v in results.arches.items():
        c = tables.counts(v)
        nums = [c['PASS'], c['FAIL'] + c['CRASH'], c['XFAIL'], c['SKIP'], c['MISSING']]
        facts = ''.join(f'<td class="num">{e(v.facts[k])}</td>' if k in v.facts
                        else '<td class="none">—</td>' for k in tables.FACT_COLUMNS)
        logs = ' '.join(f'<a href="{e(href)}">{e(name)}</a>'
                        for name, href in links.get(arch, {}).items()) or '—'
        verdict = e(v.status.value)
        if v.status != ArchStatus.PASSED:
            # the failures (or the known failures) below say why
            anchor = 'known' if v.status == ArchStatus.KNOWN else f'fail-{arch}'
            verdict = f'<a href="#{e(anchor)}">{verdict}</a>'
        out.append(f'<tr data-arch="{e(arch)}"><th>{e(arch)}</th>'
                   f'<td class="s-{e(v.status.value)}">{verdict}</td><td>{logs}</td>'
                   + ''.join(f'<td class="num">{n}</td>' for n in nums)
                   + f'<td class="num">{e(tables.phase_time(v, "build"))}</td>'
                   f'<td class="num">{e(tables.phase_time(v, "run"))}</td>{facts}</tr>')
    out.append('</table>\n</section>\n')
    return '\n'.join(out)


# ---- measured offsets ----

def _offsets(o: tables.Offsets) -> str:
    return ' · '.join(tables.number(n) for n in (o.headroom, o.nh_mod4, o.mac_line_off))


def _change(change: Optional[baseline.CellChange]) -> str:
    if not change:
        return ''
    was = f' (was {change.before})' if change.before else ''
    return f'<span class="chg chg-{e(change.kind.value)}">{e(change.kind.value + was)}</span>'


def _cell(m: tables.Matrix, row: tables.Row, arch: str,
          comparison: Optional[Comparison]) -> str:
    cell = m.cell(row, arch)
    change = comparison.cell(m.title, row, arch) if comparison else None
    attrs = f'data-arch="{e(arch)}" data-row="{e(" ".join(row))}"'
    if change:
        attrs += f' data-change="{e(change.kind.value)}"'
    if not cell.frames:
        return f'<td class="none" {attrs}>—' + (f'<br>{_change(change)}' if change else '') + \
            '</td>'
    seen = cell.seen
    parts = []
    if m.title == 'driver':
        verdicts = cell.verdicts
        parts.append(' '.join(f'<span class="v-{k.value}">{e(k.value)}</span>'
                              for k in verdicts) or '<span>?</span>')
        if len(m.classes(row)) > 1:
            parts.append('<small>' + e(', '.join(k.value for k in cell.classes)) + '</small>')
    for s in seen:
        bad = ' bad' if s.fit == tables.Fit.OFF else ''
        text = f'<span class="m{bad}">{e(_offsets(s.offsets))}</span>'
        if len(seen) > 1 and s.lengths:
            text += f' <small>{e(tables.lengths_text(s.lengths))}</small>'
        parts.append(text)
    cases = list(dict.fromkeys(f.case for f in cell.frames))
    title = 'measured by ' + ', '.join(cases[:4]) + (' ...' if len(cases) > 4 else '')
    marked = f' chg-cell-{e(change.kind.value)}' if change else ''
    return f'<td class="fit-{cell.fit.value}{marked}" {attrs} title="{e(title)}">' + \
        '<br>'.join(parts + ([_change(change)] if change else [])) + '</td>'


def _matrix(m: tables.Matrix, table_id: str, results: Results, rows: List[tables.Row],
            comparison: Optional[Comparison]) -> str:
    driver = m.title == 'driver'
    heads = [f'<th>{e(m.title)}</th>'] + (['<th>class</th>'] if driver else []) + \
        ['<th>frame</th>']
    for arch in m.arches:
        head = tables.align_head(arch, results.arches.get(arch))
        heads.append(f'<th data-arch="{e(arch)}">{e(head)}</th>')
    out = [f'<table class="matrix" id="{table_id}">', '<tr>' + ''.join(heads) + '</tr>']
    span: Dict[str, int] = {}
    for name, _ in rows:
        span[name] = span.get(name, 0) + 1
    shown: set[str] = set()
    for row in rows:
        name = row[0]
        lead = ''
        if name not in shown:
            shown.add(name)
            rs = f' rowspan="{span[name]}"' if span[name] > 1 else ''
            lead = f'<th{rs}>{e(name)}</th>'
            if driver:
                classes = dict.fromkeys(k.value for r in rows if r[0] == name
                                        for k in m.classes(r))
                lead += f'<td{rs}>{e(", ".join(classes) or "?")}</td>'
        out.append(f'<tr>{lead}<th>{e(row[1])}</th>'
                   + ''.join(_cell(m, row, a, comparison) for a in m.arches) + '</tr>')
    out.append('</table>')
    return '\n'.join(out)


def _grid(m: tables.Matrix, table_id: str, results: Results,
          comparison: Optional[Comparison]) -> str:
    """The rows that differ, open; the whole grid behind a <details>."""
    rows = baseline.shown_rows(m, comparison)
    why = 'a frame off where its arch wants it, arches that disagree' + \
        (f', or a change since {comparison.run_id}' if comparison else '')
    out = [f'<p class="legend">Rows that differ ({why}): <b>{len(rows)} of {len(m.rows)}</b>.'
           + ('' if rows else ' None: every arch agrees and every frame is where it wants it.')
           + '</p>']
    if rows:
        out.append(_matrix(m, f'{table_id}-differ', results, rows, comparison))
    gone = baseline.gone_rows(m, comparison)
    if gone and comparison:
        out.append(f'<p class="legend">Gone since {e(comparison.run_id)}: '
                   + ', '.join(f'<code>{e(" ".join(r))}</code>' for r in gone) + '</p>')
    out.append(f'<details><summary>The full grid: {len(m.rows)} rows</summary>'
               + _matrix(m, table_id, results, m.rows, comparison) + '</details>')
    return '\n'.join(out)


def _measured(results: Results, comparison: Optional[Comparison]) -> str:
    paths, drivers = tables.paths(results), tables.drivers(results)
    malformed = [(a, x) for a, v in results.arches.items() for x in v.malformed_frames]
    if not paths and not drivers and not malformed:
        return ''
    out = ['<section id="offsets">\n<h2>Where the frame lands</h2>',
           '<p class="legend">Each cell: <b>headroom · IP header mod 4 · MAC header offset '
           'in its cache line</b>, in bytes, as the suites measured them (frame lengths shown '
           'when they differ). <span class="fit-ok">&nbsp;green&nbsp;</span> every frame\'s '
           'IP header is where the rule its case named (rx_align_want()) wants it ('
           + e(tables.legend(tables.RULE_MEANINGS)) + '; the column head names the arch\'s '
           'NET_IP_ALIGN); <span class="fit-off">&nbsp;red&nbsp;</span> a frame\'s is not; '
           '<span class="fit-unknown">&nbsp;grey&nbsp;</span> a frame not judged (rule '
           'none), or no verdict.</p>']
    empty = tables.without_results(results)
    if empty:
        out.append('<p class="legend" id="no-results">Not in the grids, with no results: '
                   + '; '.join(f'<b>{e(a)}</b> ({e(why)})' for a, why in empty.items())
                   + '</p>')
    if paths:
        out += ['<h3>Receive paths</h3>', _grid(paths, 'paths', results, comparison)]
    if drivers:
        out += ['<h3>Drivers</h3>', '<p class="legend">The class is how the driver places '
                'the frame (' + e(tables.legend(tables.CLASS_MEANINGS)) + '); the verdict is '
                'the drivers suite\'s (' + e(tables.legend(tables.VERDICT_MEANINGS)) + ').</p>',
                _grid(drivers, 'drivers', results, comparison)]
        out.append(_nic_counts(tables.nic_counts(results)))
    if malformed:
        out.append(f'<p class="legend" id="malformed">{len(malformed)} rx_align_frame: '
                   'line(s) could not be read and are not in the tables:</p>'
                   '<ul class="plain">' + ''.join(
                       f'<li>{e(a)}, <code>{e(x.case)}</code>: <code>{e(x.line)}</code> '
                       f'({e(x.why)})</li>' for a, x in malformed) + '</ul>')
    out.append('</section>\n')
    return '\n'.join(out)


def _nic_counts(counts: List[tables.NicCount]) -> str:
    if not counts:
        return ''
    heads = ('arch', 'NIC', 'case', 'sent', 'received', 'judged', '2 off', 'failed', 'lost',
             'resent', 'fixups', 'bands')
    rows = ''.join(
        '<tr>' + ''.join(f'<td>{e(str(x))}</td>' for x in (
            c.arch, c.nic, c.status, c.sent, c.received, c.judged, c.off, c.failed, c.lost,
            c.resent, tables.fixups_text(c.fixups), tables.bands_text(c.bands))) + '</tr>'
        for c in counts)
    return ('<h4 id="nic-counts">Frames per NIC</h4><p class="legend">Sent: distinct frames '
            '(a frame not seen is sent again, up to three times); judged: all but a '
            'hypervisor\'s (recorded); 2 off: IP header not on a 4-byte boundary.</p>'
            '<table><tr>' + ''.join(f'<th>{h}</th>' for h in heads) + f'</tr>{rows}</table>')


# ---- failures, known failures, skips ----

def _message(case: Case) -> str:
    """The failed expectations, one block each, their lines as the console had them."""
    blocks = [b.replace(' | ', '\n') for b in case.message.split(' || ')] if case.message \
        else [case.shown]
    return '\n\n'.join(blocks)


def _frames_line(v: Verdict, case: Case) -> str:
    frames = v.frames_of(case.name)
    if not frames:
        return ''
    items = []
    for f in frames:
        what = ', '.join(x for x in (f.driver, f.path if f.path != f.driver else '', f.frame,
                                     f'len {f.length}' if f.length is not None else '') if x)
        items.append(f'headroom {tables.number(f.headroom)}, IP header '
                     f'{tables.number(f.nh_mod4)} mod 4, MAC offset '
                     f'{tables.number(f.mac_line_off)} in its line ({what})')
    return '<p class="measured">measured: ' + e('; '.join(items)) + '</p>'


def _failing(v: Verdict) -> List[Case]:
    return [c for c in v.cases if c.gating or c.status == CaseStatus.CRASH]


def _at(links: Links, arch: str, span: Optional[ktap_index.Span]) -> str:
    """A link to the lines of the arch's ktap.log, or '' where there is none."""
    href = links.get(arch, {}).get('ktap.log', '')
    if not span:
        return ''
    text = f'ktap.log:{span.text}'
    return f'<a class="lines" href="{e(href)}#{e(span.anchor)}">{e(text)}</a>' if href \
        else f'<span class="lines">{e(text)}</span>'


def _failures(results: Results, links: Links, index: Index) -> str:
    out = ['<section id="failures">\n<h2>Failures</h2>']
    any_shown = False
    for arch, v in results.arches.items():
        cases = _failing(v)
        if v.status == ArchStatus.PASSED and not cases:
            continue
        if v.status == ArchStatus.KNOWN:
            continue    # listed with the known failures
        any_shown = True
        out.append(f'<article class="arch" id="fail-{e(arch)}"><h3>{e(arch)} '
                   f'<span class="s-{e(v.status.value)}">{e(v.status.value)}</span></h3>')
        idx = index.get(arch, ktap_index.Index())
        if v.problem:
            out.append(f'<pre class="msg cause">{e(_cause(v))}</pre>')
            if idx.crash:
                out.append(f'<p class="measured">The crash ({_at(links, arch, idx.crash)}):</p>'
                           f'<pre class="trace">{e(chr(10).join(idx.crash_lines))}</pre>')
        for c in cases:
            out.append(f'<div class="case"><h4><code>{e(c.name)}</code> '
                       f'<span class="s-{e(c.shown)}">{e(c.shown.lower())}</span> '
                       f'<small>{_at(links, arch, idx.cases.get(c.name))}</small></h4>')
            if c.status == CaseStatus.SKIP:
                out.append('<pre class="msg">skipped without a reason</pre>')
            else:
                out.append(f'<pre class="msg">{e(_message(c))}</pre>')
            out.append(_frames_line(v, c) + '</div>')
        if v.missing:
            out.append('<p>Missing from the KTAP output:</p><ul class="plain">'
                       + ''.join(f'<li><code>{e(m)}</code></li>' for m in v.missing) + '</ul>')
        out.append('</article>')
    if not any_shown:
        out.append('<p>None.</p>')
    out.append('</section>\n')
    return '\n'.join(out)


def _params(params: List[str]) -> str:
    """Parameter names, each common part once: `f len=0, 1, 60` for `f len=0`, `f len=1`, ..."""
    by: Dict[str, List[str]] = {}
    for p in params:
        head, _, rest = p.partition(' ')
        by.setdefault(head, []).append(rest)
    out = []
    for head, rests in by.items():
        key = rests[0].partition('=')[0] + '='
        if len(rests) > 1 and all(r.startswith(key) and ' ' not in r for r in rests):
            rests = [rests[0]] + [r[len(key):] for r in rests[1:]]
        out.append(' '.join(x for x in (head, ', '.join(r for r in rests if r)) if x))
    return '; '.join(out)


def _grouped(cases: List[Case]) -> str:
    """Case names by suite.case, each parameter once: `suite.case (p1, p2)`."""
    by: Dict[str, List[str]] = {}
    for c in cases:
        key = tables.case_key(c.name)
        by.setdefault(key, [])
        if c.name != key:
            by[key].append(c.name[len(key) + 1:])
    return '; '.join(f'<code>{e(k)}</code>' + (f' ({e(_params(p))})' if p else '')
                     for k, p in by.items())


def _known_and_skipped(results: Results) -> str:
    known: List[str] = []
    skipped: List[str] = []
    for arch, v in results.arches.items():
        if v.status == ArchStatus.KNOWN:
            cause = _cause(v).removesuffix(f' [known: {v.known}]')
            known.append(f'<li><b>{e(arch)}</b>: {e(v.known)} — {e(cause)}</li>')
        by_reason: Dict[str, List[Case]] = {}
        for c in v.cases:
            if c.shown == 'XFAIL':
                by_reason.setdefault(f'known:{c.known}', []).append(c)
            elif c.status == CaseStatus.SKIP and c.message:
                by_reason.setdefault(f'skip:{c.message}', []).append(c)
        for key, cases in by_reason.items():
            kind, reason = key.split(':', 1)
            n = f'{len(cases)} cases: ' if len(cases) > 1 else ''
            item = f'<li><b>{e(arch)}</b>: {e(reason)} — {n}{_grouped(cases)}'
            if kind == 'known':
                msgs = list(dict.fromkeys(_message(c) for c in cases))
                item += ''.join(f'<pre class="msg">{e(m)}</pre>' for m in msgs[:3])
                known.append(item + '</li>')
            else:
                skipped.append(item + '</li>')
    if not known and not skipped:
        return ''
    out = ['<section id="known">\n<h2>Known failures and skips</h2>']
    if known:
        out.append('<h3>Known failures (do not gate)</h3><ul class="plain">' + ''.join(known)
                   + '</ul>')
    if skipped:
        out.append('<h3>Skipped, with a reason</h3><ul class="plain">' + ''.join(skipped)
                   + '</ul>')
    out.append('</section>\n')
    return '\n'.join(out)


# ---- every case ----

def _case_cell(cases: List[Case], missing: bool) -> Tuple[str, str]:
    if missing:
        return 'MISSING', 'missing'
    if not cases:
        return '', ''
    by: Dict[str, int] = {}
    for c in cases:
        by[c.shown] = by.get(c.shown, 0) + 1
    worst = next(s for s in ('CRASH', 'FAIL', 'XFAIL', 'SKIP', 'PASS') if s in by)
    return worst, ', '.join(f'{n} {s.lower()}' for s, n in by.items())


def _every_case(results: Results, links: Links, index: Index,
                comparison: Optional[Comparison]) -> str:
    arches = results.arches
    keys: List[str] = []
    for v in arches.values():
        for name in [c.name for c in v.cases] + v.missing:
            if tables.case_key(name) not in keys:
                keys.append(tables.case_key(name))
    # a suite missing as a whole shows in its cases' rows, if another arch ran them
    keys = [k for k in keys if '.' in k or not any(x.startswith(k + '.') for x in keys)]
    if not keys:
        return ''
    rows = []
    for key in keys:
        cells = []
        for v in arches.values():
            cases = [c for c in v.cases if tables.case_key(c.name) == key]
            missing = any(m == key or m == key.split('.')[0] for m in v.missing)
            status, text = _case_cell(cases, missing)
            cls = f' class="s-{status}"' if status else ' class="none"'
            cells.append(f'<td{cls}>{e(text) or "—"}</td>')
        rows.append(f'<tr><th><code>{e(key)}</code></th>{"".join(cells)}</tr>')
    head = ''.join(f'<th>{e(a)}</th>' for a in arches)
    return ('<section id="cases">\n<h2>Every case</h2>\n<table class="cases">'
            f'<tr><th>suite.case</th>{head}</tr>\n' + '\n'.join(rows) + '</table>\n'
            '<h3>Each case, with its parameter, log lines and time (where the console has '
            'timestamps)</h3>\n'
            + _case_lists(results, links, index, comparison) + '\n</section>\n')


def _changes(comparison: Optional[Comparison]) -> str:
    if not comparison:
        return ''
    out = [f'<section id="changes">\n<h2>Changes since {e(comparison.run_id)}</h2>',
           f'<p class="legend">Baseline: <code>{e(comparison.where)}</code>. What changed is '
           'shown, never gated on: the exit status is this run\'s cases alone.</p>']
    items = [f'<li><b>{e(a.arch)}</b>: {e(a.then)} → {e(a.after.value)}</li>'
             for a in comparison.arches]
    if comparison.not_compared:
        items.append('<li>not in the baseline (a case failing there is new): '
                     + e(', '.join(comparison.not_compared)) + '</li>')
    if items:
        out.append('<ul class="plain">' + ''.join(items) + '</ul>')
    if comparison.cases:
        out.append('<table class="changes"><tr><th>change</th><th>arch</th><th>case</th>'
                   '<th>then</th><th>now</th></tr>')
        for kind in Change:
            for c in comparison.of_kind(kind):
                out.append(f'<tr data-change="{e(kind.value)}"><td class="chg chg-'
                           f'{e(kind.value)}">{e(kind.value)}</td><td>{e(c.arch)}</td>'
                           f'<td><code>{e(c.case)}</code></td>'
                           f'<td class="s-{e(c.before)}">{e(c.before or "—")}</td>'
                           f'<td class="s-{e(c.after)}">{e(c.after or "—")}</td></tr>')
        out.append('</table>')
    n = len(comparison.cells)
    if n:
        out.append(f'<p class="legend">{n} offset cell(s) changed: marked in the grids '
                   'below.</p>')
    out.append('</section>\n')
    return '\n'.join(out)


def _case_lists(results: Results, links: Links, index: Index,
                comparison: Optional[Comparison]) -> str:
    """Every case of every arch, by name and parameter, with its time (where the
    console has timestamps) and log lines."""
    out = []
    for arch, v in results.arches.items():
        if not v.cases and not v.missing:
            continue
        spans = index.get(arch, ktap_index.Index()).cases
        timed = tables.timed(v, spans)
        rows = []
        for c in v.cases:
            key = tables.case_key(c.name)
            span = spans.get(c.name)
            took = tables.case_time(span.seconds) if span and span.seconds is not None else ''
            change = comparison.case(arch, c.name) if comparison else None
            status = baseline.shown(v, c.name)
            rows.append(f'<tr><td><code>{e(key)}</code></td><td>{e(c.name[len(key) + 1:])}</td>'
                        f'<td class="s-{e(c.shown)}">{e(status)}</td>'
                        + (f'<td class="num">{e(took)}</td>' if timed else '')
                        + f'<td>{_at(links, arch, span)}</td>'
                        f'<td class="chg chg-{e(change.value) if change else ""}">'
                        f'{e(change.value) if change else ""}</td></tr>')
        rows += [f'<tr><td><code>{e(m)}</code></td><td></td><td class="s-MISSING">MISSING</td>'
                 + ('<td></td>' if timed else '') + '<td></td><td></td></tr>' for m in v.missing]
        missing = f', {len(v.missing)} missing' if v.missing else ''
        out.append(f'<details id="cases-{e(arch)}"><summary>{e(arch)}: {len(v.cases)} cases'
                   f'{missing}</summary><table class="every"><tr><th>suite.case</th>'
                   '<th>parameter</th><th>status</th>' + ('<th>time</th>' if timed else '')
                   + '<th>log</th><th>change</th></tr>\n' + '\n'.join(rows)
                   + '</table></details>')
    return '\n'.join(out)


def page(results: Results, links: Optional[Links] = None, index: Optional[Index] = None,
         comparison: Optional[Comparison] = None) -> str:
    links, index = links or {}, index or {}
    meta = results.meta if results.runs else None
    title = f'rx-align report: {tables.tree_base(meta.tree)}' if meta else 'rx-align report'
    # console text may hold characters no HTML may: shown as escapes (tables.printable)
    return tables.printable('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<title>{e(title)}</title>\n<style>{CSS}</style></head><body>\n'
            + _header(results, comparison) + _summary(results, links) + _changes(comparison)
            + _measured(results, comparison) + _failures(results, links, index)
            + _known_and_skipped(results) + _every_case(results, links, index, comparison)
            + '</body></html>\n')
