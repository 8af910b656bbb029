"""kunit-tests/ as commits: the series posted upstream, then what stays here.

kunit-tests/ holds the suites as they are at the end of the series; the
commits that add them are described in kunit-tests/commits/, one file each,
applied in name order.  A file is a commit message with a header:

    Files: rx_align.h rx_align_kunit_helpers.c
    Posted: net-next                (or: local, not mailed anywhere)
    From: Name <address>            (the author)

    net: subject line

    body, trailers

A commit adds its files whole; Makefile and Kconfig are written for each
commit from kunit-tests/'s own: a Makefile line when the object's source is
in by then, a Kconfig entry when a line in by then builds with its symbol.
So every commit builds on its own, and the last one is kunit-tests/.
"""

from __future__ import annotations

import dataclasses
import enum
import re
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from .exitcodes import Exit, HarnessError

COMMITS_DIR = 'commits'
COVER_LETTER = '0000-cover-letter.msg'
# The files of kunit-tests/ that go into the kernel tree, and of those, the
# ones written for each commit rather than added by one.
TEST_FILES = re.compile(r'^(Kconfig|Makefile|\.kunitconfig|[\w-]+\.[ch])$')
GENERATED = ('Makefile', 'Kconfig')
_OBJ = re.compile(r'^obj-\$\(CONFIG_(\w+)\)\s*\+=\s*([\w-]+)\.o\s*$')
_CONFIG = re.compile(r'^config (\w+)\s*$', re.M)


class Posted(enum.Enum):
    NET_NEXT = 'net-next'   # part of the series mailed to netdev
    LOCAL = 'local'         # this project's own: its rig, its cases for unmerged fixes


@dataclasses.dataclass(frozen=True)
class TestCommit:
    path: Path                  # the message file
    files: Tuple[str, ...]      # the kunit-tests/ files it adds
    posted: Posted
    author: str                 # "Name <address>"
    message: str                # subject, blank line, body

    @property
    def subject(self) -> str:
        return self.message.split('\n', 1)[0]


def _header(path: Path, text: str) -> Tuple[Dict[str, str], str]:
    head, sep, message = text.partition('\n\n')
    fields: Dict[str, str] = {}
    for line in head.splitlines():
        key, colon, value = line.partition(':')
        if not colon or key not in ('Files', 'Posted', 'From'):
            raise HarnessError(Exit.USAGE, f'{path}: header line {line!r}: expected '
                               '"Files:", "Posted:" or "From:", then a blank line')
        fields[key] = value.strip()
    missing = [k for k in ('Files', 'Posted', 'From') if k not in fields]
    if missing or not sep or not message.strip():
        raise HarnessError(Exit.USAGE, f'{path}: needs {", ".join(missing) or "a message"} '
                           '(kunit_series.py says the format)')
    return fields, message.strip('\n') + '\n'


def read(tests_dir: Path) -> List[TestCommit]:
    """The commits of kunit-tests/, in order; every file in exactly one of them."""
    commits: List[TestCommit] = []
    for path in sorted((tests_dir / COMMITS_DIR).glob('*.msg')):
        if path.name == COVER_LETTER:
            continue
        fields, message = _header(path, path.read_text())
        try:
            posted = Posted(fields['Posted'])
        except ValueError:
            raise HarnessError(Exit.USAGE, f'{path}: Posted: {fields["Posted"]!r}; known: '
                               f'{", ".join(p.value for p in Posted)}') from None
        commits.append(TestCommit(path, tuple(fields['Files'].split()), posted,
                                  fields['From'], message))
    _check_files(tests_dir, commits)
    return commits


def _check_files(tests_dir: Path, commits: Sequence[TestCommit]) -> None:
    named = [f for c in commits for f in c.files]
    have = sorted(f.name for f in tests_dir.iterdir()
                  if f.is_file() and TEST_FILES.match(f.name) and f.name not in GENERATED)
    twice = sorted({f for f in named if named.count(f) > 1})
    unknown = sorted(set(named) - set(have))
    left = sorted(set(have) - set(named))
    if twice or unknown or left or not commits:
        raise HarnessError(Exit.USAGE, f'{tests_dir / COMMITS_DIR}: every file of '
                           f'{tests_dir.name}/ the tree takes but {" and ".join(GENERATED)} '
                           'must be added by '
                           f'exactly one commit: twice {twice}, not there {unknown}, in none '
                           f'{left}')
    posted = [c.posted for c in commits]
    if posted != sorted(posted, key=lambda p: p is Posted.LOCAL):
        raise HarnessError(Exit.USAGE, f'{tests_dir / COMMITS_DIR}: local commits go after '
                           'the posted ones, so that the posted ones are a series')


def makefile(text: str, present: Sequence[str]) -> str:
    """kunit-tests/Makefile with the object lines whose source is not in yet left out."""
    return ''.join(line for line in text.splitlines(keepends=True)
                   if not (m := _OBJ.match(line)) or f'{m.group(2)}.c' in present)


def kconfig(text: str, built_with: Sequence[str]) -> str:
    """kunit-tests/Kconfig with the entries of symbols no Makefile line uses left out.

    An entry runs from its `config` line to the next one (or the end), so its
    help and the blank line after it go with it."""
    starts = [m.start() for m in _CONFIG.finditer(text)]
    if not starts:
        return text
    out = text[:starts[0]]
    for start, end in zip(starts, starts[1:] + [len(text)]):
        entry = text[start:end]
        m = _CONFIG.match(entry)
        if m and m.group(1) in built_with:
            out += entry
    return out.rstrip('\n') + '\n'


def files_at(tests_dir: Path, commits: Sequence[TestCommit], upto: int) -> Dict[str, str]:
    """The test directory's files after commit @upto (0-based): name -> text."""
    present = [f for c in commits[:upto + 1] for f in c.files]
    files = {f: (tests_dir / f).read_text() for f in present}
    mk = makefile((tests_dir / 'Makefile').read_text(), present)
    symbols = [m.group(1) for line in mk.splitlines() if (m := _OBJ.match(line))]
    files['Makefile'] = mk
    files['Kconfig'] = kconfig((tests_dir / 'Kconfig').read_text(), symbols)
    return files


def cover_letter(tests_dir: Path) -> Path:
    return tests_dir / COMMITS_DIR / COVER_LETTER
