"""Every helper a KUnit suite exports has a kernel-doc comment that names it.

Documentation/doc-guide/kernel-doc.rst: a `/**` block right above the
definition, opening with `name() - summary` for a function and
`var name - summary` for data.  kernel-doc -Wall checks the blocks there
are (their @args, Return:); this checks that there is one for each export.
"""

from __future__ import annotations

import re
import textwrap
from typing import List

import pytest

from rxalign.paths import TESTS_DIR

EXPORT = re.compile(r'^EXPORT_SYMBOL_IF_KUNIT\((\w+)\);$', re.M)


def _definition(lines: List[str], end: int, name: str) -> int:
    """Index of the first line of @name's definition above line @end:
    the line at column 0 that names it, and the type lines above that."""
    named = re.compile(rf'^(?=[A-Za-z_]).*\b{name}\b\s*[(\[=]')
    at = next((i for i in range(end - 1, -1, -1) if named.match(lines[i])), -1)
    while at > 0 and re.match(r'^[A-Za-z_]', lines[at - 1]) \
            and not lines[at - 1].rstrip().endswith((';', '}', '*/')):
        at -= 1
    return at


def undocumented(source: str) -> List[str]:
    """The symbols @source exports with EXPORT_SYMBOL_IF_KUNIT() whose
    definition has no kernel-doc comment naming it right above, each with
    what is there instead."""
    lines = source.splitlines()
    found: List[str] = []
    for match in EXPORT.finditer(source):
        name = match.group(1)
        at = _definition(lines, source.count('\n', 0, match.start()), name)
        if at < 0:
            found.append(f'{name}: no definition above its export')
            continue
        is_data = not re.search(rf'\b{name}\s*\(', lines[at] + ''.join(lines[at + 1:at + 3]))
        title = rf'^ \* var {name} - \S' if is_data else rf'^ \* {name}\(\) - \S'
        if at < 1 or not lines[at - 1].endswith('*/'):
            found.append(f'{name}: no comment right above its definition')
            continue
        start = max((i for i in range(at) if lines[i].startswith('/*')), default=0)
        if lines[start] != '/**':
            found.append(f'{name}: a plain /* comment, not /** kernel-doc')
        elif not re.match(title, lines[start + 1]):
            want = f'var {name} - ...' if is_data else f'{name}() - ...'
            found.append(f'{name}: the comment opens with {lines[start + 1]!r}, '
                         f'not {want!r}')
    return found


GOOD = textwrap.dedent('''\
    /**
     * var rx_names - The names
     *
     * Indexed by frame.
     */
    const char * const rx_names[2] = { "a", "b" };
    EXPORT_SYMBOL_IF_KUNIT(rx_names);

    /**
     * rx_get() - Get one
     * @test: the case
     *
     * Return: the thing.
     */
    static inline struct rx_thing *
    rx_get(struct kunit *test)
    {
    	return NULL;
    }
    EXPORT_SYMBOL_IF_KUNIT(rx_get);
    ''')


def test_a_kernel_doc_comment_naming_the_symbol_passes() -> None:
    assert undocumented(GOOD) == []


@pytest.mark.parametrize('old,new,says', [
    ('/**\n * rx_get() - Get one', '/*\n * rx_get() - Get one',
     'rx_get: a plain /* comment, not /** kernel-doc'),
    (' * rx_get() - Get one', ' * rx_other() - Get one',
     "rx_get: the comment opens with ' * rx_other() - Get one', not 'rx_get() - ...'"),
    (' * rx_get() - Get one', ' * rx_get - Get one',
     "rx_get: the comment opens with ' * rx_get - Get one', not 'rx_get() - ...'"),
    (' * var rx_names - The names', ' * rx_names - The names',
     "rx_names: the comment opens with ' * rx_names - The names', not 'var rx_names - ...'"),
    (' * Return: the thing.\n */\n', ' * Return: the thing.\n */\n\n',
     'rx_get: no comment right above its definition'),
    ('/**\n * var rx_names - The names\n *\n * Indexed by frame.\n */',
     '/* The names, indexed by frame. */',
     'rx_names: a plain /* comment, not /** kernel-doc'),
    ('rx_get(struct kunit *test)\n{', 'rx_got(struct kunit *test)\n{',
     'rx_get: no definition above its export'),
])
def test_an_export_without_its_kernel_doc_is_named(old: str, new: str, says: str) -> None:
    assert GOOD.count(old) == 1
    assert undocumented(GOOD.replace(old, new)) == [says]


def test_every_kunit_export_has_kernel_doc() -> None:
    sources = sorted(TESTS_DIR.glob('*.c'))
    exports = sum(len(EXPORT.findall(p.read_text())) for p in sources)
    assert exports, f'no EXPORT_SYMBOL_IF_KUNIT() in {TESTS_DIR}/*.c: is TESTS_DIR right?'
    missing = [f'{p.name}: {m}' for p in sources for m in undocumented(p.read_text())]
    assert missing == [], '\n'.join(missing)
