"""One wrapper maps every error of every entry point to a documented status."""

from __future__ import annotations

import errno
import re
from pathlib import Path
from typing import NoReturn

import pytest

from rxalign.cli import run_main
from rxalign.exitcodes import Exit, HarnessError

RXALIGN = Path(__file__).resolve().parents[1] / 'rxalign'
README = Path(__file__).resolve().parents[2] / 'README.md'


def raises(e: BaseException) -> NoReturn:
    raise e


@pytest.mark.parametrize('error, status', [
    (HarnessError(Exit.PATCH, 'x.patch does not apply'), Exit.PATCH),
    (KeyboardInterrupt(), Exit.INTERRUPTED),
    (OSError(errno.ENOSPC, 'No space left on device'), Exit.ENVIRONMENT),
    (OSError(errno.EIO, 'I/O error'), Exit.INTERNAL),
    (KeyError('arch'), Exit.INTERNAL),
])
def test_each_error_has_its_status(capsys: pytest.CaptureFixture[str], error: BaseException,
                                   status: Exit) -> None:
    assert run_main('prog', lambda: raises(error)) == status
    err = capsys.readouterr().err
    assert err.splitlines()[-1].startswith('prog: error: ')
    if status == Exit.INTERNAL:
        assert 'internal error' in err and 'Traceback' in err


def test_every_entry_point_runs_in_the_wrapper() -> None:
    """Item 7: entry points whose errors were tracebacks with exit 1."""
    for module in RXALIGN.glob('*.py'):
        text = module.read_text()
        if "if __name__ == '__main__':" in text:
            assert 'run_main(' in text, module.name


def test_the_readme_documents_every_status() -> None:
    table = README.read_text().split('## Exit statuses', 1)[1].split('\n\n', 2)[1:3]
    documented = {int(n) for n in re.findall(r'^\| (\d+) \|', '\n\n'.join(table), re.M)}
    assert documented == {int(e) for e in Exit}
