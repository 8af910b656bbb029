"""Entry points apart from library modules, as rxalign/__init__.py says."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Set

SCRIPTS = Path(__file__).resolve().parents[1]
PACKAGE = SCRIPTS / 'rxalign'


def entry_points() -> Set[str]:
    """The modules the scripts run with `python3 -m rxalign.NAME`."""
    found: Set[str] = set()
    for script in SCRIPTS.iterdir():
        if script.is_file():
            found.update(re.findall(r'-m rxalign\.(\w+)', script.read_text(errors='replace')))
    return found


def imported(module: Path) -> Set[str]:
    """The rxalign modules one module imports."""
    names: Set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            names.update([node.module] if node.module else [a.name for a in node.names])
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.startswith('rxalign'):
            names.add(node.module.split('.')[1] if '.' in node.module else '')
    return {n.split('.')[0] for n in names if n}


def is_main(module: Path) -> bool:
    return "if __name__ == '__main__':" in module.read_text()


def test_every_entry_point_is_a_module_with_main() -> None:
    entries = entry_points()
    assert 'run_kunit' in entries and 'report_main' in entries
    for name in entries:
        module = PACKAGE / f'{name}.py'
        assert module.is_file(), name
        assert is_main(module) and 'def main(' in module.read_text(), name


def test_no_module_imports_an_entry_point() -> None:
    entries = entry_points()
    for module in PACKAGE.glob('*.py'):
        assert not imported(module) & entries, (module.name, imported(module) & entries)


def test_only_entry_points_run_as_main() -> None:
    entries = entry_points()
    assert {m.stem for m in PACKAGE.glob('*.py') if is_main(m)} == entries
