"""What must have run: the suites and cases declared in kunit-tests/*.c.

A suite that vanished (a Kconfig dependency turned it off, suite_init
failed, the kernel died before it) must not read as a pass, so the verdict
compares KTAP against this list rather than against KTAP's own plan.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, FrozenSet, List, Set

_SUITE = re.compile(r'static struct kunit_suite\s+\w+\s*=\s*\{(.*?)\n\};', re.S)
_CASES = re.compile(r'static struct kunit_case\s+(\w+)\s*\[\]\s*=\s*\{(.*?)\n\};', re.S)
_CASE = re.compile(r'KUNIT_CASE(?:_PARAM|_SLOW|_PARAM_ATTR|_ATTR)?\s*\(\s*(\w+)')


def parse_source(text: str) -> Dict[str, List[str]]:
    arrays = {m.group(1): _CASE.findall(m.group(2)) for m in _CASES.finditer(text)}
    suites: Dict[str, List[str]] = {}
    for m in _SUITE.finditer(text):
        body = m.group(1)
        name = re.search(r'\.name\s*=\s*"([^"]+)"', body)
        cases = re.search(r'\.test_cases\s*=\s*(\w+)', body)
        if name and cases:
            suites[name.group(1)] = arrays.get(cases.group(1), [])
    return suites


def expected_suites(tests_dir: Path) -> Dict[str, List[str]]:
    suites: Dict[str, List[str]] = {}
    for src in sorted(tests_dir.glob('*.c')):
        suites.update(parse_source(src.read_text()))
    return suites


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
