"""The mutation check's own judgement: killed only by the intended cases."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import List, Optional, Tuple

import pytest

from rxalign import mutations
from rxalign.exitcodes import Exit
from rxalign.paths import MUTATION_PATCHES, SCRIPTS, TESTS_DIR
from rxalign.results import (ArchStatus, Case, CaseStatus, Problem, ProblemKind, Results,
                             Verdict)

M = next(m for m in mutations.MUTATIONS if m.name == 'napi-reserve-hardcoded-2')


def results(cases: List[Case]) -> Verdict:
    return Verdict(arch='x86_64', cases=cases)


def case(name: str, message: str) -> Case:
    return Case(name=name, status=CaseStatus.FAIL, message=message)


def test_killed_when_every_intended_case_fails_as_expected() -> None:
    r = results([case('net_rx_align_alloc.rx_alloc_path.napi_alloc_skb',
                      'len 60: headroom 66, the arch promises a pad of 64 || '
                      'len 64: DMA start (data - 0) at page offset 66, not aligned to 64'),
                 case('net_rx_align_iphdr.rx_ipv4_header.napi_alloc_skb',
                      'IP header at page offset 80 is 0 past'),
                 case('net_rx_align_gro.rx_gro_frags.ipv4',
                      'frame 0: napi_get_frags() headroom 66, the arch promises')])
    assert mutations.judge(M, Exit.TEST_FAILED, r).killed


def test_survives_when_the_wrong_assertion_fires() -> None:
    r = results([case('net_rx_align_alloc.rx_alloc_path.napi_alloc_skb', 'tailroom')])
    o = mutations.judge(M, Exit.TEST_FAILED, r)
    assert not o.killed and 'headroom 66' in o.detail


def test_a_crash_is_no_kill() -> None:
    o = mutations.judge(M, Exit.INFRA, Verdict(arch='x86_64', problems=[Problem(ProblemKind.CRASH,
                                                                                'panic')]))
    assert not o.killed and 'exited 3' in o.detail


def test_every_mutation_has_its_patch() -> None:
    for m in mutations.MUTATIONS:
        assert (MUTATION_PATCHES / f'{m.name}.patch').is_file(), m.name


# What CI runs (kernel, profile, arch): scripts/test's runs; --drivers boots
# the kernel of the run without it.  No --debug kernel: the slowest build.
CI_BUILDS = {('6.12', '', a) for a in ('x86_64', 'powerpc', 'powerpc32')} | {
    ('6.12', 'drivers', 'x86_64'), ('6.12', 'drivers', 'powerpc32'),
    ('7.3', '', 'powerpc32'), ('6.1', '', 'powerpc32'),
    ('7.3', '', 'sparc64'), ('7.3', 'drivers', 'sparc64'), ('7.3', 'drivers', 'sparc64-virtio')}


def test_ci_runs_only_mutations_on_kernels_ci_builds_anyway() -> None:
    text = (SCRIPTS / 'test').read_text()
    assert '"$here/mutation-test" --ci' in text
    # the 7.3 builds of CI_BUILDS are scripts/test's (issue 48: a trapping arch's drivers)
    assert '"$here/run-kunit" --kernel 7.3 --arch powerpc32,sparc64\n' in text
    assert '"$here/run-kunit" --kernel 7.3 --drivers --arch sparc64,sparc64-virtio\n' in text
    for m in mutations.MUTATIONS:
        if not m.not_in_ci:
            assert (m.kernel, m.profile, m.arch) in CI_BUILDS, m.name
    left_out = [m.name for m in mutations.MUTATIONS if m.not_in_ci]
    assert left_out == ['gro-frag0-any-offset', 'generic-xdp-grows-in-place',
                        'tulip-unaligned-list',
                        'smc91x-no-pad', 'fec-no-move', 'vhost-pad-rounded',
                        'sunlance-no-pad', 'sonic-rbsize-1520', 'smsc911x-no-ip-align', 'macb-no-rbof',
                        'napi-alloc-sleeps', 'lockdep-ab-ba', 'skb-head-leak']


def test_header_mutations_run_last(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The build after a header mutation rebuilds most of a kernel: run last,
    that build is the next run's, not one per later mutation."""
    ran: List[str] = []

    def fake(arches: str, out: Path, patch: Optional[Path], profile: str = '',
             kernel: str = '') -> Tuple[int, Optional[Results], str]:
        ran.append(patch.stem if patch else 'baseline')
        return int(Exit.OK), None, ''
    monkeypatch.setattr(mutations, '_run_kunit', fake)
    mutations.main(['--ci', '--out', str(tmp_path)])
    ran = [r for r in ran if r != 'baseline']
    headers = [m.name for m in mutations.MUTATIONS if m.rebuilds_all]
    assert sorted(headers) == ['net-ip-align-3', 'net-skb-pad-48']
    assert sorted(ran[-len(headers):]) == sorted(headers), ran
    assert len(ran) == len([m for m in mutations.MUTATIONS if not m.not_in_ci])


def test_list_prints_every_mutation_and_runs_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43 item 9: there was no way to see the mutations but the source."""
    def no_run(*args: object) -> None:
        raise AssertionError('--list ran run-kunit')
    monkeypatch.setattr(mutations, '_run_kunit', no_run)
    assert mutations.main(['--list']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(mutations.MUTATIONS) + 1
    rows = {line.split()[0]: line for line in lines[1:]}
    assert set(rows) == {m.name for m in mutations.MUTATIONS}
    assert '--kernel 7.3' in rows['generic-xdp-l3-pad']
    assert any(m.not_in_ci and f'no: {m.not_in_ci}' in rows[m.name] for m in mutations.MUTATIONS)


def test_every_mutation_of_the_tests_applies_to_kunit_tests(tmp_path: Path) -> None:
    """CI on 2026-12-07: three drivers-suite mutations no longer applied after
    the suite changed, and mutation-test reported them SURVIVED (run-kunit exit
    5) 40 minutes into CI.  A mutation that touches only the tests must apply
    to kunit-tests/ as it is (the tree is kunit-tests/ committed there)."""
    shutil.copytree(TESTS_DIR, tmp_path / 'kunit-tests')
    checked = 0
    for p in sorted(MUTATION_PATCHES.glob('*.patch')):
        files = re.findall(r'^\+\+\+ b/(\S+)$', p.read_text(), re.M)
        if not files or not all(f.startswith('net/core/tests/') for f in files):
            continue
        r = subprocess.run(['git', 'apply', '--check', '-p4', '--directory=kunit-tests', str(p)],
                           cwd=tmp_path, capture_output=True, text=True, check=False)
        assert r.returncode == 0, f'{p.name}: {r.stderr.strip()}'
        checked += 1
    assert checked >= 3
