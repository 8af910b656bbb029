"""scripts/export-series: a series of kernel-patches/, ready for git send-email.

The files in kernel-patches/ carry the project's placeholder identity; the
Developer's Certificate of Origin needs the person who sends them.  This
writes a copy signed off by the user's own git identity (refused when there
is none, or when it is a placeholder), with To:/Cc: from get_maintainer.pl
of the tree the series is based on.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import debian_archive, kernels, outdir, series
from .cache import Cache, default_root
from .cli import run_main
from .exitcodes import Exit, HarnessError
from .paths import SERIES_DIR

PROG = 'export-series'
# Addresses that reach no one: RFC 2606 names, no-reply and local ones.
UNREACHABLE = re.compile(r'(\.example|\.invalid|\.test|\.localhost|@localhost|noreply|'
                         r'no-reply|@example\.(com|org|net))$|^[^@]*$', re.I)


@dataclasses.dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f'{self.name} <{self.email}>'


def git_identity(cwd: Path) -> Identity:
    """The user's git identity; refused when missing or unreachable."""
    def get(key: str) -> str:
        return subprocess.run(['git', 'config', key], capture_output=True, text=True,
                              cwd=cwd, check=False).stdout.strip()
    name, email = get('user.name'), get('user.email')
    fix = ('set your own: git config --global user.name "Your Name"; '
           'git config --global user.email you@your.domain')
    if not name or not email:
        raise HarnessError(Exit.USAGE, f'no git identity (user.name {name!r}, user.email '
                           f'{email!r}); a Signed-off-by must name the person who sends '
                           f'the patches: {fix}')
    if UNREACHABLE.search(email):
        raise HarnessError(Exit.USAGE, f'git identity {name} <{email}> is a placeholder no '
                           f'mail reaches; the DCO needs a real person: {fix}')
    return Identity(name, email)


def resign(text: str, who: Identity) -> str:
    """The patch as @who sends it: a placeholder author becomes @who (in From:,
    the trailers and the cover letter's shortlog), and @who signs it off."""
    m = re.search(r'^From: ([^\n<]*?)\s*\n?\s*<([^>\n]+)>[ \t]*$', text, re.M)
    if not m:
        raise HarnessError(Exit.USAGE, 'not a git format-patch mail: no From: header')
    name, email = m.group(1).strip(), m.group(2)
    if UNREACHABLE.search(email):
        text = text[:m.start()] + f'From: {who}' + text[m.end():]
        text = text.replace(f'{name} <{email}>', str(who))
        text = re.sub(rf'^{re.escape(name)} (\(\d+\):)$', rf'{who.name} \1', text,
                      flags=re.M)
    sob = f'Signed-off-by: {who}'
    if sob not in text and '\n---\n' in text:
        # after the last trailer, before the --- that ends the message
        head, sep, rest = text.partition('\n---\n')
        text = head.rstrip('\n') + '\n' + sob + sep + rest
    return text


def maintainers(patches: Sequence[Path], tarball: Path) -> Tuple[List[str], List[str]]:
    """(lists, people) get_maintainer.pl names for @patches, from @tarball's MAINTAINERS."""
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(['tar', '-xJf', str(tarball), '-C', tmp, '--strip-components=1',
                               '--wildcards', '*/MAINTAINERS', '*/scripts/get_maintainer.pl'],
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise HarnessError(Exit.ENVIRONMENT, f'cannot read MAINTAINERS from {tarball}: '
                               f'{proc.stderr.strip()}')
        proc = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--no-tree', '--no-git',
                               '--no-git-fallback', '--no-fixes', '--no-rolestats', '--no-roles',
                               *[str(p.resolve()) for p in patches]],
                              capture_output=True, text=True, cwd=tmp, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.ENVIRONMENT, f'get_maintainer.pl failed: {proc.stderr.strip()}')
    names = [ln.strip() for ln in proc.stdout.splitlines() if '@' in ln]
    lists = [n for n in names if '<' not in n]
    return lists, [n for n in names if '<' in n]


def add_recipients(text: str, to: Sequence[str], cc: Sequence[str]) -> str:
    """To:/Cc: headers after Subject:'s (possibly folded) header."""
    m = re.search(r'^Subject: .*\n(?:[ \t].*\n)*', text, re.M)
    if not m:
        raise HarnessError(Exit.USAGE, 'not a git format-patch mail: no Subject: header')
    lines = ''.join(f'{h}: {a}\n' for h, addrs in (('To', to), ('Cc', cc)) for a in addrs)
    return text[:m.end()] + lines + text[m.end():]


def export(name: str, kernel: kernels.Kernel, out: Path, who: Identity, cache: Cache) -> Path:
    if name not in series.BY_NAME:
        raise HarnessError(Exit.USAGE, f'unknown series {name!r}; known: '
                           f'{", ".join(s.name for s in series.SERIES)}')
    chosen = series.BY_NAME[name]
    directory = chosen.directory(kernel, SERIES_DIR)
    files = sorted(directory.glob('*.patch'))
    patches = [p for p in files if p.name != series.COVER_LETTER]
    if not patches:
        raise HarnessError(Exit.USAGE, f'{directory} has no patch to send for {kernel.name}')
    tarball = debian_archive.tarball(kernel, cache, print).path
    # maintainers and reviewers in To:, lists in Cc: (kernel-patches/RECIPIENTS.md)
    lists, people = maintainers(patches, tarball)
    with outdir.Staging(outdir.check(out)) as staging:
        for f in files:
            text = add_recipients(resign(f.read_text(), who), people, lists)
            (staging.path / f.name).write_text(text)
        staging.commit()
    return out


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument('series', nargs='?', default='net', help='which series (default: net)')
    p.add_argument('--kernel', default=kernels.NEWEST.name,
                   help=f'the tree it is for (default: {kernels.NEWEST.name}, the base of '
                        'kernel-patches/<series>/)')
    p.add_argument('--out', type=Path, required=True,
                   help='a new (or empty) directory for the mails')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)

    def run() -> int:
        if args.kernel not in kernels.BY_NAME:
            raise HarnessError(Exit.USAGE, f'--kernel {args.kernel!r}: known: '
                               f'{", ".join(kernels.BY_NAME)}')
        who = git_identity(Path.cwd())
        out = export(args.series, kernels.BY_NAME[args.kernel], args.out, who,
                     Cache(default_root()))
        print(f'{PROG}: {out}: signed off by {who}; send with: git send-email {out}/*.patch')
        return 0
    return run_main(PROG, run)


if __name__ == '__main__':
    sys.exit(main())
