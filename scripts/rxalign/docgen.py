"""scripts/docs: the tables of README.md and docs/ that mirror code, made from the code.

A generated region of a markdown file is

    <!-- generated: NAME -->
    ...
    <!-- end -->

(indented as a whole inside a list item), and its lines are what
REGIONS[NAME]() returns, from the table it mirrors (exitcodes.MEANINGS,
arches.ARCHES, kernels.KERNELS, series.SERIES, the mutations of
mutation-test, the argparse parser of every entry point, rx_class_names[]
of the drivers suite, the suites and cases of kunit-tests/). `scripts/docs
--write` rewrites every region; `scripts/docs --check` (and
scripts/tests/test_docs.py) fails, naming the files and the command, when
one differs, and when the prose or a report legend names a path, a name of
the KUnit module, an option or a console line the code does not have
(doccheck.py). The entry points' parsers and mutation-test's table are
loaded by module name, not imported: no module imports an entry point
(rxalign/__init__.py).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import re
import sys
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from . import arches, doccheck, kernels, series
from .cli import run_main
from .declared import suites_by_file
from .exitcodes import MEANINGS, Exit, HarnessError
from .paths import REPO, SCRIPTS, SERIES_DIR, TESTS_DIR

PROG = 'docs'
FIX = 'scripts/docs --write'
REGION = re.compile(r'^(?P<indent>[ \t]*)<!-- generated: (?P<name>[a-z-]+) -->\n'
                    r'(?P<body>.*?)^(?P=indent)<!-- end -->$', re.M | re.S)
DRIVERS_C = TESTS_DIR / 'rx_align_drivers_kunit.c'


def documents(top: Path = REPO) -> List[Path]:
    """The markdown files that may hold generated regions."""
    return [f for f in (top / 'README.md', top / 'kernel-patches/README.md',
                        *sorted((top / 'docs').glob('*.md'))) if f.is_file()]


def _cell(text: str) -> str:
    return text.replace('|', '\\|').replace('\n', ' ')


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    lines += ['| ' + ' | '.join(_cell(c) for c in row) + ' |' for row in rows]
    return '\n'.join(lines)


def _names(items: Iterable[str]) -> str:
    return ', '.join(f'`{i}`' for i in items)


# --- exit statuses ---------------------------------------------------------

def exits() -> str:
    return table(('status', 'name', 'meaning'),
                 ((str(int(s)), s.name, MEANINGS[s].full) for s in Exit))


# --- the arch table ---------------------------------------------------------

def _selected_by(a: arches.Arch) -> str:
    if a.default:
        return 'default, `all`'
    return '`all --drivers`' if a.kernel_of else '`all`'


def _kernel(a: arches.Arch) -> str:
    own = f"`{a.kernel_of}`'s" if a.kernel_of else 'its own'
    return own + ''.join(f'; not from {k}' for k, _ in a.not_built_by)


def _qemu(a: arches.Arch) -> str:
    if not a.qemu_binary:
        return 'none (UML)'
    return f'`{a.qemu_binary}`' + (f' (`{a.qemu_config}`)' if a.qemu_config else '')


def arch_table() -> str:
    return table(('arch', 'what it is', 'run by `--arch`', 'kernel', 'toolchain on Debian 12',
                  'QEMU (our config)', 'NICs (`--drivers`)'),
                 ((f'`{a.name}`', a.policy, _selected_by(a), _kernel(a),
                   f'Debian 13 root ({a.toolchain})' if a.toolchain else "the machine's",
                   _qemu(a), ', '.join(n.qemu_device for n in a.nics) or '-')
                  for a in arches.ARCHES))


def arch_summary() -> str:
    table_ = arches.ARCHES
    every = arches.select('all')
    boards = [a for a in table_ if a.kernel_of]
    with_nics = [a for a in arches.select('all', boards=True) if a.nics]
    newer = [a for a in table_ if a.toolchain]
    return (f'The arch table (`scripts/rxalign/arches.py`, `--list-arches`) has '
            f'{len(table_)} entries. A plain `scripts/run-kunit` runs the '
            f'{len(arches.default_arches())} defaults '
            f'({_names(a.name for a in arches.default_arches())}); `--arch all` runs the '
            f'{len(every)} that build a kernel of their own; the {len(boards)} boards that '
            f'boot another entry\'s kernel ({_names(a.name for a in boards)}) join them with '
            f'`--drivers`, which runs the {len(with_nics)} entries that have NICs. On Debian '
            f'12, {len(newer)} entries are built and booted in a Debian 13 root '
            f'({_names(a.name for a in newer)}).')


# --- kernels and mutations ------------------------------------------------------

def kernel_table() -> str:
    return table(('`--kernel`', 'package', 'where Debian ships it', 'how run-kunit gets it'),
                 ((f'{k.name}' + (' (default)' if k.default else ''), f'`{k.package}`',
                   k.release,
                   f'`apt-get download` from {" + ".join(k.suites)} through an apt '
                   'configuration of its own in the cache' if k.suites
                   else '`apt-get install` from the machine\'s apt sources')
                  for k in kernels.KERNELS))


def series_table() -> str:
    def kernels_of(s: series.Series) -> str:
        """The kernels it gives a patch to, and from which directory."""
        if s.role is series.Role.TESTS:
            return 'every one: the harness commits `kunit-tests/` (the patch is for reading)'
        return ', '.join(
            k.name + ('' if s.directory(k) == SERIES_DIR / s.name else f' (`for-{k.name}/`)')
            for k in kernels.KERNELS if s.patches(k)) or 'none'
    applied_to = {
        series.Role.TREE_FIX: "Debian's trees only",
        series.Role.FIX: "Debian's trees; a `--tree` where it applies and is not in it already",
        series.Role.TESTS: 'every tree', series.Role.TESTS_COMPAT: 'every tree'}
    return table(('order', 'directory', 'for', 'kernels with a patch in it', 'applied to'),
                 ((str(i), f'`{s.name}/`', s.mailed_to, kernels_of(s), applied_to[s.role])
                  for i, s in enumerate(series.SERIES, 1)))


def mutation_table() -> str:
    chosen: Sequence[Any] = _entry('mutations').MUTATIONS
    return table(('mutation', 'arch', 'kernel', 'run-kunit', 'proves', 'in `--ci`'),
                 ((f'`{m.name}`', m.arch, m.kernel, f'--{m.profile}' if m.profile else '',
                   m.assertion, 'no: ' + m.not_in_ci if m.not_in_ci else 'yes')
                  for m in chosen))


# --- the drivers suite's classes ---------------------------------------------------

@dataclasses.dataclass(frozen=True)
class DriverClass:
    name: str                   # what the C prints as class=
    meaning: str                # the comment on its enum constant
    drivers: Tuple[str, ...]    # rx_drivers[] rows of this class
    copies: Tuple[str, ...]     # rows of another class whose copies are of this one


def _block(c: str, start: str, what: str) -> str:
    m = re.search(start + r'\s*\{(.*?)\n\};', c, re.S)
    if not m:
        raise ValueError(f'{DRIVERS_C.name}: no {what} found (/{start}/); teach '
                         f'scripts/rxalign/docgen.py its new shape')
    return m.group(1)


def _field(entry: str, name: str, position: int, pattern: str) -> Optional[str]:
    """A field of one initializer: designated (.name = x) or by position."""
    m = re.search(rf'\.{name}\s*=\s*({pattern})', entry)
    if m:
        return m.group(1)
    found = re.findall(pattern, re.sub(r'\.\w+\s*=', '', entry))
    return found[position] if len(found) > position else None


def driver_classes(c: str) -> List[DriverClass]:
    """rx_class_names[] (designated or in enum order), each constant's comment in
    enum rx_class, and which rows of rx_drivers[] use it."""
    enum_body = _block(c, r'enum rx_class', 'enum rx_class')
    constants = re.findall(r'^\s*(RX_\w+)\s*(?:=\s*\w+\s*)?,?\s*(?:/\*\s*(.*?)\s*\*/)?',
                           enum_body, re.M)
    names_body = _block(c, r'rx_class_names\[\]\s*=', 'rx_class_names[]')
    named = dict(re.findall(r'\[(RX_\w+)\]\s*=\s*"([^"]+)"', names_body))
    if not named:
        named = dict(zip((k for k, _ in constants), re.findall(r'"([^"]+)"', names_body)))
    rows = re.findall(r'\{([^{}]*)\}', _block(c, r'rx_drivers\[\]\s*=', 'rx_drivers[]'))
    klass = r'\b(?:' + '|'.join(k for k, _ in constants) + r')\b'
    found: List[Tuple[str, str, str]] = []
    for row in rows:
        driver = _field(row, 'name', 0, r'"[^"]*"')
        own = _field(row, 'class', 0, klass)
        copied = _field(row, 'copied', 1, klass) or own
        if driver and own and copied:
            found.append((driver.strip('"'), own, copied))
    if not named or not found:
        raise ValueError(f'{DRIVERS_C.name}: rx_class_names[] or rx_drivers[] unreadable; '
                         'teach scripts/rxalign/docgen.py its new shape')
    return [DriverClass(name=named[k], meaning=why,
                        drivers=tuple(dict.fromkeys(d for d, own, _ in found if own == k)),
                        copies=tuple(dict.fromkeys(d for d, own, cp in found
                                                   if cp == k and own != k)))
            for k, why in constants if k in named]


def class_table() -> str:
    return table(('class', 'what the driver does', 'drivers (`rx_drivers[]`)'),
                 ((f'`{k.name}`', k.meaning, ', '.join(k.drivers)
                   + (f'; the copies of {", ".join(k.copies)}' if k.copies else ''))
                  for k in driver_classes(DRIVERS_C.read_text())))


# --- the suites -------------------------------------------------------------------

def suite_table() -> str:
    """Each suite of kunit-tests/ with its file, config option and cases."""
    return table(('suite', 'file', 'config', 'cases'),
                 ((f'`{suite}`', f'`{name}`', f'`{option.removeprefix("CONFIG_")}`',
                   _names(cases))
                  for name, option, suites in suites_by_file(TESTS_DIR)
                  for suite, cases in suites.items()))


# --- options ----------------------------------------------------------------------

class _OneLine(argparse.HelpFormatter):
    """--help's words, a usage on one line."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=10_000)

    def invocation(self, action: argparse.Action) -> str:
        return self._format_action_invocation(action)

    def help_of(self, action: argparse.Action) -> str:
        return self._expand_help(action) if action.help else ''


def entry_points(scripts: Path = SCRIPTS) -> List[Tuple[str, Optional[str], str]]:
    """(command, module it runs or None, its text) of every script in scripts/."""
    found = []
    for script in sorted(p for p in scripts.iterdir() if p.is_file() and p.suffix != '.sh'):
        text = script.read_text(errors='replace')
        m = re.search(r'exec "\$PYTHON" -m rxalign\.(\w+) "\$@"', text)
        found.append((script.name, m.group(1) if m else None, text))
    return found


def _entry(module: str) -> Any:
    """An entry point's module, loaded by name: no module imports one."""
    return importlib.import_module(f'rxalign.{module}')


def parser_of(module: str) -> argparse.ArgumentParser:
    make: Optional[Callable[[], argparse.ArgumentParser]] = getattr(_entry(module), 'parser',
                                                                    None)
    if make is None:
        raise ValueError(f'rxalign/{module}.py has no parser(): give it one that main() uses')
    return make()


def usage(command: str, module: Optional[str], text: str) -> str:
    if module is None:
        m = re.search(r'^usage: (.*)$', text, re.M)
        return m.group(1) if m else f'scripts/{command}'
    p = parser_of(module)
    p.prog, p.formatter_class = f'scripts/{command}', _OneLine
    return p.format_usage().removeprefix('usage: ').strip()


def command_options() -> Dict[str, FrozenSet[str]]:
    """command -> the options it takes: its parser's, or its usage line's."""
    found: Dict[str, FrozenSet[str]] = {}
    for command, module, text in entry_points():
        if module:
            found[command] = frozenset(o for a in parser_of(module)._actions
                                       for o in a.option_strings)
        else:
            m = re.search(r'^usage: (.*)$', text, re.M)
            found[command] = frozenset(re.findall(r'--[\w-]+', m.group(1) if m else ''))
    return found


def option_table(module: str) -> str:
    p = parser_of(module)
    fmt = _OneLine(p.prog)
    return table(('option', 'meaning'),
                 ((f'`{fmt.invocation(a)}`', fmt.help_of(a))
                  for a in p._actions if not isinstance(a, argparse._HelpAction)))


def options() -> str:
    lines = [usage(*e) for e in entry_points()]
    return '\n'.join(['```', *lines, '```', '', '`scripts/run-kunit`:', '',
                      option_table('run_kunit')])


def doc_index() -> str:
    """Each file of docs/ and kernel-patches/README.md, by its title."""
    files = [*sorted((REPO / 'docs').glob('*.md')), REPO / 'kernel-patches/README.md']
    return '\n'.join(f'- `{f.relative_to(REPO)}`: '
                     + f.read_text().split('\n', 1)[0].removeprefix('# ') for f in files)


REGIONS: Dict[str, Callable[[], str]] = {
    'exits': exits,
    'arches': arch_table,
    'arch-summary': arch_summary,
    'kernels': kernel_table,
    'mutations': mutation_table,
    'series': series_table,
    'driver-classes': class_table,
    'suites': suite_table,
    'options': options,
    'docs': doc_index,
}


def regenerate(text: str, where: str) -> str:
    def fill(m: re.Match[str]) -> str:
        name = m.group('name')
        if name not in REGIONS:
            raise HarnessError(Exit.USAGE, f'{where}: no generated region named {name!r}; '
                               f'known: {", ".join(REGIONS)}')
        indent = m.group('indent')
        body = ''.join(f'{indent}{line}\n' if line else '\n'
                       for line in REGIONS[name]().split('\n'))
        return f'{indent}<!-- generated: {name} -->\n{body}{indent}<!-- end -->'
    return REGION.sub(fill, text)


def stale(files: Sequence[Path]) -> List[Path]:
    """The files whose generated regions differ from what the code says."""
    return [f for f in files if regenerate(f.read_text(), f.name) != f.read_text()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split('\n')[0])
    mode = p.add_mutually_exclusive_group(required=True)
    mode.add_argument('--write', action='store_true', help='rewrite every generated region')
    mode.add_argument('--check', action='store_true',
                      help=f'exit 1 if a region differs from the code (then: {FIX})')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    files = documents()
    if args.write:
        for f in files:
            text = f.read_text()
            new = regenerate(text, f.name)
            if new != text:
                f.write_text(new)
                print(f'{PROG}: rewrote {f.relative_to(REPO)}')
        return 0
    differ = stale(files)
    for f in differ:
        print(f'{PROG}: error: {f.relative_to(REPO)}: a generated region differs from the '
              f'code; run {FIX}', file=sys.stderr)
    names = stale_names()
    for n in names:
        print(f'{PROG}: error: {n}: change the text to what the code says', file=sys.stderr)
    return int(Exit.TEST_FAILED) if differ or names else 0


def stale_names(repo: Path = REPO) -> List[doccheck.Stale]:
    """The paths, names of the KUnit module, options and console lines the
    prose and the report legends name that the code does not have."""
    return doccheck.check(repo, doccheck.read_code(repo, command_options()))


if __name__ == '__main__':
    sys.exit(run_main(PROG, main))
