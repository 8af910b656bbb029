"""An arch's console log, read once: its lines, and kunit_parser's tree of them.

The verdict (verdict.judge) and kunit.json (kunit_driver.write_kunit_json)
both read kunit_parser's tree of the log; the parse runs bounded in a child
process (kunit_driver.load_kunit_parser), so it runs once and both take
its one result.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import ModuleType
from typing import Any, List, Optional

from .procs import Unfinished


@dataclasses.dataclass(frozen=True)
class KtapLog:
    lines: List[str]
    root: Any                   # kunit_parser's Test; None when the parser did not finish
    unfinished: str = ''        # why it did not (procs.Unfinished), '' when it did


def read(path: Optional[Path], parser: ModuleType) -> KtapLog:
    """The log at @path (none: no lines), parsed by the tree's @parser."""
    lines = path.read_text(errors='replace').splitlines() if path else []
    try:
        return KtapLog(lines, parser.parse_run_tests(lines))
    except Unfinished as e:
        return KtapLog(lines, None, str(e))
