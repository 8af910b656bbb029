"""checkpatch.pl as netdev's patchwork runs it, and what each series keeps.

scripts/checkpatch and scripts/upstream-check both run checkpatch; the
flags, the codespell dictionary and the reports a series is allowed to keep
are decided here (checkpatch_policy_main prints them for the shell script).
"""

from __future__ import annotations

import subprocess
from typing import Dict, Tuple

from .exitcodes import Exit, HarnessError

# --max-line-length=80: netdev's patchwork checks 80 columns, not
# checkpatch's default 100.  UNKNOWN_COMMIT_ID: checkpatch looks the ids of
# Fixes: tags up with git, and the trees here are Debian tarballs without
# history; upstream-check compares each id with kernel-patches/*/mail.toml.
ARGS = ('--strict', '--max-line-length=80', '--codespell', '--show-types', '--terse',
        '--ignore', 'UNKNOWN_COMMIT_ID')

# Per series directory (kernel-patches/<name>/ or for-*/<name>/), the
# checkpatch types it keeps, each with its reason.
KEEP: Dict[str, Tuple[Tuple[str, str], ...]] = {
    'net-next': (('FILE_PATH_CHANGES',
                  'net/core/tests/ falls under NETWORKING [GENERAL]\'s "F: net/": '
                  'MAINTAINERS needs no change, get_maintainer.pl names the section'),),
    'drivers-rfc': (('CAMELCASE',
                     'the drivers\' own register bits (hamachi\'s DescEndPacket), which '
                     'checkpatch cannot seed from any tree; renaming them is no part of '
                     'these patches'),),
    'tests-compat': (('MACRO_ARG_PRECEDENCE',
                      '6.1\'s stand-in for KUNIT_ARRAY_PARAM_DESC() takes a member name, '
                      'which no parentheses can go around (never posted)'),),
}


def kept(series: str) -> Tuple[str, ...]:
    return tuple(t for t, _ in KEEP.get(series, ()))


def codespell_dictionary() -> str:
    """Debian's codespell dictionary.  checkpatch finds it through whatever
    "python3" is first on PATH, which may not be Debian's (pyenv, a venv)."""
    proc = subprocess.run(['dpkg', '-L', 'codespell'], capture_output=True, text=True,
                          check=False)
    found = [ln for ln in proc.stdout.splitlines() if ln.endswith('/data/dictionary.txt')]
    if proc.returncode != 0 or not found:
        raise HarnessError(Exit.ENVIRONMENT, 'codespell\'s dictionary.txt is not where Debian\'s '
                           'codespell package puts it: apt-get install --reinstall codespell')
    return found[0]


def arguments(series: str = '') -> Tuple[str, ...]:
    """checkpatch.pl's arguments for a patch of SERIES ('' for a source file)."""
    return (*ARGS, f'--codespellfile={codespell_dictionary()}',
            *(a for t in kept(series) for a in ('--ignore', t)))

