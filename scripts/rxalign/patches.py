"""What --patches names, read into the patches the test tree takes: before any work.

--patches takes, in any mix and in the order given:
- a mail of `git format-patch` (one patch);
- an mbox of several: `git format-patch --stdout`, what `b4 am` writes, a
  series downloaded from patchwork;
- a directory of `git format-patch -o DIR` output (its files, by name);
- a plain `git diff` or `diff -u`, which has no author or subject.
A mail is applied with git am (its author, date and message kept); a plain
diff with git apply, then committed with a subject naming its file
(tree.py). A mail without a diff is no patch: a cover letter names the
series, anything else (a reply in a downloaded thread) is left out, named.
Every file is read here, before any package is checked or the tree is
touched: one that holds no patch is exit 2.
"""

from __future__ import annotations

import dataclasses
import email
import email.policy
import re
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from .exitcodes import Exit, HarnessError

# The files of a directory that are patches or mailboxes (b4 am: .mbx, .cover).
SUFFIXES = ('.patch', '.diff', '.mbx', '.mbox', '.eml', '.cover')
# An mbox's separator line: "From <sha or address> <asctime date>", as git
# format-patch, b4 and patchwork write it (git mailsplit's is_from_line).
FROM_LINE = re.compile(rb'^From \S+ +\S.*\d\d:\d\d:\d\d.*\d{4}\s*$', re.M)
HEADER = re.compile(rb'^[A-Za-z][\w-]*:[ \t]')
# A file diff: git's header, or a unified diff's ---/+++ pair and first hunk.
DIFF = re.compile(rb'^(?:diff --git |--- \S.*\n\+\+\+ \S.*\n@@ )', re.M)
TARGET = re.compile(rb'^\+\+\+ (?:[^/\s]+/)?(\S+)', re.M)
COVER = re.compile(r'\b0+/\d+\]')
GIVE = ('give git format-patch output (a file, an mbox of several, or a directory of '
        'them) or a plain git diff')


@dataclasses.dataclass(frozen=True)
class Patch:
    """One patch, as the tree takes it."""
    source: Path            # the file it came from
    number: int             # its place among that file's patches, from 1
    of: int                 # how many patches that file holds
    text: bytes
    subject: str            # a mail's Subject:, or the one made for a plain diff
    plain: bool             # no mail headers: git apply, and a commit with `subject`

    @property
    def name(self) -> str:
        return self.source.name + (f' [{self.number}/{self.of}]' if self.of > 1 else '')

    @property
    def files(self) -> List[str]:
        return changed_files(self.text)

    @property
    def title(self) -> str:
        """Its subject without the [PATCH ...] tag."""
        return re.sub(r'^\[[^]]*\]\s*', '', self.subject)

    def message(self) -> str:
        """The commit message of a plain diff."""
        return (f'{self.subject}\n\nA plain diff given to run-kunit --patches ({self.source}): '
                'no author, date or message of its own.\n')


@dataclasses.dataclass(frozen=True)
class Given:
    """What one --patches argument holds."""
    path: Path
    patches: Tuple[Patch, ...]
    cover: str = ''                     # the cover letter's subject, if there is one
    left_out: Tuple[str, ...] = ()      # mails without a diff that are no cover letter

    def title(self) -> str:
        """How the reports name it: the file, the series' subject, the count."""
        n = len(self.patches)
        subject = self.cover or self.patches[0].subject
        count = f'{n} patches' if n > 1 else '1 patch'
        return f'{self.path.name}: "{subject}" ({count})'


def read(paths: Sequence[Path]) -> List[Given]:
    """Every --patches argument, read and checked (exit 2 naming the file and the fix)."""
    return [_given(p) for p in paths]


def title(given: Sequence[Given]) -> str:
    """The --patches of a run in one line, for the tree's label and the reports."""
    return '; '.join(g.title() for g in given)


def _given(path: Path) -> Given:
    if path.is_dir():
        files = sorted(f for f in path.iterdir() if f.is_file() and f.suffix in SUFFIXES)
        if not files:
            raise HarnessError(Exit.USAGE, f'--patches {path}: a directory without patches '
                               f'(no {", ".join(SUFFIXES)} files); {GIVE}')
    elif path.is_file():
        files = [path]
    else:
        raise HarnessError(Exit.USAGE, f'--patches {path}: no such file or directory')
    patches: List[Patch] = []
    covers: List[str] = []
    left_out: List[str] = []
    for f in files:
        found, cover, other = _read_file(f)
        patches += found
        covers += cover
        left_out += other
    if not patches:
        raise HarnessError(Exit.USAGE, f'--patches {path}: not a patch (no "diff --git", or '
                           f'"---", "+++" and "@@" lines, in it); {GIVE}')
    return Given(path, tuple(patches), covers[0] if covers else '', tuple(left_out))


def _read_file(path: Path) -> Tuple[List[Patch], List[str], List[str]]:
    """The patches of one file; the subjects of its cover letters and other mails."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise HarnessError(Exit.USAGE, f'--patches {path}: {e.strerror or e}') from None
    if not data.strip():
        raise HarnessError(Exit.USAGE, f'--patches {path}: the file is empty; {GIVE}')
    if b'\0' in data:
        raise HarnessError(Exit.USAGE, f'--patches {path}: a binary file, not a patch; {GIVE}')
    chunks = _split(data)
    patches: List[Tuple[bytes, str, bool]] = []
    covers: List[str] = []
    others: List[str] = []
    for chunk in chunks:
        subject = _subject(chunk)
        if not DIFF.search(chunk):
            if subject is not None:
                (covers if COVER.search(subject) else others).append(subject)
            continue
        plain = subject is None
        patches.append((chunk, _plain_subject(path, chunk) if plain else subject or path.name,
                        plain))
    return ([Patch(path, i, len(patches), text, subject, plain)
             for i, (text, subject, plain) in enumerate(patches, 1)], covers, others)


def _split(data: bytes) -> List[bytes]:
    """An mbox into its mails; any other file is one piece."""
    starts = [m.start() for m in FROM_LINE.finditer(data)]
    if not starts or data[:starts[0]].strip():
        return [data]
    return [data[a:b] for a, b in zip(starts, starts[1:] + [len(data)])]


def _subject(chunk: bytes) -> Optional[str]:
    """A mail's Subject: (unfolded, decoded); None for a chunk that is no mail."""
    body = FROM_LINE.sub(b'', chunk, count=1).lstrip(b'\n') if FROM_LINE.match(chunk) else chunk
    if not HEADER.match(body):
        return None
    msg = email.message_from_bytes(body.split(b'\n\n', 1)[0] + b'\n\n',
                                   policy=email.policy.default)
    subject = msg.get('Subject')
    return ' '.join(str(subject).split()) if subject is not None else None


def changed_files(text: bytes) -> List[str]:
    """The files a diff changes (a new file's too), in order."""
    return list(dict.fromkeys(m.decode(errors='replace') for m in TARGET.findall(text)
                              if m != b'/dev/null'))


def _plain_subject(path: Path, chunk: bytes) -> str:
    files = changed_files(chunk)
    shown = ', '.join(files[:3]) + (f' and {len(files) - 3} more' if len(files) > 3 else '')
    return f'--patches {path.name}: {shown or "a plain diff"}'
