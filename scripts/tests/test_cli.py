"""One wrapper maps every error of every entry point to a documented status."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import NoReturn

import pytest

from rxalign.cli import run_main
from rxalign.exitcodes import Exit, HarnessError

RXALIGN = Path(__file__).resolve().parents[1] / 'rxalign'


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


def test_an_expected_rule_naming_no_case_is_a_usage_error_before_any_work(
        tmp_path: Path) -> None:
    """`--expected` with a case name the module does not declare was accepted
    (only the suite was checked); docs/results.md says a typo is exit 2."""
    from rxalign import known_failures
    from rxalign.declared import declared_cases, expected_suites
    from rxalign.paths import TESTS_DIR
    f = tmp_path / 'x.expected'
    suites, cases = expected_suites(TESTS_DIR), declared_cases(TESTS_DIR)
    f.write_text('kernel: any\nsh: net_rx_align_xdp.rx_veth_xdpp  # a typo\n')
    with pytest.raises(HarnessError) as err:
        known_failures.from_option(f, suites, cases)
    assert err.value.status == Exit.USAGE and "no case 'rx_veth_xdpp'" in err.value.message
    f.write_text('kernel: any\n'
                 'sh: net_rx_align_xdp.rx_veth_xdp.ipv4_min  # a parameter of a real case\n')
    assert known_failures.from_option(f, suites, cases)
    with pytest.raises(HarnessError) as err:
        known_failures.from_option(tmp_path / 'missing.expected', suites, cases)
    assert err.value.status == Exit.USAGE and 'Errno' not in err.value.message
    assert 'No such file' in err.value.message


STOPPED = """
import os, signal, sys, time
from rxalign.cli import run_main
def stopped():
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    time.sleep(5)
    return 0
if sys.argv[2] == 'gone':       # the terminal of a SIGHUP: stderr fails with EIO
    class Gone:
        def write(self, s):
            raise OSError(5, 'Input/output error')
        def flush(self):
            pass
    sys.stderr = Gone()
sys.exit(run_main('prog', stopped))
"""


@pytest.mark.parametrize('stderr', ['there', 'gone'])
@pytest.mark.parametrize('name', ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'])
def test_every_stopping_signal_is_an_interrupt(name: str, stderr: str) -> None:
    """Issue 50 item 5: SIGHUP (the terminal closed) and SIGQUIT killed the
    process with their default action: no message, no cleanup, no 130. And
    with the terminal gone, the message itself must not turn 130 into a
    traceback: stderr that fails (EIO) is no error of the run. In a process
    of its own, which the signal may kill."""
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, '-c', STOPPED, name, stderr], capture_output=True,
                          text=True, env={'PYTHONPATH': str(RXALIGN.parent)}, timeout=60,
                          check=False)
    assert proc.returncode == Exit.INTERRUPTED, (proc.returncode, proc.stderr)
    assert proc.stderr == (f'prog: error: {name}: interrupted\n' if stderr == 'there' else ''), \
        proc.stderr
