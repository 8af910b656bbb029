"""The tree's own kunit_parser, whichever kernel's: 6.12's parse_run_tests()
takes the lines, 7.3's the lines and a printer; both are called one way."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1]

PRINTER = '''
import io
class Printer:
    def __init__(self, {params}output=None):
        self.output = output
'''
PARSER = '''
stdout = None
def parse_run_tests(kernel_output{extra}):
    {check}
    kernel_output = list(kernel_output)
    assert all(line.strip() for line in kernel_output), 'a blank line reached the parser'
    return kernel_output
'''


@pytest.mark.parametrize('newer', [False, True], ids=['6.12', '7.3'])
def test_parse_run_tests_is_called_one_way(tmp_path: Path, newer: bool) -> None:
    tools = tmp_path / 'kunit'
    tools.mkdir()
    (tools / 'kunit_printer.py').write_text(PRINTER.format(params='print=True, ' if newer else ''))
    (tools / 'kunit_parser.py').write_text(PARSER.format(
        extra=', printer' if newer else '',
        check='assert printer.output is not None' if newer else 'pass'))
    code = textwrap.dedent(f'''
        from pathlib import Path
        from rxalign.kunit_driver import load_kunit_parser
        p = load_kunit_parser(Path({str(tools)!r}))
        assert p.parse_run_tests(['a', 'b']) == ['a', 'b']
        p = load_kunit_parser(Path({str(tools)!r}))
        assert p.parse_run_tests(['c']) == ['c']
        # sparc32's console doubles every newline: 6.1's parser stops at a blank line
        assert p.parse_run_tests(['KTAP version 1', '', '1..1', ' ', 'ok 1 s']) == [
            'KTAP version 1', '1..1', 'ok 1 s']
        ''')
    proc = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(SCRIPTS)), check=False)
    assert proc.returncode == 0, proc.stderr
