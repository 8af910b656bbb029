"""What must have run: the suites and cases the test module's source declares."""

from __future__ import annotations

import fnmatch
import re
import textwrap
from pathlib import Path
from typing import List, Set

import pytest

from rxalign.declared import expected_suites, parse_source, run_suites, suite_glob
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import TESTS_DIR

SOURCE = textwrap.dedent('''\
    #define RX_OTHER_NAME "net_rx_other"

    static struct kunit_case rx_a_cases[] = {
    	KUNIT_CASE(rx_always),
    #ifdef CONFIG_ZONE_DMA
    	KUNIT_CASE(rx_zone_dma),
    #endif
    #if IS_ENABLED(CONFIG_PAGE_POOL)
    	KUNIT_CASE_PARAM(rx_pool, rx_pool_gen),
    #else
    	KUNIT_CASE(rx_no_pool),
    #endif
    #if PAGE_SIZE == SZ_4K
    	KUNIT_CASE(rx_4k_only),
    #endif
    	{}
    };

    static struct kunit_suite __maybe_unused rx_a_suite = {
    	.name = "net_rx_a",
    	.test_cases = rx_a_cases,
    };

    static struct kunit_case rx_b_cases[] = {
    	KUNIT_CASE(rx_b),
    	{}
    };

    static struct kunit_suite rx_b_suite __maybe_unused = {
    	.name = RX_OTHER_NAME,
    	.test_cases = rx_b_cases,
    };

    kunit_test_suites(&rx_a_suite, &rx_b_suite);
    ''')


def test_suites_with_attributes_or_macro_names_are_found() -> None:
    """Item 12: `__maybe_unused` before or after the name, or a name given by a
    macro, hid the suite: its absence from KTAP was no fault."""
    suites = parse_source(SOURCE)
    assert set(suites) == {'net_rx_a', 'net_rx_other'}
    assert 'rx_b' in suites['net_rx_other']


def test_cases_behind_a_config_conditional_are_required_only_when_built() -> None:
    """Item 12: a case behind `#ifdef CONFIG_ZONE_DMA` was required on a kernel
    that does not build it (exit 3 for a correct run)."""
    unconditional = parse_source(SOURCE)['net_rx_a']
    assert 'rx_always' in unconditional
    assert not {'rx_zone_dma', 'rx_pool', 'rx_no_pool', 'rx_4k_only'} & set(unconditional)
    built = parse_source(SOURCE, config={'CONFIG_ZONE_DMA': 'y', 'CONFIG_PAGE_POOL': 'y'})
    assert {'rx_always', 'rx_zone_dma', 'rx_pool'} <= set(built['net_rx_a'])
    assert not {'rx_no_pool', 'rx_4k_only'} & set(built['net_rx_a'])
    without = parse_source(SOURCE, config={})['net_rx_a']
    assert 'rx_no_pool' in without and 'rx_zone_dma' not in without


def test_a_file_built_under_another_option_declares_only_when_built(tmp_path: Path) -> None:
    """The drivers suite is built only under run-kunit --drivers: a kernel
    without it must not miss it, a kernel with it must run it."""
    (tmp_path / 'Makefile').write_text('obj-$(CONFIG_MAIN) += a.o\n'
                                       'obj-$(CONFIG_OTHER) += b.o\n')
    (tmp_path / 'a.c').write_text(SOURCE)
    (tmp_path / 'b.c').write_text(SOURCE.replace('net_rx_a', 'net_rx_drivers'))
    main_only = expected_suites(tmp_path, {'CONFIG_MAIN': 'y'})
    assert 'net_rx_a' in main_only and 'net_rx_drivers' not in main_only
    other_only = expected_suites(tmp_path, {'CONFIG_OTHER': 'm'})
    assert 'net_rx_drivers' in other_only and 'net_rx_a' not in other_only
    assert {'net_rx_a', 'net_rx_drivers'} <= set(expected_suites(tmp_path))


def boots(suites: List[str], glob: str) -> Set[str]:
    """What kunit.filter_glob=@glob boots of @suites (the kernel's glob_match())."""
    return {s for s in suites if fnmatch.fnmatchcase(s, glob)}


def test_a_run_boots_the_drivers_suite_with_drivers_and_every_other_without() -> None:
    """One kernel has every suite; kunit.filter_glob picks them.  A suite whose
    name the glob of the other runs also matched would run twice."""
    suites = list(expected_suites(TESTS_DIR))
    drivers = {'net_rx_align_drivers', 'net_rx_align_drivers_bystanders',
               'net_rx_align_drivers_vhost'}
    assert drivers <= set(suites)
    assert boots(suites, suite_glob(suites, True)) == drivers == set(run_suites(suites, True))
    assert boots(suites, suite_glob(suites, False)) == set(suites) - drivers == \
        set(run_suites(suites, False))


@pytest.mark.parametrize('new', ['net_rx_align_rss', 'net_rx_align_zerocopy',
                                 'net_rx_align_dma_sync'])
def test_a_new_suite_is_booted_and_required_without_editing_a_pattern(new: str) -> None:
    """Issue 41 item 14: the glob `net_rx_align_[!d]*` was written by hand: a
    suite named net_rx_align_dma... never ran and was never required (exit
    0). The glob comes from the declared suites now, so every new suite is
    booted and, being declared, required."""
    suites = list(expected_suites(TESTS_DIR)) + [new]
    drivers = set(run_suites(suites, True))
    assert new in run_suites(suites, False)
    assert boots(suites, suite_glob(suites, False)) == set(suites) - drivers


def test_a_suite_no_glob_can_tell_from_the_drivers_suites_is_a_usage_error() -> None:
    """Issue 41 item 14: where no one glob can boot a suite without the
    drivers suites (names alike for longer than the shortest), the run says
    so, naming them, instead of leaving a suite out."""
    suites = list(expected_suites(TESTS_DIR)) + ['net_rx_align_drivel']
    with pytest.raises(HarnessError) as e:
        suite_glob(suites, False)
    assert e.value.status == Exit.USAGE
    assert 'net_rx_align_drivel' in e.value.message and 'net_rx_align_drivers' in e.value.message


def test_a_suite_named_by_a_macro_of_a_header_is_found(tmp_path: Path) -> None:
    """Issue 41 item 13: a suite whose .name is a macro #defined in a header
    of the module was exit 70 (a bug of the harness); it is read from the
    header, and a name no file defines is a usage error naming the file."""
    (tmp_path / 'rx_names.h').write_text('#define RX_OTHER_NAME "net_rx_other"\n')
    (tmp_path / 'a.c').write_text(SOURCE.replace('#define RX_OTHER_NAME "net_rx_other"\n', ''))
    assert set(expected_suites(tmp_path)) == {'net_rx_a', 'net_rx_other'}
    (tmp_path / 'rx_names.h').unlink()
    with pytest.raises(HarnessError) as e:
        expected_suites(tmp_path)
    assert e.value.status == Exit.USAGE
    assert 'a.c' in e.value.message and 'RX_OTHER_NAME' in e.value.message


def test_the_helper_module_exports_only_rx_align_names() -> None:
    """Built in, the helpers' exports share the kernel's symbol table with
    every driver: each is named rx_align_* and declared in rx_align.h, the
    one header the suites include."""
    exported = re.findall(r'EXPORT_SYMBOL\w*\((\w+)\)',
                          (TESTS_DIR / 'rx_align_kunit_helpers.c').read_text())
    header = (TESTS_DIR / 'rx_align.h').read_text()
    assert exported
    for name in exported:
        assert name.startswith('rx_align_'), name
        assert re.search(rf'\b{name}\b', header), name


# A function of the test module, from its opening to its closing brace at the line's start.
_C_FUNCTION = re.compile(r'^static \w[\w\s*]*?\b(\w+)\(struct kunit \*test[^)]*\)\n\{(.*?)^\}',
                         re.M | re.S)


def skips_after_a_failure(source: str) -> List[str]:
    """The functions taking a `struct kunit *test` that call kunit_skip() (or
    kunit_mark_skipped()) after a KUNIT_EXPECT/KUNIT_FAIL in the text: KUnit
    writes SKIPPED over FAILURE, so that expectation's failure would show as a
    skip. A check of the text: a skip before every expectation is safe."""
    found = []
    for m in _C_FUNCTION.finditer(source):
        body = m.group(2)
        checks = [x.start() for x in re.finditer(r'\bKUNIT_(?:EXPECT|FAIL)', body)]
        skips = [x.start() for x in re.finditer(r'\bkunit_(?:skip|mark_skipped)\(', body)]
        if checks and skips and min(checks) < max(skips):
            found.append(m.group(1))
    return found


def test_no_case_skips_after_an_expectation() -> None:
    """Issue 50 item 1: rx_bystanders_untouched checked the bystander named
    up_before= with KUNIT_EXPECT, then skipped when there was no bystander:
    the bystander that was up and is gone read as a skip."""
    bad = textwrap.dedent('''\
        static void rx_case(struct kunit *test)
        {
        	KUNIT_EXPECT_TRUE(test, up);
        	if (!n)
        		kunit_skip(test, "none");
        }
        ''')
    assert skips_after_a_failure(bad) == ['rx_case']
    assert skips_after_a_failure(bad.replace('KUNIT_EXPECT_TRUE(test, up);\n', '') +
                                 '\tKUNIT_EXPECT_TRUE(test, up);\n') == []
    found = {f.name: skips_after_a_failure(f.read_text()) for f in TESTS_DIR.glob('*.c')}
    assert len(found) >= 3 and not any(found.values()), found
