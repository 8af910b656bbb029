"""--coverage: the gcov counters the guest printed after the suites, as lines
and functions that ran.

The kernel was built with gcov for the receive files (gcov_profile.py);
after KUnit its /init (scripts/initramfs/gcov-dump.c) prints every .gcda
file of debugfs in base64 between `rx_align_gcov:` markers, each file with
its size and an FNV-1a checksum, and a count at the end.  Here:

1. read_dump(): the files, from the console log; a dump that is missing,
   cut short or garbled is a CoverageError (results missing: exit 3);
2. each .gcda goes beside a copy of its .gcno, in the build dir's
   GCOV_WORK (a .gcda of an earlier run never lingers next to a .gcno),
   and the gcov of the compiler that built the kernel (gcov -j -t: JSON)
   says, for the file's own source, each line's count and each function's;
3. write(): <arch>/coverage/coverage.json (file -> lines ran and not,
   function -> times it ran) and a <source>.gcov per file, as gcov
   annotates a source; summaries() gives report.md's line per file.

Never from this machine's kernel: the counts are the guest's, as printed.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import os
import re
import shutil
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from .arches import Arch, builder
from .exitcodes import Exit, HarnessError
from .results import FileSummary
from .toolchains import Toolchain

MARKER = re.compile(r'rx_align_gcov: (begin|file|data|end|done|unavailable)\b:? ?(.*?)\s*$')
LINE_BYTES = 57             # what gcov-dump.c puts on one data line
GCOV_WORK = '.rxalign-gcov'  # in the build dir: the .gcno copies and .gcda files of a run
FORMAT = 1                  # of coverage.json
GCOV_SECONDS = 120


class CoverageError(HarnessError):
    """The counters could not be read: results missing (exit 3), or gcov absent (exit 4)."""

    def __init__(self, message: str, status: Exit = Exit.INFRA) -> None:
        super().__init__(status, message)


@dataclasses.dataclass(frozen=True)
class Gcda:
    path: str                   # where the guest's debugfs had it
    data: bytes


def fnv1a(data: bytes) -> int:
    h = 2166136261
    for b in data:
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h


def read_dump(lines: Iterable[str]) -> List[Gcda]:
    """The .gcda files the guest printed, checked: CoverageError names the
    line where a dump stops making sense."""
    files: List[Gcda] = []
    began = False
    current: Optional[str] = None
    chunks: List[bytes] = []
    done: Optional[str] = None      # where the dump said it was done
    for number, raw in enumerate(lines, 1):
        m = MARKER.search(raw)
        if not m:
            continue
        what, arg = m.group(1), m.group(2)
        where = f'console line {number}'
        if done is not None:
            raise CoverageError(f'"rx_align_gcov: {what}" after the dump\'s "done" ({where}): a '
                                'second gcov dump (the guest rebooted, or ran /init twice)')
        if what == 'unavailable':
            raise CoverageError(f'the guest could not dump its gcov counters: {arg} ({where})')
        if what == 'begin':
            if began:
                raise CoverageError(f'a second gcov dump began at {where}: the guest rebooted '
                                    'or ran /init twice')
            began = True
            continue
        if not began:
            raise CoverageError(f'"rx_align_gcov: {what}" before "begin" ({where}): the dump '
                                'is garbled')
        if what == 'file':
            if current is not None:
                raise CoverageError(f'the dump of {current} stops at {where} (no "end" line): '
                                    'truncated or garbled')
            current, chunks = arg, []
        elif what == 'data':
            if current is None:
                raise CoverageError(f'data outside any file at {where}: the dump is garbled')
            if chunks and len(chunks[-1]) != LINE_BYTES:
                raise CoverageError(f'{current}: a short data line before {where}: a line was '
                                    'cut (a kernel message inside it?)')
            try:
                chunks.append(base64.b64decode(arg, validate=True))
            except (binascii.Error, ValueError) as e:
                raise CoverageError(f'{current}: data at {where} is not base64 ({e}): the '
                                    'dump is garbled') from None
        elif what == 'end':
            files.append(_ended(current, chunks, arg, where))
            current = None
        elif what == 'done':
            if current is not None:
                raise CoverageError(f'the dump of {current} has no "end" line before "done" '
                                    f'({where})')
            if arg != str(len(files)):
                raise CoverageError(f'the guest says it dumped {arg} files, the console holds '
                                    f'{len(files)} ({where}): lines were lost')
            done = where
    if done is not None:
        return files
    if not began:
        raise CoverageError('no gcov dump in the console: /init printed no "rx_align_gcov: '
                            'begin" (the kernel did not reach /init, or ran another)')
    raise CoverageError(f'the gcov dump is truncated: it stops after {len(files)} file(s)'
                        + (f', inside {current}' if current else '') + ', with no "done" line')


def _ended(current: Optional[str], chunks: List[bytes], arg: str, where: str) -> Gcda:
    """The file an `end PATH SIZE FNV` line closes, checked."""
    parts = arg.split()
    if current is None or len(parts) != 3 or parts[0] != current:
        raise CoverageError(f'"end {arg}" at {where} closes no open file '
                            f'({current or "none open"}): the dump is garbled')
    data = b''.join(chunks)
    try:
        size, checksum = int(parts[1]), int(parts[2], 16)
    except ValueError:
        raise CoverageError(f'"end {arg}" at {where}: size or checksum unreadable') from None
    if size != len(data) or checksum != fnv1a(data):
        raise CoverageError(f'{current}: {len(data)} bytes with checksum {fnv1a(data):x} read, '
                            f'the guest sent {size} with {checksum:x} ({where}): the dump is '
                            'garbled')
    return Gcda(current, data)


def place(gcda: Gcda, build_dir: Path) -> PurePosixPath:
    """@gcda's object path in @build_dir (net/core/skbuff, no suffix): the
    longest tail of its guest path whose .gcno the build has."""
    parts = PurePosixPath(gcda.path).parts
    for i in range(1, len(parts)):
        rel = PurePosixPath(*parts[i:]).with_suffix('')
        if (build_dir / f'{rel}.gcno').is_file():
            return rel
    raise CoverageError(f'{gcda.path}: no .gcno for it in {build_dir}: the kernel booted is '
                        'not the one built there')


@dataclasses.dataclass(frozen=True)
class FunctionRun:
    name: str
    line: int                   # where it starts
    count: int                  # times it was entered


@dataclasses.dataclass(frozen=True)
class FileCoverage:
    """One source file of the guest: each line with code, and its count."""
    source: str                             # tree-relative: net/core/skbuff.c
    counts: Tuple[Tuple[int, int], ...]     # (line, count), by line
    functions: Tuple[FunctionRun, ...]

    @property
    def ran(self) -> List[int]:
        return [n for n, c in self.counts if c]

    @property
    def not_ran(self) -> List[int]:
        return [n for n, c in self.counts if not c]

    def function(self, name: str) -> Optional[FunctionRun]:
        return next((f for f in self.functions if f.name == name), None)

    def summary(self) -> FileSummary:
        return FileSummary(self.source, len(self.counts), len(self.ran), len(self.functions),
                           sum(1 for f in self.functions if f.count))

    def to_json(self) -> Dict[str, Any]:
        return {'source': self.source, 'lines': {'ran': self.ran, 'not_ran': self.not_ran},
                'functions': {f.name: f.count for f in self.functions}}


def _file_coverage(source: str, entry: Dict[str, Any]) -> FileCoverage:
    counts: Dict[int, int] = {}
    for ln in entry.get('lines', []):
        n, c = int(ln['line_number']), int(ln['count'])
        counts[n] = max(counts.get(n, 0), c)
    funcs = sorted((FunctionRun(str(fn['name']), int(fn['start_line']),
                                int(fn['execution_count'])) for fn in entry.get('functions', [])),
                   key=lambda fn: (fn.line, fn.name))
    return FileCoverage(source, tuple(sorted(counts.items())), tuple(funcs))


def from_gcov_json(data: Any, source: str, tree: str = '') -> List[FileCoverage]:
    """`gcov --json-format` output (gcc 9 and later) of the object built from
    @source: that file, first, then each other .c file of @tree (an absolute
    path) it included (8390.c includes lib8390.c); headers are left out."""
    files = data.get('files') if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise CoverageError(f'{source}: gcov printed no "files" list')
    cwd = str(data.get('current_working_directory', ''))
    main: List[FileCoverage] = []
    included: List[FileCoverage] = []
    for f in files:
        name = os.path.normpath(os.path.join(cwd, str(f.get('file', ''))))
        if ('/' + name).endswith('/' + source):
            main.append(_file_coverage(source, f))
        elif tree and name.endswith('.c') and name.startswith(tree.rstrip('/') + '/'):
            included.append(_file_coverage(os.path.relpath(name, tree), f))
    if not main:
        raise CoverageError(f'{source}: gcov printed no entry for it (files: '
                            f'{", ".join(str(f.get("file")) for f in files[:5])})')
    return main + included


def merged(files: Iterable[FileCoverage]) -> List[FileCoverage]:
    """One FileCoverage per source: a file two objects include (lib8390.c in
    8390.o and 8390p.o) counts the runs of both."""
    by_source: Dict[str, List[FileCoverage]] = {}
    for f in files:
        by_source.setdefault(f.source, []).append(f)
    out = []
    for source, same in sorted(by_source.items()):
        counts: Dict[int, int] = {}
        funcs: Dict[Tuple[str, int], int] = {}
        for f in same:
            for n, c in f.counts:
                counts[n] = counts.get(n, 0) + c
            for fn in f.functions:
                funcs[(fn.name, fn.line)] = funcs.get((fn.name, fn.line), 0) + fn.count
        out.append(FileCoverage(source, tuple(sorted(counts.items())), tuple(sorted(
            (FunctionRun(name, line, c) for (name, line), c in funcs.items()),
            key=lambda fn: (fn.line, fn.name)))))
    return out


def gcov_binary(arch: Arch) -> str:
    """The gcov of the compiler that builds @arch's kernel (its .gcno format)."""
    return f'{builder(arch).cross_compile}gcov'


def _package(arch: Arch) -> str:
    return next((p for p in builder(arch).packages if p.startswith('gcc')), 'gcc')


def gcov_missing(arch: Arch, toolchain: Toolchain) -> Optional[HarnessError]:
    """Why @arch's counters could not be read here (None: they can)."""
    binary = gcov_binary(arch)
    found = toolchain.root.which(binary) if toolchain.root else shutil.which(binary)
    if found:
        return None
    return HarnessError(Exit.ENVIRONMENT, f'{arch.name}: --coverage needs {binary}, the gcov of '
                        f'the compiler that builds its kernel: apt-get install {_package(arch)}')


def run_gcov(arch: Arch, toolchain: Toolchain, build_dir: Path, tree: Path,
             gcdas: Sequence[Gcda]) -> List[FileCoverage]:
    """Each .gcda beside a copy of its .gcno in GCOV_WORK, through gcov."""
    work = build_dir / GCOV_WORK
    shutil.rmtree(work, ignore_errors=True)
    out: List[FileCoverage] = []
    for gcda in gcdas:
        rel = place(gcda, build_dir)
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(build_dir / f'{rel}.gcno', work / f'{rel}.gcno')
        (work / f'{rel}.gcda').write_bytes(gcda.data)
        cmd = [gcov_binary(arch), '--json-format', '--stdout', '-o', str((work / rel).parent),
               str(work / f'{rel}.gcda')]
        try:
            proc = subprocess.run(toolchain.command(cmd, build_dir), cwd=build_dir,
                                  capture_output=True, text=True, timeout=GCOV_SECONDS,
                                  check=False)
        except FileNotFoundError:
            raise CoverageError(f'{cmd[0]} not found: apt-get install {_package(arch)}',
                                Exit.ENVIRONMENT) from None
        if proc.returncode != 0:
            raise CoverageError(f'{" ".join(cmd)} failed (exit {proc.returncode}): '
                                f'{proc.stderr.strip()[:300]}')
        try:
            data = json.loads(proc.stdout)
        except ValueError as e:
            raise CoverageError(f'{cmd[0]} on {rel}.gcda printed no JSON ({e})') from None
        out += from_gcov_json(data, _source_of(tree, rel), str(tree.resolve()))
    return merged(out)


def _source_of(tree: Path, rel: PurePosixPath) -> str:
    """The source of object @rel: its .c (a .S has no gcov)."""
    source = f'{rel}.c'
    return source if (tree / source).is_file() else str(rel)


def annotated(cov: FileCoverage, text: str) -> str:
    """@cov over the source @text, as gcov annotates it (count, '#####'
    never ran, '-' no code)."""
    counts = dict(cov.counts)
    out = [f'{"-":>9}:{0:>5}:Source:{cov.source}']
    for n, line in enumerate(text.splitlines(), 1):
        c = counts.get(n)
        mark = '-' if c is None else (str(c) if c else '#####')
        out.append(f'{mark:>9}:{n:>5}:{line}')
    return '\n'.join(out) + '\n'


def write(out_dir: Path, arch: str, files: Sequence[FileCoverage], tree: Path) -> None:
    """<arch>/coverage/: coverage.json and a <source>.gcov per file."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for f in files:
        path = out_dir / (f.source.replace('/', '#') + '.gcov')
        src = tree / f.source
        path.write_text(annotated(f, src.read_text(errors='replace') if src.is_file() else ''))
    # a file a line: compact (a run of x86_64 has 51 files, 40k lines) and diffable
    body = ',\n'.join(json.dumps(f.to_json(), separators=(',', ':')) for f in files)
    (out_dir / 'coverage.json').write_text(
        f'{{"format":{FORMAT},"arch":{json.dumps(arch)},"files":[\n{body}]}}\n')


def collect(console: Sequence[str], arch: Arch, toolchain: Toolchain, build_dir: Path,
            tree: Path, out_dir: Path) -> List[FileCoverage]:
    """The guest's counters from @console, read by gcov and written to @out_dir."""
    files = run_gcov(arch, toolchain, build_dir, tree, read_dump(console))
    write(out_dir, arch.name, files, tree)
    return files
