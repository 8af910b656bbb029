"""The compiler probes: a saved disassembly of each outcome, and the real compiler."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Sequence

import pytest

from rxalign import arches, deps, probes
from rxalign.exitcodes import Exit, HarnessError

SAVED = Path(__file__).parent / 'fixtures' / 'probes'
# Debian 12's sh4-linux-gnu-gcc 12.2.0 on scripts/probes/sh_tbit.c: -O2 is
# the miscompiled code, -O0 (where the faulty pass does not run) a right one.
BROKEN = (SAVED / 'sh_tbit-gcc12.2-O2.dis').read_text()
RIGHT = (SAVED / 'sh_tbit-gcc12.2-O0.dis').read_text()


def test_the_saved_miscompile_is_caught() -> None:
    assert probes.miscompiled(probes.SH_TBIT, BROKEN)


def test_code_that_tests_the_value_passes() -> None:
    assert not probes.miscompiled(probes.SH_TBIT, RIGHT)


def test_a_test_of_the_loaded_register_clears_the_compiler() -> None:
    fixed = BROKEN.replace('bf.s\t16', 'tst\tr4,r4\n   b:\tbf.s\t16')
    assert fixed != BROKEN and not probes.miscompiled(probes.SH_TBIT, fixed)


def test_a_test_of_another_register_does_not() -> None:
    # the T the branch reads must come from the value loaded, not any tst
    other = BROKEN.replace('bf.s\t16', 'tst\tr5,r5\n   b:\tbf.s\t16')
    assert other != BROKEN and probes.miscompiled(probes.SH_TBIT, other)


def test_a_probe_function_missing_from_the_output_is_an_error_not_a_pass() -> None:
    with pytest.raises(ValueError, match='probe_emit'):
        probes.miscompiled(probes.SH_TBIT, BROKEN.replace('<probe_emit>', '<other>'))


def test_only_the_probe_function_is_read() -> None:
    # a tst in a function after the probe must not clear the probe
    later = BROKEN + '\n00000040 <other>:\n  40:\tmov.l\t@r4,r4\n  42:\ttst\tr4,r4\n'
    assert probes.miscompiled(probes.SH_TBIT, later)


def test_every_probe_source_exists() -> None:
    for a in arches.ARCHES:
        for probe in a.probes:
            assert probe.path().is_file(), probe.source


@pytest.mark.skipif(not shutil.which('sh4-linux-gnu-gcc'), reason='no SH cross compiler')
def test_this_machines_sh_compiler_is_judged_before_any_build() -> None:
    sh = arches.BY_NAME['sh']
    bug = probes.check(probes.SH_TBIT, sh.cross_compile)
    if bug is None:
        pytest.skip('this sh4-linux-gnu-gcc builds the probe right: nothing to refuse')
    with pytest.raises(HarnessError) as err:
        deps.check_arch_tools(sh)
    assert err.value.status == Exit.ENVIRONMENT
    assert 'sh_treg_combine' in err.value.message and 'PATH' in err.value.message


def test_unreadable_objdump_output_is_a_message_not_a_crash(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A probe that cannot be judged must not take the other arches down
    (deps.arch_problem() turns only HarnessError into a verdict)."""
    fake = tmp_path / 'fake-'
    for tool, out in (('gcc', 'touch "$4"'), ('objdump', 'echo nothing here')):
        script = tmp_path / f'fake-{tool}'
        script.write_text(f'#!/bin/sh\n{out}\n')
        script.chmod(0o755)
    msg = probes.check(probes.SH_TBIT, str(fake))
    assert msg and 'not understood' in msg and 'probe_emit' in msg


def test_debian_13s_gcc_14_builds_the_probe_right() -> None:
    """Debian 13's sh4-linux-gnu-gcc 14.2.0 at -O2 keeps `tst r4,r4` after the
    load of delay_msec: no pass needs disabling, --toolchain debian-13 builds sh."""
    gcc14 = (SAVED / 'sh_tbit-gcc14.2-O2.dis').read_text()
    assert not probes.miscompiled(probes.SH_TBIT, gcc14)
    # the same code with that test gone is what GCC 12.2 emits, and is caught
    assert probes.miscompiled(probes.SH_TBIT, gcc14.replace('tst\tr4,r4', 'nop'))


def test_the_probe_message_names_the_toolchain_that_builds_sh(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(cmd: Sequence[str]) -> 'subprocess.CompletedProcess[str]':
        out = BROKEN if 'objdump' in cmd[0] else 'sh4-linux-gnu-gcc (Debian 12.2.0-14) 12.2.0\n'
        return subprocess.CompletedProcess(list(cmd), 0, out, '')
    bug = probes.check(probes.SH_TBIT, 'sh4-linux-gnu-', run=fake)
    assert bug and 'sh_treg_combine' in bug and '--toolchain debian-13' in bug
