"""The names the prose uses, held to the code: scripts/docs --check.

README.md, docs/*.md, the markdown of kernel-patches/ (README.md,
RECIPIENTS.md, the evidence notes) and the words of the report legends
(the string constants of report.py and report_html.py) name four kinds of
things that a change of the code can leave stale:

- a file or directory of this repository (`kunit-tests/...`,
  `scripts/...`, `docs/...`, `kernel-patches/...`, `ci-templates/...`,
  `expected/...`, and a bare `*_kunit.c`/`rx_align*` file name: one of
  kunit-tests/): it must exist (a `<placeholder>`, `*` or `...` matches
  anything; a name that is the start of one, `tree-fixes/0003`, is found);
- a name of the KUnit module (`rx_...`, `RX_...`, `net_rx_align...`,
  `NET_RX_ALIGN...`, in backticks): a word of kunit-tests/ or of the
  programs the guest runs (scripts/initramfs/); `suite.case` must be a
  declared suite and case; `class=`, `verdict=` and `rule=` a value the
  C prints;
- a `--option` in backticks or a code block: an option of the command it
  follows (`scripts/run-kunit --arch`), or of one of the commands (a bare
  `--drivers`); a span that starts with another program is that program's;
- a sample console line (`# CASE: rx_align_facts: ...`, `rx_align_frame:`):
  a case the C declares, and the keys that line's format string prints, in
  its order (scripts/tests/test_doccheck.py also gives each to the real
  parsers).
"""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from .declared import declared_cases, expected_suites
from .results import DriverClass, FrameVerdict

# Top-level entries of the repository a path in prose may start with.
OURS = ('kunit-tests', 'scripts', 'docs', 'kernel-patches', 'ci-templates', 'expected')
# Paths under those names that are the kernel's, not ours (a prepared tree's).
KERNELS = ('scripts/get_maintainer.pl', 'scripts/coccinelle/')
# Fields of kernel drivers the prose quotes, named like ours.
KERNEL_NAMES = frozenset({'rx_shift', 'rx_skbuff', 'rx_bufs', 'rx_buf_sz'})
# Options of programs that are not ours, named alone in backticks.
OTHERS_OPTIONS = frozenset({
    '--kconfig_add', '--cross_compile',                     # kunit.py
    '--force-shell-executor', '--shell-isolation',          # gitlab-ci-local
    '--screenshot', '--keyring', '--rm', '--no-git'})       # chromium, gpgv, podman, ...

PATH = re.compile(r'(?<![\w./~-])((?:' + '|'.join(OURS) + r')/[\w.*<>@+-]*(?:/[\w.*<>@+-]*)*)')
BARE_C = re.compile(r'`((?:rx_align\w*|\w+_kunit)\.[ch])`')
SPAN = re.compile(r'`([^`\n]+)`|<code>(.*?)</code>')
NAME = re.compile(r'(?<![\w.])((?:rx|RX|net_rx_align|NET_RX_ALIGN|CONFIG_NET_RX_ALIGN)_\w*)'
                  r'((?:\.\w+)*)')
VALUE = re.compile(r'\b(class|verdict|rule)=([\w-]+)')
OPTION = re.compile(r'(?<![\w-])(--[a-z][\w-]*)')
SAMPLE = re.compile(r'^\s*# (\w+): (rx_align_\w+): (.*)$')
FENCE = re.compile(r'^```.*?^```', re.M | re.S)


@dataclasses.dataclass(frozen=True)
class Stale:
    where: str      # file:line
    name: str
    why: str

    def __str__(self) -> str:
        return f'{self.where}: {self.name}: {self.why}'


@dataclasses.dataclass(frozen=True)
class Code:
    """What the prose may name, read from the repository."""
    repo: Path
    words: FrozenSet[str]                   # every word of kunit-tests/ and the guest's programs
    suites: Dict[str, FrozenSet[str]]       # suite -> its cases
    cases: FrozenSet[str]
    values: Dict[str, FrozenSet[str]]       # class/verdict/rule -> what the C prints
    formats: Dict[str, Tuple[str, ...]]     # rx_align_X -> the keys its line prints, in order
    extra_keys: FrozenSet[str]              # keys a line may add (the drivers suite's)
    options: Dict[str, FrozenSet[str]]      # command -> its options

    @property
    def every_option(self) -> FrozenSet[str]:
        return frozenset().union(*self.options.values())


def _c_texts(tests: Path) -> List[str]:
    return [f.read_text(errors='replace') for f in sorted(tests.iterdir())
            if f.is_file() and f.suffix in ('.c', '.h', '') and f.name != '.kunitconfig']


def _names_array(c: str, array: str) -> FrozenSet[str]:
    m = re.search(re.escape(array) + r'\[\]\s*=\s*\{(.*?)\};', c, re.S)
    return frozenset(re.findall(r'"(\w+)"', m.group(1))) if m else frozenset()


def formats(texts: Iterable[str]) -> Tuple[Dict[str, Tuple[str, ...]], FrozenSet[str]]:
    """rx_align_X -> the keys of its line's format, and the key=% pairs of the
    other string literals (what a line's %s of extras adds)."""
    found: Dict[str, Tuple[str, ...]] = {}
    extra: Set[str] = set()
    for text in texts:
        for literal in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text):
            m = re.match(r'(rx_align_\w+): (.*)', literal)
            keys = tuple(re.findall(r'(\w+)=%', m.group(2) if m else literal))
            if m:
                found[m.group(1)] = found.get(m.group(1), ()) + keys
            else:
                extra.update(keys)
    return found, frozenset(extra)


def read_code(repo: Path, options: Dict[str, FrozenSet[str]]) -> Code:
    tests = repo / 'kunit-tests'
    texts = _c_texts(tests)
    guest = [f.read_text(errors='replace') for f in sorted((repo / 'scripts/initramfs').rglob('*'))
             if f.is_file()]
    words = frozenset(w for t in texts + guest for w in re.findall(r'\w+', t))
    all_c = '\n'.join(texts)
    fmts, extra = formats(texts)
    return Code(repo=repo, words=words,
                suites={s: frozenset(c) for s, c in expected_suites(tests).items()},
                cases=declared_cases(tests),
                values={'class': frozenset(k.value for k in DriverClass),
                        'verdict': frozenset(k.value for k in FrameVerdict),
                        'rule': _names_array(all_c, 'rx_rule_names')},
                formats=fmts, extra_keys=extra, options=options)


# --- the checks, each over one text --------------------------------------------------

def _exists(repo: Path, path: str) -> bool:
    path = path.rstrip('.').rstrip('/') or path
    if path.startswith(KERNELS) or (path + '/').startswith(KERNELS):
        return True
    pattern = re.sub(r'<[^>]*>?', '*', path.replace('...', '*'))
    if not any(ch in pattern for ch in '*?['):
        if (repo / pattern).exists():
            return True
        pattern += '*'      # a name that starts one: tree-fixes/0003
    return any(True for _ in repo.glob(pattern))


def stale_paths(text: str, code: Code) -> Iterator[Tuple[int, str, str]]:
    for m in PATH.finditer(text):
        if not _exists(code.repo, m.group(1)):
            yield m.start(), m.group(1), 'no such file or directory in the repository'
    for m in BARE_C.finditer(text):
        if not (code.repo / 'kunit-tests' / m.group(1)).is_file():
            yield m.start(), m.group(1), 'no such file in kunit-tests/'


def _spans(text: str) -> Iterator[Tuple[int, str]]:
    """Backticked or <code> spans, and each line of a fenced block."""
    for m in SPAN.finditer(text):
        yield m.start(), m.group(1) if m.group(1) is not None else m.group(2)
    for block in FENCE.finditer(text):
        at = block.start()
        for line in re.sub(r'\\\n', '  ', block.group(0)).split('\n'):
            yield at, line      # a line continued with \ is one command line
            at += len(line) + 1


def stale_names(text: str, code: Code) -> Iterator[Tuple[int, str, str]]:
    for at, span in _spans(text):
        if SAMPLE.match(span):
            continue                # a console line: stale_samples()
        for m in NAME.finditer(span):
            name, dotted = m.group(1), m.group(2)
            if dotted in ('.c', '.h') or name in KERNEL_NAMES:
                continue            # a file: stale_paths()
            if dotted and name in code.suites:
                case = dotted.split('.')[1]
                if case not in code.cases:
                    yield at, name + dotted, f'{name} declares no case {case}'
            elif name.rstrip('_') not in code.words and \
                    not any(w.startswith(name) for w in code.words if name.endswith('_')):
                yield at, name, 'not a name of kunit-tests/ or scripts/initramfs/'
        for m in VALUE.finditer(span):
            if m.group(2) not in code.values[m.group(1)]:
                yield at, m.group(0), (f'the C prints {m.group(1)}= as one of '
                                       + ', '.join(sorted(code.values[m.group(1)])))


SEPARATORS = ('|', '||', '&&', ';', '(', '$(')


def _owned(words: Sequence[str], code: Code) -> Iterator[Tuple[Optional[str], str]]:
    """Each --option of a command line with whose it is: a command of ours,
    '' (any of ours: a bare option), None (another program's)."""
    owner: Optional[str] = ''
    for i, w in enumerate(words):
        first = i == 0 or words[i - 1] in SEPARATORS
        name = w.removeprefix('scripts/')
        if name in code.options and (first or w.startswith('scripts/')):
            owner = name
        elif first and not w.startswith('-'):
            owner = None        # another program, or words that are no command line
        for m in OPTION.finditer(w):
            if w.startswith('--') or '=' in w:
                yield owner, m.group(1)


def stale_options(text: str, code: Code) -> Iterator[Tuple[int, str, str]]:
    for at, span in _spans(text):
        for owner, option in _owned(span.strip().lstrip('$ ').split(), code):
            if owner is None:
                continue
            known = code.options[owner] if owner else code.every_option | OTHERS_OPTIONS
            if option not in known:
                yield at, option, (f'scripts/{owner} has no such option' if owner
                                   else 'no command of scripts/ has this option')


def stale_samples(text: str, code: Code) -> Iterator[Tuple[int, str, str]]:
    for block in FENCE.finditer(text):
        at = block.start()
        for line in block.group(0).split('\n'):
            m = SAMPLE.match(line)
            if m:
                yield from ((at, line.strip()[:60] + '...', why)
                            for why in sample_faults(m.group(1), m.group(2), m.group(3), code))
            at += len(line) + 1


def sample_faults(case: str, prefix: str, rest: str, code: Code) -> List[str]:
    """Why the C cannot print `# CASE: PREFIX: REST` (none: it can)."""
    faults = []
    if case not in code.cases:
        faults.append(f'the C declares no case {case}')
    if prefix not in code.formats:
        return faults + [f'the C prints no {prefix}: line']
    keys = [t.split('=', 1)[0] for t in rest.split()]
    wanted = code.formats[prefix]
    if [k for k in keys if k in wanted] != list(wanted):
        faults.append(f'{prefix}: prints {" ".join(wanted)} in this order')
    unknown = [k for k in keys if k not in wanted and k not in code.extra_keys]
    if unknown:
        faults.append(f'the C prints no {", ".join(unknown)}')
    return faults


CHECKS = (stale_paths, stale_names, stale_options, stale_samples)


def check_text(text: str, where: str, code: Code, first_line: int = 1) -> List[Stale]:
    found = []
    for check in CHECKS:
        for at, name, why in check(text, code):
            found.append(Stale(f'{where}:{text.count(chr(10), 0, at) + first_line}', name, why))
    return list(dict.fromkeys(found))


def legend_texts(module: Path) -> List[Tuple[int, str]]:
    """The string constants of a report writer (an f-string's literal parts
    too), each with its line: what its legends say."""
    tree = ast.parse(module.read_text())
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)]


LEGENDS = ('scripts/rxalign/report.py', 'scripts/rxalign/report_html.py')


def prose(repo: Path) -> List[Path]:
    """The files whose names are checked."""
    return [f for f in (repo / 'README.md', *sorted((repo / 'docs').glob('*.md')),
                        *sorted((repo / 'kernel-patches').rglob('*.md')))
            if f.is_file()]


def check(repo: Path, code: Code) -> List[Stale]:
    found: List[Stale] = []
    for f in prose(repo):
        found += check_text(f.read_text(), str(f.relative_to(repo)), code)
    for legend in LEGENDS:
        for line, text in legend_texts(repo / legend):
            found += check_text(text, legend, code, line)
    return found
