"""scripts/export-series: a series of kernel-patches/, ready for git send-email.

The files in kernel-patches/ carry the project's placeholder identity; the
Developer's Certificate of Origin needs the person who sends them.  This
writes a copy signed off by the user's own git identity (refused when there
is none, or when it is a placeholder), with To:/Cc: from get_maintainer.pl
of the tree the series is based on.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence

from . import debian_archive, kernels, kunit_patches, mail, outdir, series, tree
from .cache import Cache, Lock, default_root
from .cli import run_main
from .exitcodes import Exit, HarnessError
from .paths import SERIES_DIR

PROG = 'export-series'


def _maintainers_tree(tarball: Path, into: Path) -> Path:
    proc = subprocess.run(['tar', '-xJf', str(tarball), '-C', str(into), '--strip-components=1',
                           '--wildcards', '*/MAINTAINERS', '*/scripts/get_maintainer.pl'],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.ENVIRONMENT, f'cannot read MAINTAINERS from {tarball}: '
                           f'{proc.stderr.strip()}')
    return into


def send_commands(plan: mail.MailPlan, out: Path, names: Sequence[str]) -> List[str]:
    """How to send the mails written to @out: a series as one thread, or, where
    @plan says its patches go separately, each alone and a reply to none
    (git send-email threads what one command sends unless told not to)."""
    if plan.separate:
        return [f'git send-email --no-thread {out / n}' for n in sorted(names)]
    return [f'git send-email {out}/*.patch']


def export(name: str, kernel: kernels.Kernel, out: Path, who: mail.Identity,
           cache: Cache) -> List[str]:
    if name not in series.BY_NAME:
        raise HarnessError(Exit.USAGE, f'unknown series {name!r}; known: '
                           f'{", ".join(s.name for s in series.SERIES)}')
    chosen = series.BY_NAME[name]
    directory = chosen.directory(kernel, SERIES_DIR)
    files = sorted(directory.glob('*.patch'))
    if not [p for p in files if p.name != mail.COVER_LETTER]:
        raise HarnessError(Exit.USAGE, f'{directory} has no patch to send for {kernel.name}')
    tarball = debian_archive.tarball(kernel, cache, print).path
    target = outdir.check(out)
    with tempfile.TemporaryDirectory() as tmp:
        tree = _maintainers_tree(tarball, Path(tmp))
        plan = mail.read(directory)
        mails = mail.mails_for(plan, files, tree, who.name, who.email)
    with outdir.Staging(target) as staging:
        for fname, text in mails.items():
            (staging.path / fname).write_text(text)
        staging.commit()
    return send_commands(plan, out, list(mails))


def refresh(name: str, cache: Cache) -> int:
    """kernel-patches/<name>/ anew from kunit-tests/: the stored copy a reader sees."""
    chosen = series.BY_NAME.get(name)
    if not chosen or not chosen.tests_dir:
        raise HarnessError(Exit.USAGE, f'--refresh makes the series of kunit-tests/ '
                           f'({", ".join(s.name for s in series.SERIES if s.tests_dir)}), '
                           f'not {name!r}')
    directory = SERIES_DIR / name
    with Lock(cache), tempfile.TemporaryDirectory() as tmp:
        base = tree.debian_base(kernels.NEWEST, cache, print)
        made = kunit_patches.make(tree.pristine_worktree(cache, base, print),
                                  chosen.tests_dir, Path(tmp))
        for old in directory.glob('*.patch'):
            old.unlink()
        for p in made:
            shutil.copyfile(p, directory / p.name)
    print(f'{PROG}: {directory}: {len(made)} mail(s) from kunit-tests/')
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument('series', nargs='?', default='net', help='which series (default: net)')
    p.add_argument('--kernel', default=kernels.NEWEST.name,
                   help=f'the tree it is for (default: {kernels.NEWEST.name}, the base of '
                        'kernel-patches/<series>/)')
    p.add_argument('--out', type=Path,
                   help='a new (or empty) directory for the mails')
    p.add_argument('--refresh', action='store_true',
                   help='write kernel-patches/<series>/ anew from kunit-tests/ (the KUnit '
                        'series only), in the project\'s identity, instead of exporting')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)

    def run() -> int:
        if args.kernel not in kernels.BY_NAME:
            raise HarnessError(Exit.USAGE, f'--kernel {args.kernel!r}: known: '
                               f'{", ".join(kernels.BY_NAME)}')
        if args.refresh:
            return refresh(args.series, Cache(default_root()))
        if not args.out:
            raise HarnessError(Exit.USAGE, '--out DIR: where the mails go (a new or empty '
                               'directory)')
        who = mail.git_identity(Path.cwd())
        send = export(args.series, kernels.BY_NAME[args.kernel], args.out, who,
                      Cache(default_root()))
        if len(send) == 1:
            print(f'{PROG}: {args.out}: signed off by {who}; send with: {send[0]}')
        else:
            print(f'{PROG}: {args.out}: signed off by {who}; each patch goes alone, to its '
                  'own people, a reply to none: send with')
            for cmd in send:
                print(f'  {cmd}')
        return 0
    return run_main(PROG, run)


if __name__ == '__main__':
    sys.exit(main())
