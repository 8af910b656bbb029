"""What must have run: the suites and cases declared in kunit-tests/*.c.

A suite that vanished (a Kconfig dependency turned it off, suite_init
failed, the kernel died before it) must not read as a pass, so the verdict
compares KTAP against this list rather than against KTAP's own plan.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from .exitcodes import Exit, HarnessError

Config = Dict[str, str]     # a kernel .config: CONFIG_FOO -> 'y', 'm' or a value

_ARRAY = re.compile(r'^\s*(?:static\s+)?(?:const\s+)?struct\s+kunit_case\s+(?:__\w+\s+)*'
                    r'(\w+)\s*\[\s*\]')
_SUITE = re.compile(r'^\s*(?:static\s+)?(?:const\s+)?struct\s+kunit_suite\s+(?:__\w+\s+)*'
                    r'(\w+)\s*(?:__\w+\s*)*=\s*\{')
_CASE = re.compile(r'KUNIT_CASE(?:_PARAM|_SLOW|_PARAM_ATTR|_ATTR)?\s*\(\s*(\w+)')
_NAME = re.compile(r'\.name\s*=\s*(?:"([^"]+)"|(\w+))')
_TEST_CASES = re.compile(r'\.test_cases\s*=\s*(\w+)')
_DEFINE = re.compile(r'^\s*#\s*define\s+(\w+)\s+"([^"]*)"', re.M)
_DIRECTIVE = re.compile(r'^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b\s*(.*?)\s*(?://.*|/\*.*)?$')
_CONFIG_TEST = re.compile(r'(!?)\s*(defined|IS_ENABLED|IS_BUILTIN|IS_MODULE)?\s*\(?\s*'
                          r'(CONFIG_\w+)\s*\)?')


def read_config(path: Path) -> Config:
    """A kernel .config as a dict; the options it leaves unset are absent."""
    config: Config = {}
    for line in path.read_text(errors='replace').splitlines():
        key, sep, value = line.partition('=')
        if sep and key.startswith('CONFIG_'):
            config[key] = value
    return config


def _evaluate(kind: str, expr: str, config: Optional[Config]) -> Optional[bool]:
    """An #if condition on one config option: True, False, or None (cannot tell)."""
    if kind in ('ifdef', 'ifndef'):
        expr = f'{"!" if kind == "ifndef" else ""}defined({expr})'
    m = _CONFIG_TEST.fullmatch(expr.strip())
    if not m or config is None:
        return None
    value = config.get(m.group(3), '')
    test = m.group(2) or 'defined'
    result = {'defined': value == 'y', 'IS_BUILTIN': value == 'y', 'IS_MODULE': value == 'm',
              'IS_ENABLED': value in ('y', 'm')}[test]
    return not result if m.group(1) else result


def _built(text: str, config: Optional[Config]) -> List[Tuple[str, Optional[bool]]]:
    """Each line, and whether the preprocessor keeps it: True, False, None (cannot tell)."""
    stack: List[List[Optional[bool]]] = []   # per #if: [this branch, any branch taken]
    out: List[Tuple[str, Optional[bool]]] = []
    for line in text.splitlines():
        d = _DIRECTIVE.match(line)
        if d:
            kind, expr = d.group(1), d.group(2)
            if kind in ('if', 'ifdef', 'ifndef'):
                cond = _evaluate(kind, expr, config)
                stack.append([cond, cond])
            elif stack and kind == 'elif':
                taken = stack[-1][1]
                cond = _evaluate('if', expr, config)
                branch = False if taken else (None if taken is None or cond is None else cond)
                stack[-1] = [branch, True if taken or cond else (None if None in (taken, cond)
                                                                  else False)]
            elif stack and kind == 'else':
                taken = stack[-1][1]
                stack[-1] = [None if taken is None else not taken, True]
            elif stack and kind == 'endif':
                stack.pop()
            out.append((line, False))
            continue
        states = [s[0] for s in stack]
        out.append((line, False if False in states else (None if None in states else True)))
    return out


def _blocks(lines: List[Tuple[str, Optional[bool]]], start: re.Pattern[str]) \
        -> List[Tuple[str, Optional[bool], List[Tuple[str, Optional[bool]]]]]:
    """(name, built, body lines) of each `struct ... name... = {` block up to `};`."""
    found = []
    i = 0
    while i < len(lines):
        m = start.match(lines[i][0])
        if not m:
            i += 1
            continue
        body = [(lines[i][0][m.end():], lines[i][1])]
        i += 1
        while i < len(lines) and not re.match(r'^\s*\};', lines[i][0]):
            body.append(lines[i])
            i += 1
        found.append((m.group(1), lines[i - len(body)][1] if body else None, body))
    return found


def parse_source(text: str, config: Optional[Config] = None,
                 defines: Optional[Dict[str, str]] = None) -> Dict[str, List[str]]:
    """suite -> the cases that must run, from one C file of the test module.

    A case or suite behind `#if`/`#ifdef` on a config option is required only
    when `config` (the built kernel's .config) says it is built; behind a
    condition this cannot evaluate (say `PAGE_SIZE == SZ_4K`), or without a
    config, it is not required (if it runs, it counts like any other).  A
    suite named by a macro takes the string the file, or `defines` (the
    module's headers), gives it; ValueError if neither does.
    """
    lines = _built(text, config)
    defines = {**(defines or {}), **dict(_DEFINE.findall(text))}
    arrays: Dict[str, List[str]] = {
        name: [m.group(1) for ln, built in body if built for m in [_CASE.search(ln)] if m]
        for name, _, body in _blocks(lines, _ARRAY)}
    suites: Dict[str, List[str]] = {}
    for var, built, body in _blocks(lines, _SUITE):
        joined = '\n'.join(ln for ln, _ in body)
        name, cases = _NAME.search(joined), _TEST_CASES.search(joined)
        if not name or not cases or built is not True:
            continue
        suite = name.group(1) or defines.get(name.group(2) or '')
        if not suite:
            raise ValueError(f'the name of kunit suite {var}, {name.group(2)}, is neither a '
                             'string nor a #define of one in the module\'s .c or .h files')
        suites[suite] = arrays.get(cases.group(1), [])
    return suites


def absent(declared: Dict[str, List[str]], ran: List[str]) -> List[str]:
    """What was declared and did not run: a whole suite, or suite.case.

    `ran` holds the names of the cases that ran (suite.case[.param]), and of
    suites that started (a suite that began, then lost its cases, is there).
    """
    suites = {n.split('.')[0] for n in ran}
    cases = {'.'.join(n.split('.')[:2]) for n in ran}
    lost: List[str] = []
    for suite, names in declared.items():
        if suite not in suites:
            lost.append(suite)
        else:
            lost += [f'{suite}.{c}' for c in names if f'{suite}.{c}' not in cases]
    return lost


_OBJ = re.compile(r'^obj-\$\((CONFIG_\w+)\)\s*\+?=\s*(.*)$', re.M)


def objects(tests_dir: Path) -> Dict[str, str]:
    """file.c -> the config option the Makefile builds it under, in its order."""
    makefile = tests_dir / 'Makefile'
    option: Dict[str, str] = {}
    if makefile.is_file():
        for m in _OBJ.finditer(makefile.read_text()):
            for obj in m.group(2).split():
                option[obj[:-2] + '.c' if obj.endswith('.o') else obj] = m.group(1)
    return option


def built_sources(tests_dir: Path, config: Optional[Config]) -> List[Path]:
    """The C files of the test module that the built kernel has: a file the
    Makefile builds under an option the .config leaves off (say the drivers
    suite, outside run-kunit --drivers) declares nothing for that kernel."""
    option = objects(tests_dir)
    return [src for src in sorted(tests_dir.glob('*.c'))
            if config is None or src.name not in option
            or config.get(option[src.name]) in ('y', 'm')]


# The drivers suites (--drivers runs them alone, on the machine's NICs: the
# drivers suite and the one after it that checks what it left alone) are
# those whose names match this; every other run runs every other declared
# suite.  They share their kernel with the others (scripts/kconfig/drivers.config).
DRIVERS_SUITES = 'net_rx_align_drivers*'


def run_suites(suites: Iterable[str], drivers: bool) -> List[str]:
    """The declared suites a run (--drivers or not) must run, and so requires."""
    return [s for s in suites if fnmatch.fnmatchcase(s, DRIVERS_SUITES) == drivers]


def suite_glob(suites: Iterable[str], drivers: bool) -> str:
    """The kunit.filter_glob that boots every suite of run_suites() and none of
    the other kind: one glob (the kernel's glob_match(): `*`, `?`, `[...]`, no
    alternatives), made from the declared names, so that a new suite runs
    and is required without anyone editing a pattern: their common prefix,
    then a class of the characters they have at each next place, as few
    places as tell them from the others.  A usage error when no such glob
    exists: a name must then change."""
    declared = list(dict.fromkeys(suites))
    want = run_suites(declared, drivers)
    rest = [s for s in declared if s not in want]
    if not want:
        raise HarnessError(Exit.USAGE, 'the test module declares no suite for this run (none '
                           f'{"matches" if drivers else "but those matching"} '
                           f'{DRIVERS_SUITES}): check kunit-tests/*.c')
    if len(want) == 1 and not any(fnmatch.fnmatchcase(r, want[0]) for r in rest):
        return want[0]
    prefix = os.path.commonprefix(want)
    tails = [w[len(prefix):] for w in want]
    for places in range(min(len(t) for t in tails) + 1):
        glob = prefix + ''.join(f'[{"".join(sorted({t[k] for t in tails}))}]'
                                for k in range(places)) + '*'
        if not any(fnmatch.fnmatchcase(r, glob) for r in rest):
            return glob
    raise HarnessError(Exit.USAGE, f'no one kunit.filter_glob runs {", ".join(want)} without '
                       f'{", ".join(rest)}: rename a suite so that the names of one run '
                       'differ from the others\' within their shortest name')


def _defines(tests_dir: Path) -> Dict[str, str]:
    defines: Dict[str, str] = {}
    for header in sorted(tests_dir.glob('*.[ch]')):
        defines.update(_DEFINE.findall(header.read_text(errors='replace')))
    return defines


def _suites_of(src: Path, config: Optional[Config], defines: Dict[str, str]) \
        -> Dict[str, List[str]]:
    try:
        return parse_source(src.read_text(), config, defines)
    except ValueError as e:
        raise HarnessError(Exit.USAGE, f'{src}: {e}: give the suite a string name, or '
                           'a #define of one in the module\'s files') from None


def expected_suites(tests_dir: Path, config: Optional[Config] = None) -> Dict[str, List[str]]:
    """suite -> cases, of every C file of the module the kernel builds; a
    usage error naming the file when a suite's name cannot be read."""
    defines = _defines(tests_dir)
    suites: Dict[str, List[str]] = {}
    for src in built_sources(tests_dir, config):
        suites.update(_suites_of(src, config, defines))
    return suites


def suites_by_file(tests_dir: Path) -> List[Tuple[str, str, Dict[str, List[str]]]]:
    """(file, the config option that builds it, its suite -> cases), in the
    Makefile's order: what docs/suites.md tabulates."""
    defines = _defines(tests_dir)
    return [(name, option, _suites_of(tests_dir / name, None, defines))
            for name, option in objects(tests_dir).items() if (tests_dir / name).is_file()]


# A definition starts at column 0 with its return type; calls are indented.
_FUNC = re.compile(r'^(?:static\s+)?(?:const\s+)?(?:struct\s+)?\w+[\s*]+(\w+)\(', re.M)
_WRAPPER = re.compile(r'^KUNIT_DEFINE_ACTION_WRAPPER\((\w+),', re.M)


def module_functions(tests_dir: Path) -> FrozenSet[str]:
    """Our module's function names: a kmemleak backtrace through one is our leak."""
    names: Set[str] = set()
    for src in sorted(tests_dir.glob('*.c')):
        text = src.read_text()
        names.update(_FUNC.findall(text))
        names.update(_WRAPPER.findall(text))
    return frozenset(names)


def declared_cases(tests_dir: Path) -> FrozenSet[str]:
    """Every case name the module's sources declare, whatever the config: what
    an --expected rule may name after its suite."""
    return frozenset(m.group(1) for f in sorted(tests_dir.glob('*.c'))
                     for m in _CASE.finditer(f.read_text()))
