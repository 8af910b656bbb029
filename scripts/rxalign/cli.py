"""The one wrapper every entry point runs in: each error -> its documented status.

A HarnessError carries its own status; Ctrl-C (and SIGTERM, SIGHUP: the
terminal or ssh session closed, SIGQUIT) is 130; a full disk is 4; anything else is a bug of ours and gets Exit.INTERNAL, with the
traceback on stderr, never 0 or 1 (1 means "a test failed", and a CI that
gates on it must not read a crash of the harness as a kernel bug).

Ctrl-C and the other STOPPING signals raise KeyboardInterrupt where the work
may stop at once (a child kunit.py's process group is killed on the way out,
kunit_driver._run);
inside deferred() they are only recorded (what was done is being written),
except inside interruptible() (the work of one arch, say), and a signal
recorded before stops the next interruptible() as it begins.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import signal
import sys
import traceback
from typing import Callable, Iterator

from .exitcodes import Exit, HarnessError


# The signals that stop a run as Ctrl-C does: a CI job cancelled (SIGTERM),
# the terminal or ssh session closed (SIGHUP), Ctrl-\\ (SIGQUIT). Left to their
# default action, SIGHUP and SIGQUIT killed the run with nothing written and
# its kunit.py (in a session of its own) running on, holding the cache.
STOPPING = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


@dataclasses.dataclass
class Signals:
    deferring: bool = False
    pending: str = ''           # the signal that came while deferred ('SIGTERM', ...)
    last: str = ''              # the last signal that came ('SIGHUP', ...)


SIGNALS = Signals()


def _on_signal(signum: int, frame: object) -> None:
    SIGNALS.last = signal.Signals(signum).name
    if SIGNALS.deferring:
        SIGNALS.pending = SIGNALS.pending or SIGNALS.last
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[Signals]:
    """Ctrl-C and SIGTERM are recorded, not raised, inside: SIGNALS.pending says
    whether one came."""
    was = SIGNALS.deferring
    SIGNALS.deferring, SIGNALS.pending = True, ''
    try:
        yield SIGNALS
    finally:
        SIGNALS.deferring = was


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Inside deferred(): work a signal stops at once; one recorded before it
    stops it as it begins."""
    if SIGNALS.deferring and SIGNALS.pending:
        raise KeyboardInterrupt
    was = SIGNALS.deferring
    SIGNALS.deferring = False
    try:
        yield
    finally:
        SIGNALS.deferring = was


def error(prog: str, msg: str) -> None:
    """The message on stderr; none when stderr is gone (the terminal of a
    SIGHUP), which must not turn the run's own exit status into a traceback."""
    try:
        print(f'{prog}: error: {msg}', file=sys.stderr, flush=True)
    except OSError:
        pass


def run_main(prog: str, body: Callable[[], int], interrupted: str = 'interrupted') -> int:
    SIGNALS.last = ''
    previous = {s: signal.signal(s, _on_signal) for s in STOPPING}
    try:
        return int(body())
    except HarnessError as e:
        error(prog, e.message)
        return int(e.status)
    except KeyboardInterrupt:
        error(prog, f'{SIGNALS.last or "SIGINT"}: {interrupted}')
        return int(Exit.INTERRUPTED)
    except OSError as e:
        if e.errno == errno.ENOSPC:
            error(prog, f'disk full: {e}; free space there, or set RXALIGN_CACHE to a '
                  'disk with room')
            return int(Exit.ENVIRONMENT)
        return _internal(prog)
    except Exception:   # pylint: disable=broad-except
        return _internal(prog)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _internal(prog: str) -> int:
    traceback.print_exc()
    kind, value = sys.exc_info()[:2]
    error(prog, f'internal error ({kind.__name__ if kind else "?"}: {value}); this is a bug '
          f'of {prog}, not of the kernel: please report it with the traceback above')
    return int(Exit.INTERNAL)
