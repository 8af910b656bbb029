"""The tables of README.md and docs/ that mirror code are the code's (scripts/docs),
and the facts kept twice on purpose (lib.sh's statuses, the two kunitconfigs)
are held equal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rxalign import docgen, kunit_series
from rxalign.declared import expected_suites
from rxalign.exitcodes import MEANINGS, Exit, HarnessError
from rxalign.paths import KUNITCONFIG, REPO, TESTS_DIR


def test_the_generated_tables_are_the_codes() -> None:
    differ = docgen.stale(docgen.documents())
    assert not differ, (f'{", ".join(str(f.relative_to(REPO)) for f in differ)}: a table '
                        f'that mirrors the code is out of date; run {docgen.FIX}')


def test_a_changed_table_is_seen_and_rewritten(tmp_path: Path) -> None:
    doc = tmp_path / 'README.md'
    current = '<!-- generated: kernels -->\n' + docgen.kernel_table() + '\n<!-- end -->\n'
    doc.write_text('before\n' + current.replace('6.12 (default)', '6.12') + 'after\n')
    assert docgen.stale([doc]) == [doc]
    assert docgen.regenerate(doc.read_text(), 'README.md') == 'before\n' + current + 'after\n'


def test_a_region_of_no_known_name_is_refused() -> None:
    with pytest.raises(HarnessError) as err:
        docgen.regenerate('<!-- generated: exit-codes -->\n<!-- end -->\n', 'README.md')
    assert err.value.status == Exit.USAGE and "'exit-codes'" in err.value.message


def test_every_status_has_its_meaning() -> None:
    assert set(MEANINGS) == set(Exit)


def test_the_shell_spells_the_statuses_as_exitcodes_does() -> None:
    """lib.sh cannot ask Python (it may have to install it first): its EXIT_
    names are Exit's, and no script writes a status other than 0 or 1 as a number."""
    lib = (REPO / 'scripts/lib.sh').read_text()
    spelled = re.findall(r'^EXIT_(\w+)=(\d+)$', lib, re.M)
    assert spelled
    for name, value in spelled:
        assert Exit[name] == int(value), name
    for script in (REPO / 'scripts').iterdir():
        if script.is_file() and script.read_text(errors='replace').startswith('#!/usr/bin/env bash'):
            numbers = re.findall(r'\bexit ([2-9]|\d\d+)\b', script.read_text())
            assert not numbers, f'{script.name}: exit {numbers[0]}: use an EXIT_ of lib.sh'


def test_the_kunitconfig_is_the_posted_ones_and_the_local_suites() -> None:
    """kunit.py --kunitconfig takes the top-level file; the per-directory
    .kunitconfig goes upstream with the posted suites.  The top-level one
    is that, and what the local suites (kunit-tests/commits/, Posted:
    local) need: their own options, and veth for the XDP copy cases."""
    posted = (TESTS_DIR / '.kunitconfig').read_text().splitlines()
    ours = KUNITCONFIG.read_text().splitlines()
    assert ours[:len(posted)] == posted, \
        'kunitconfig must begin with kunit-tests/.kunitconfig: make it so'
    local = {ln.split('=')[0][len('CONFIG_'):] for ln in ours[len(posted):]}
    commits = kunit_series.read(TESTS_DIR)
    local_objs = {f[:-2] for c in commits if c.posted is kunit_series.Posted.LOCAL
                  for f in c.files if f.endswith('.c')}
    mk = (TESTS_DIR / 'Makefile').read_text()
    local_syms = {m.group(1) for m in re.finditer(r'obj-\$\(CONFIG_(\w+)\) \+= (\w+)\.o', mk)
                  if m.group(2) in local_objs}
    # the drivers suites are the rig's: --drivers adds them (scripts/kconfig)
    assert local - {'NETDEVICES', 'NET_CORE', 'VETH'} == \
        local_syms - {'NET_RX_ALIGN_DRIVERS_KUNIT_TEST', 'NET_RX_ALIGN_VHOST_KUNIT_TEST'}, local


def test_the_readme_names_every_suite() -> None:
    readme = (REPO / 'README.md').read_text()
    missing = [s for s in expected_suites(TESTS_DIR) if f'`{s}`' not in readme]
    assert not missing, f'README.md, "What is tested": no line for {", ".join(missing)}'


POSITIONAL = '''
enum rx_class {
	RX_A,	/* reserves NET_IP_ALIGN */
	RX_B,	/* copies behind 2 */
};

static const char * const rx_class_names[] = { "a_name", "b_name" };

static const struct rx_driver rx_drivers[] = {
	{ "one", RX_A, 0, RX_A, "why" },
#if defined(X)
	{ "two", RX_B, 99, RX_A, "why" },
#else
	{ "two", RX_B, 1518, RX_A, "why" },
#endif
};
'''

DESIGNATED = '''
enum rx_class {
	RX_A,	/* reserves NET_IP_ALIGN */
	RX_B,	/* copies behind 2 */
};

static const char * const rx_class_names[] = {
	[RX_B] = "b_name",
	[RX_A] = "a_name",
};

static const struct rx_driver rx_drivers[] = {
	{ .name = "one", .class = RX_A, .why = "why" },
	{ .name = "two", .copied = RX_A, .copy_max = 99, .class = RX_B, .why = "why" },
};
'''


@pytest.mark.parametrize('c', [POSITIONAL, DESIGNATED])
def test_the_driver_classes_are_read_from_the_c(c: str) -> None:
    """Whatever names rx_class_names[] gives are the ones the table shows."""
    classes = docgen.driver_classes(c)
    assert [(k.name, k.meaning, k.drivers, k.copies) for k in classes] == [
        ('a_name', 'reserves NET_IP_ALIGN', ('one',), ('two',)),
        ('b_name', 'copies behind 2', ('two',), ())]


def test_a_drivers_table_it_cannot_read_is_an_error_naming_the_fix() -> None:
    with pytest.raises(ValueError, match='teach scripts/rxalign/docgen.py'):
        docgen.driver_classes('enum rx_class {\n\tRX_A,\n};\n')


def test_every_entry_point_has_the_parser_its_main_uses() -> None:
    """The options table is what the command parses, not a copy of it."""
    modules = [m for _, m, _ in docgen.entry_points() if m]
    assert 'run_kunit' in modules and 'docgen' in modules
    for module in modules:
        docgen.parser_of(module)
        assert 'parser().parse_args(' in (REPO / f'scripts/rxalign/{module}.py').read_text(), \
            module


def test_the_suites_table_is_the_c_in_the_makefiles_order(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """docs/suites.md's table of suites and cases: a suite the C adds, renames
    or moves shows there (and `scripts/docs --check` fails until written)."""
    (tmp_path / 'Makefile').write_text('obj-$(CONFIG_B_TEST) += b_kunit.o\n'
                                       'obj-$(CONFIG_A_TEST) += a_kunit.o\n')
    (tmp_path / 'a_kunit.c').write_text(
        'static struct kunit_case a_cases[] = {\n\tKUNIT_CASE(a_one),\n'
        '\tKUNIT_CASE_PARAM(a_two, gen),\n\t{}\n};\n'
        'static struct kunit_suite a_suite = {\n\t.name = "net_a",\n\t.test_cases = a_cases,\n};\n')
    (tmp_path / 'b_kunit.c').write_text(
        '#define B_NAME "net_b"\nstatic struct kunit_case b_cases[] = {\n\tKUNIT_CASE(b_one),\n'
        '\t{}\n};\nstatic struct kunit_suite b_suite = {\n\t.name = B_NAME,\n'
        '\t.test_cases = b_cases,\n};\n')
    monkeypatch.setattr(docgen, 'TESTS_DIR', tmp_path)
    assert docgen.suite_table().split('\n')[2:] == [
        '| `net_b` | `b_kunit.c` | `B_TEST` | `b_one` |',
        '| `net_a` | `a_kunit.c` | `A_TEST` | `a_one`, `a_two` |']
