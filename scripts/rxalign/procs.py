"""Processes: a process group read from /proc (kunit.py, its QEMU, make), and
work done in a child process that time and memory bound."""

from __future__ import annotations

import multiprocessing
import resource
import signal
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable, List, Tuple, TypeVar

T = TypeVar('T')


def group_members(pgid: int) -> List[int]:
    """The pids whose process group is `pgid`."""
    pids = []
    for stat in Path('/proc').glob('[0-9]*/stat'):
        try:
            fields = stat.read_text().rsplit(')', 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def has_env(pid: int, entry: str) -> bool:
    """Whether the process runs with `entry` (NAME=value) in its environment."""
    try:
        return entry.encode() in Path(f'/proc/{pid}/environ').read_bytes().split(b'\0')
    except OSError:
        return False


def command(pid: int) -> str:
    try:
        return Path(f'/proc/{pid}/cmdline').read_bytes().replace(b'\0', b' ').decode(
            errors='replace').strip()
    except OSError:
        return '?'


class Unfinished(Exception):
    """Work in a bounded child that did not finish: out of time, out of memory,
    or an error of its own (the message says which)."""


def _vm_size() -> int:
    """This process's address space, in bytes (0 if /proc does not say)."""
    for line in Path('/proc/self/status').read_text().splitlines():
        if line.startswith('VmSize:'):
            return int(line.split()[1]) * 1024
    return 0


def _child(work: Callable[..., Any], args: Tuple[Any, ...], memory: int,
           send: Connection) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)     # the parent answers Ctrl-C
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    limit = _vm_size() + memory
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        send.send(('done', work(*args)))
    except MemoryError:
        send.send(('error', f'it needed more than {memory >> 20} MB more memory'))
    except Exception as e:      # pylint: disable=broad-except
        send.send(('error', f'{type(e).__name__}: {e}'))


def bounded(work: Callable[..., T], *args: Any, seconds: float, memory: int) -> T:
    """work(*args), in a child process that may take @seconds and @memory bytes
    more than this one has; Unfinished says why it did not return.  The result
    comes back pickled: it must be made of classes this process has too."""
    ctx = multiprocessing.get_context('fork')
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(work, args, memory, send), daemon=True)
    child.start()
    send.close()
    try:
        if not recv.poll(seconds):
            raise Unfinished(f'it did not finish within {seconds:g}s')
        try:
            kind, value = recv.recv()
        except EOFError:
            child.join(5)
            raise Unfinished(f'it died (exit {child.exitcode}; more than {memory >> 20} MB '
                             'more memory?)') from None
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        recv.close()
    if kind != 'done':
        raise Unfinished(str(value))
    result: T = value
    return result
