"""What --patches names, read into the patches the test tree takes: before any work.

--patches takes, in any mix and in the order given:
- a mail of `git format-patch` (one patch);
- an mbox of several: `git format-patch --stdout`, what `b4 am` writes, a
  series downloaded from patchwork;
- a directory of `git format-patch -o DIR` output (its files, by name);
- a plain `git diff` or `diff -u`, which has no author or subject.
A mail is applied with git am (its author, date and message kept); a plain
diff with git apply, then committed with a subject naming its file
(tree.py). A mail is read as git am reads it: its body decoded (base64,
quoted-printable, the text parts of a multipart mail). A mail without a
diff is no patch: a cover letter names the series, and a reply (`Re:`, as
`b4 mbox` and lore's thread mbox hold the reviewers' mails) is left out
and named in the title every report shows, even when it proposes a diff;
a `[PATCH n/m]` without a diff is exit 2 (a patch of the series would be
dropped). Every file is read here, before any package is checked or the
tree is touched: one that holds no patch is exit 2, and so is a file of a
directory that would not be read (another suffix).
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
# A patch's subject tag: [PATCH], [PATCH net-next v2 3/7], [RFC PATCH 1/2]
PATCH_TAG = re.compile(r'^\[[^]]*\bPATCH\b[^]]*\]', re.I)
# A reply or a forward, as mailers prefix the subject (git's own "Re:", and
# the German, Nordic and Dutch ones lore holds)
REPLY = re.compile(r'^\s*(?:re|aw|sv|antw|fwd?)\s*(?:\[\d+\])?\s*:', re.I)
GIVE = ('give git format-patch output (a file, an mbox of several, or a directory of '
        'them) or a plain git diff')


@dataclasses.dataclass(frozen=True)
class Patch:
    """One patch, as the tree takes it."""
    source: Path            # the file it came from
    number: int             # its place among that file's patches, from 1
    of: int                 # how many patches that file holds
    text: bytes             # what git am (or git apply) is given: the mail as sent
    subject: str            # a mail's Subject:, or the one made for a plain diff
    plain: bool             # no mail headers: git apply, and a commit with `subject`
    body: bytes = b''       # a mail's body decoded as git am decodes it (b'': as `text`)

    @property
    def name(self) -> str:
        return self.source.name + (f' [{self.number}/{self.of}]' if self.of > 1 else '')

    @property
    def files(self) -> List[str]:
        return changed_files(self.body or self.text)

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
    # mails that are no patch of the series: replies (a diff a reviewer
    # proposed too), and other mails without a diff that are no cover letter
    left_out: Tuple[str, ...] = ()

    def title(self) -> str:
        """How the reports name it: the file, the series' subject, the count,
        and the mails left out."""
        n = len(self.patches)
        subject = self.cover or self.patches[0].subject
        count = f'{n} patches' if n > 1 else '1 patch'
        if self.left_out:
            shown = '; '.join(f'"{s}"' for s in self.left_out[:2])
            more = f' and {len(self.left_out) - 2} more' if len(self.left_out) > 2 else ''
            count += f'; left out, no patch of the series: {shown}{more}'
        return f'{self.path.name}: "{subject}" ({count})'


def read(paths: Sequence[Path]) -> List[Given]:
    """Every --patches argument, read and checked (exit 2 naming the file and the fix)."""
    return [_given(p) for p in paths]


def title(given: Sequence[Given]) -> str:
    """The --patches of a run in one line, for the tree's label and the reports."""
    return '; '.join(g.title() for g in given)


def _given(path: Path) -> Given:
    if path.is_dir():
        entries = sorted(path.iterdir())
        files = [f for f in entries if f.is_file() and f.suffix in SUFFIXES]
        unread = [f.name + ('/' if f.is_dir() else '') for f in entries if f not in files]
        if files and unread:
            raise HarnessError(Exit.USAGE, (
                f'--patches {path}: {", ".join(unread)} would not be read (a directory\'s '
                f'{", ".join(SUFFIXES)} files are): move it out of the directory, or name '
                'the patches one by one'))
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
    patches: List[Tuple[bytes, str, bool, bytes]] = []
    covers: List[str] = []
    others: List[str] = []
    for n, chunk in enumerate(chunks, 1):
        subject = _subject(chunk)
        body = chunk if subject is None else _body(chunk)
        if subject is not None and REPLY.match(subject):
            others.append(subject)      # a reviewer's mail, a diff it proposes too
            continue
        if not DIFF.search(body):
            if subject is None:
                continue
            if COVER.search(subject):
                covers.append(subject)
            elif PATCH_TAG.match(subject):
                where = f' (mail {n} of {len(chunks)})' if len(chunks) > 1 else ''
                raise HarnessError(Exit.USAGE, (
                    f'--patches {path}{where}: "{subject}" has no diff that git am would '
                    'apply: the series would be tested without it; give the whole patch '
                    '(git format-patch, b4 am)'))
            else:
                others.append(subject)
            continue
        plain = subject is None
        patches.append((chunk, _plain_subject(path, chunk) if plain else subject or path.name,
                        plain, b'' if plain or body == chunk else body))
    return ([Patch(path, i, len(patches), text, subject, plain, body)
             for i, (text, subject, plain, body) in enumerate(patches, 1)], covers, others)


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


def _body(chunk: bytes) -> bytes:
    """A mail's body as git am (git mailinfo) reads it: each text part (a
    patch attached as text/x-patch or text/x-diff too) with its
    Content-Transfer-Encoding (base64, quoted-printable) undone."""
    mail = FROM_LINE.sub(b'', chunk, count=1).lstrip(b'\n') if FROM_LINE.match(chunk) else chunk
    msg = email.message_from_bytes(mail, policy=email.policy.compat32)
    parts = []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != 'text':
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            parts.append(payload)
    return b'\n'.join(parts)


def changed_files(text: bytes) -> List[str]:
    """The files a diff changes (a new file's too), in order."""
    return list(dict.fromkeys(m.decode(errors='replace') for m in TARGET.findall(text)
                              if m != b'/dev/null'))


def _plain_subject(path: Path, chunk: bytes) -> str:
    files = changed_files(chunk)
    shown = ', '.join(files[:3]) + (f' and {len(files) - 3} more' if len(files) > 3 else '')
    return f'--patches {path.name}: {shown or "a plain diff"}'
