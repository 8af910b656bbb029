"""The one wrapper every entry point runs in: each error -> its documented status.

A HarnessError carries its own status; Ctrl-C (and SIGTERM) is 130; a full
disk is 4; anything else is a bug of ours and gets Exit.INTERNAL, with the
traceback on stderr, never 0 or 1 (1 means "a test failed", and a CI that
gates on it must not read a crash of the harness as a kernel bug).
"""

from __future__ import annotations

import errno
import signal
import sys
import traceback
from typing import Callable

from .exitcodes import Exit, HarnessError


def error(prog: str, msg: str) -> None:
    print(f'{prog}: error: {msg}', file=sys.stderr, flush=True)


def run_main(prog: str, body: Callable[[], int], interrupted: str = 'interrupted') -> int:
    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt
    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        return int(body())
    except HarnessError as e:
        error(prog, e.message)
        return int(e.status)
    except KeyboardInterrupt:
        error(prog, interrupted)
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
        signal.signal(signal.SIGTERM, previous)


def _internal(prog: str) -> int:
    traceback.print_exc()
    kind, value = sys.exc_info()[:2]
    error(prog, f'internal error ({kind.__name__ if kind else "?"}: {value}); this is a bug '
          f'of {prog}, not of the kernel: please report it with the traceback above')
    return int(Exit.INTERNAL)
