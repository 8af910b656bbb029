"""--coverage: the gcov dump the guest prints, read back (scripts/rxalign/coverage.py),
the Makefile lines that profile the receive files (gcov_profile.py), the QEMU
config that runs /init after KUnit (arch_plan.py) and what a run does with all that.

fixtures/coverage/: console.log is the end of a console as gcov-dump.c
prints a dump, holding toy.gcda (160 bytes); toy.c, toy.gcno and
toy.gcov.json (what gcov -j -t printed for them) were made with the
machine's gcc 12 (`gcc -fprofile-arcs -ftest-coverage`, run once)."""

from __future__ import annotations

import base64
import dataclasses
import json
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

import faults
from rxalign import (arch_verdict, coverage, gcov_profile, report, run_kunit, site_coverage,
                     tree as tree_mod)
from rxalign.arches import BY_NAME
from rxalign.arch_plan import Boot, ConfigSource, init_after_suites, plan
from rxalign.exitcodes import Exit, HarnessError
from rxalign.kconfig import Profile
from rxalign.results import ArchRun, ArchStatus, FileSummary, ProblemKind, Results, Verdict
from rxalign.toolchains import Toolchain
from test_arch_plan import kernel_tree, settings

FIX = faults.FIXTURES / 'coverage'
TOY = 'net/core/toy.c'


def console() -> List[str]:
    return (FIX / 'console.log').read_text().splitlines()


def _error(lines: List[str]) -> coverage.CoverageError:
    with pytest.raises(coverage.CoverageError) as e:
        coverage.read_dump(lines)
    return e.value


def test_the_saved_dump_reads_back_checked() -> None:
    [gcda] = coverage.read_dump(console())
    assert gcda.path.endswith('/x86_64-coverage/net/core/toy.gcda')
    assert len(gcda.data) == 160 and gcda.data[:4] == b'adcg'   # gcc's little-endian magic
    assert coverage.fnv1a(gcda.data) == 0xf5883b01


def test_a_truncated_dump_is_results_missing() -> None:
    lines = console()
    cut = next(i for i, ln in enumerate(lines) if 'gcov: data' in ln) + 1
    e = _error(lines[:cut])
    assert e.status == Exit.INFRA and 'truncated' in e.message and 'toy.gcda' in e.message
    # cut between files: no "done"
    e = _error([ln for ln in lines if 'gcov: done' not in ln])
    assert e.status == Exit.INFRA and 'no "done" line' in e.message


def test_a_garbled_dump_is_results_missing() -> None:
    lines = console()
    i = next(i for i, ln in enumerate(lines) if 'gcov: data' in ln)
    # one base64 character changed: still base64, the checksum says no
    data = lines[i].rsplit(' ', 1)[1]
    lines[i] = lines[i][:-len(data)] + ('B' if data[0] != 'B' else 'C') + data[1:]
    e = _error(lines)
    assert e.status == Exit.INFRA and 'garbled' in e.message and 'checksum' in e.message
    # a kernel message inside a data line: not base64
    lines = console()
    lines[i] = lines[i][:40] + '[   20.2] random: crng init done' + lines[i][40:]
    assert 'not base64' in _error(lines).message
    # a line cut short: the next one is not where the first should have gone on
    lines = console()
    lines[i] = lines[i][:60]
    assert 'a short data line before console line 9' in _error(lines).message


def test_no_dump_unavailable_and_lost_files_each_say_so() -> None:
    assert 'no gcov dump' in _error(console()[:5]).message
    e = _error(console()[:5] + ['rx_align_gcov: unavailable: cannot mount debugfs'])
    assert 'cannot mount debugfs' in e.message
    lines = [ln.replace('done 1', 'done 2') for ln in console()]
    assert 'dumped 2 files, the console holds 1' in _error(lines).message
    lines = console()
    assert 'second gcov dump' in _error(lines + lines[5:]).message
    assert 'second gcov dump' in _error(lines + ['rx_align_gcov: begin']).message


def test_a_kernel_line_before_the_marker_is_no_harm() -> None:
    lines = ['[  20.2] x ' + ln if 'gcov: end' in ln else ln for ln in console()]
    assert len(coverage.read_dump(lines)) == 1


def test_gcov_json_to_lines_and_functions() -> None:
    data = json.loads((FIX / 'toy.gcov.json').read_text())
    [cov] = coverage.from_gcov_json(data, TOY)
    assert cov.ran == [2, 4, 12, 14, 16] and cov.not_ran == [7, 9, 15]
    assert [(f.name, f.count) for f in cov.functions] == [('pad', 1), ('never', 0), ('main', 1)]
    assert cov.summary() == FileSummary(TOY, 8, 5, 3, 2)
    with pytest.raises(coverage.CoverageError, match='no entry for it'):
        coverage.from_gcov_json(data, 'net/core/skbuff.c')


def test_an_included_c_file_is_a_file_of_its_own_summed_over_objects() -> None:
    """8390.c and 8390p.c both include lib8390.c: its lines ran in either."""
    data = json.loads((FIX / 'toy.gcov.json').read_text())
    tree = str(Path(data['current_working_directory']).parent / 'tree')
    lib = dict(data['files'][0], file='../tree/drivers/net/lib.c')
    header = dict(data['files'][0], file='../tree/include/linux/skbuff.h')
    data['files'] += [lib, header]
    files = coverage.from_gcov_json(data, TOY, tree)
    assert [f.source for f in files] == [TOY, 'drivers/net/lib.c']
    twice = coverage.merged([*files, files[1]])
    assert [f.source for f in twice] == ['drivers/net/lib.c', TOY]
    assert dict(twice[0].counts)[4] == 2 and twice[0].function('pad') == \
        coverage.FunctionRun('pad', 2, 2)
    assert twice[1] == files[0]


def _build(tmp_path: Path) -> Path:
    build = tmp_path / 'build'
    (build / 'net/core').mkdir(parents=True)
    shutil.copyfile(FIX / 'toy.gcno', build / 'net/core/toy.gcno')
    return build


@pytest.mark.skipif(not shutil.which('gcov'), reason='no gcov on this machine (package gcc)')
def test_the_dump_through_gcov_to_the_results(tmp_path: Path) -> None:
    build, tree, out = _build(tmp_path), tmp_path / 'tree', tmp_path / 'coverage'
    (tree / 'net/core').mkdir(parents=True)
    shutil.copyfile(FIX / 'toy.c', tree / TOY)
    files = coverage.collect(console(), BY_NAME['x86_64'], Toolchain('host'), build, tree, out)
    assert [f.summary().describe() for f in files] == \
        ['net/core/toy.c: 5/8 lines ran, 2/3 functions ran']
    saved = json.loads((out / 'coverage.json').read_text())
    assert saved['files'][0]['functions'] == {'pad': 1, 'never': 0, 'main': 1}
    gcov = (out / 'net#core#toy.c.gcov').read_text().splitlines()
    assert gcov[8] == '    #####:    8:{' or '#####' in gcov[9]
    assert gcov[4] == '        1:    4:\treturn len + 2;'
    # the .gcda went beside a copy of its .gcno, not next to the build's own
    assert (build / coverage.GCOV_WORK / 'net/core/toy.gcda').is_file()
    assert not (build / 'net/core/toy.gcda').exists()


def test_a_dump_of_another_build_is_named(tmp_path: Path) -> None:
    [gcda] = coverage.read_dump(console())
    with pytest.raises(coverage.CoverageError, match='no .gcno for it'):
        coverage.place(gcda, tmp_path)
    assert str(coverage.place(gcda, _build(tmp_path))) == 'net/core/toy'


def test_a_missing_gcov_is_environment_naming_the_package(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv('PATH', '/nonexistent')
    e = coverage.gcov_missing(BY_NAME['powerpc32'], Toolchain('host'))
    assert e is not None and e.status == Exit.ENVIRONMENT
    assert 'powerpc64-linux-gnu-gcov' in e.message and 'gcc-powerpc64-linux-gnu' in e.message


def test_a_garbled_dump_fails_the_arch_as_infra(tmp_path: Path) -> None:
    lines = [ln for ln in console() if 'gcov: done' not in ln]
    (tmp_path / 'ktap.log').write_text('\n'.join(lines) + '\n')
    v = Verdict(arch='x86_64')
    s = settings(tmp_path, tmp_path / 'cache', debug=False)
    arch_verdict.read_coverage(BY_NAME['x86_64'], s, ArchRun(
        arch='x86_64', ktap_log=tmp_path / 'ktap.log', build_dir=_build(tmp_path)), v,
        tmp_path / 'out')
    assert [p.kind for p in v.problems] == [ProblemKind.NO_COVERAGE]
    assert v.status == ArchStatus.INFRA and v.exit == Exit.INFRA
    assert not (tmp_path / 'out').exists()


def test_the_summary_goes_through_results_json_into_report_md() -> None:
    v = Verdict(arch='powerpc32', coverage=[FileSummary('drivers/net/veth.c', 900, 300, 80, 20)])
    back = Verdict.from_json(json.loads(json.dumps(v.to_json())), 'results.json')
    assert back.coverage == v.coverage
    md = report.markdown(Results(runs=[], arches={'powerpc32': back}))
    assert '- drivers/net/veth.c: 300/900 lines ran, 20/80 functions ran' in md
    with pytest.raises(ValueError, match='coverage summary'):
        Verdict.from_json({**v.to_json(), 'coverage': [{'source': 'x', 'lines': '9'}]}, 'r')


# ---- the tree: GCOV_PROFILE lines ----

def _fake_tree(root: Path) -> Path:
    for f in gcov_profile.RECEIVE_FILES:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text('')
        (root / Path(f).parent / 'Makefile').write_text('obj-y += x.o\n')
    e1000 = root / 'drivers/net/ethernet/intel/e1000'
    e1000.mkdir(parents=True)
    (e1000.parent / 'Makefile').write_text('obj-$(CONFIG_E1000) += e1000/\n'
                                           'obj-$(CONFIG_E100) += e100.o\n')
    (e1000 / 'Makefile').write_text('obj-$(CONFIG_E1000) += e1000.o\n'
                                    'e1000-objs := e1000_main.o e1000_hw.o \\\n'
                                    '\te1000_param.o\n')
    vmx = root / 'drivers/net/vmxnet3'
    vmx.mkdir()
    (root / 'drivers/net/Makefile').write_text('obj-$(CONFIG_VMXNET3) += vmxnet3/\n')
    (vmx / 'Makefile').write_text('vmxnet3-objs := a.o\nobj-m += vmxnet3.o\n')
    return root


def test_profile_lines_come_from_the_trees_makefiles(tmp_path: Path) -> None:
    root = _fake_tree(tmp_path)
    said: List[str] = []
    lines = gcov_profile.lines_for(root, gcov_profile.RECEIVE_FILES,
                                   ('E1000', 'E100', 'VMXNET3', 'NOPE'), said.append)
    texts = {(ln.makefile, ln.text) for ln in lines}
    assert ('net/core/Makefile', 'GCOV_PROFILE_skbuff.o := y') in texts
    assert ('drivers/vhost/Makefile', 'GCOV_PROFILE_net.o := y') in texts
    e1000 = 'drivers/net/ethernet/intel/e1000/Makefile'
    assert {t for m, t in texts if m == e1000} == {
        f'GCOV_PROFILE_e1000_{o}.o := y' for o in ('main', 'hw', 'param')}
    assert ('drivers/net/ethernet/intel/Makefile', 'GCOV_PROFILE_e100.o := y') in texts
    # its directory's Makefile does not name the symbol: all of it
    assert ('drivers/net/vmxnet3/Makefile', 'GCOV_PROFILE := y') in texts
    assert said == ['--coverage: no Makefile under drivers/net/ builds CONFIG_NOPE: '
                    'not profiled']
    (root / 'drivers/net/tun.c').unlink()
    with pytest.raises(gcov_profile.ProfileError, match='drivers/net/tun.c'):
        gcov_profile.lines_for(root, gcov_profile.RECEIVE_FILES, (), said.append)


def test_the_coverage_layer_is_a_commit_of_its_own(tmp_path: Path) -> None:
    root = _fake_tree(tmp_path / 'tree')
    tree_mod._init_repo(root)
    tree_mod._git(root, 'add', '-A')
    tree_mod._git(root, 'commit', '-q', '-m', 'base', env=tree_mod.BASE_IDENTITY)
    layer = tree_mod.Layer('coverage', gcov=gcov_profile.RECEIVE_FILES, gcov_drivers=('E1000',))
    tree_mod._apply(root, layer, lambda _: None)
    assert 'GCOV_PROFILE_veth.o := y' in (root / 'drivers/net/Makefile').read_text()
    log = tree_mod._git(root, 'log', '--format=%s', '-1').stdout
    assert log.startswith('rx-align: build the receive files with gcov')
    assert not tree_mod._git(root, 'status', '--porcelain').stdout.strip()
    # another list of files is another layer
    assert layer.own_key() != tree_mod.Layer('coverage', gcov=('net/core/dev.c',)).own_key()
    (root / 'net/core/gro.c').unlink()
    with pytest.raises(HarnessError) as e:
        tree_mod._apply(root, layer, lambda _: None)
    assert e.value.status == Exit.PATCH and 'net/core/gro.c' in e.value.message


# ---- the kernel: its own build dir, a config that runs /init ----

def test_a_coverage_kernel_has_its_own_build_dir_and_config(tmp_path: Path) -> None:
    assert Profile(coverage=True).build_suffix == 'coverage'
    assert Profile().fragments() + [coverage_config()] == Profile(coverage=True).fragments()
    tree = kernel_tree(tmp_path, '6.12')
    s = settings(tree, tmp_path / 'cache', debug=False)
    cov = plan(BY_NAME['powerpc32'], dataclasses.replace(s, profile=Profile(coverage=True)))
    normal = plan(BY_NAME['powerpc32'], s)
    assert cov.build_dir != normal.build_dir and cov.build_dir.name.endswith('coverage')
    assert cov.coverage and not normal.coverage
    for b in (cov.configure, cov.boot):
        assert b.config_file is not None and b.config_file.parent == cov.build_dir
        assert "kernel_command_line='console=ttyPZ0 --'" in b.config_file.read_text()
        assert b.kunit_arg == f'--qemu_config={b.config_file}'


def test_a_config_that_shuts_down_itself_lets_init_run(tmp_path: Path) -> None:
    """sparc64.py ends 'kunit_shutdown=poweroff --': kept before the new "--",
    the kernel would power off after KUnit and /init never print the counters."""
    from rxalign.paths import QEMU_CONFIGS
    ours = QEMU_CONFIGS / 'sparc64.py'
    assert "kunit_shutdown=poweroff --'" in ours.read_text()
    derived = init_after_suites(Boot(f'--qemu_config={ours}', 'vmlinux', ConfigSource.OURS,
                                     ours), tmp_path, 'sparc64')
    assert derived.config_file is not None
    assert "kernel_command_line='console=ttyS0 --'" in derived.config_file.read_text()
    # its /init powers the machine off: a reset boots OpenBIOS again on sun4u
    flags = BY_NAME['sparc64'].init_cflags
    assert flags is not None and '-DRX_GCOV_STOP=LINUX_REBOOT_CMD_POWER_OFF' in flags
    source = (Path(coverage.__file__).parents[1] / 'initramfs/gcov-dump.c').read_text()
    assert 'reboot(RX_GCOV_STOP);' in source


def coverage_config() -> Path:
    from rxalign.paths import COVERAGE
    assert 'CONFIG_GCOV_KERNEL=y' in COVERAGE.read_text()
    return COVERAGE


def test_a_config_that_cannot_be_derived_is_named(tmp_path: Path) -> None:
    config = tmp_path / 'odd.py'
    config.write_text("a = dict(kernel_command_line='x')\nb = dict(kernel_command_line='y')\n")
    with pytest.raises(HarnessError) as e:
        init_after_suites(Boot('--arch=odd', 'all', ConfigSource.TREE, config), tmp_path, 'odd')
    assert e.value.status == Exit.INFRA and 'has 2 kernel_command_line' in e.value.message


def test_coverage_is_refused_with_debug_and_where_no_init_builds() -> None:
    for argv, words in ((['--coverage', '--debug'], 'give one'),
                        (['--coverage', '--arch', 'um'], 'no /init can print')):
        with pytest.raises(HarnessError) as e:
            run_kunit.check_args(run_kunit.parse_args(argv))
        assert e.value.status == Exit.USAGE and words in e.value.message


def test_base64_lines_are_what_the_guest_prints() -> None:
    """gcov-dump.c puts LINE_BYTES on a data line: the reader's check of
    short lines assumes the same number."""
    source = (Path(coverage.__file__).parents[1] / 'initramfs/gcov-dump.c').read_text()
    assert f'#define LINE_BYTES\t{coverage.LINE_BYTES}' in source
    full = [ln for ln in console() if 'gcov: data' in ln][0].rsplit(' ', 1)[1]
    assert len(base64.b64decode(full)) == coverage.LINE_BYTES


# ---- the site inventory, joined ----

INVENTORY = """# Receive buffers padded with a literal 2

| class | sites |
|---|---|
| copy | 3 |

## copy

| site | by | why | code |
|---|---|---|---|
| `net/core/toy.c:3` | semantic patch | x | `return len + 2;` |
| `net/core/toy.c:9` | semantic patch | x | `return len - 2;` |
| `net/core/toy.c:30` | semantic patch | x | `skb_reserve(skb, 2);` |
| `net/core/toy.c:1` | semantic patch | x | `/* A stand-in for a receive file: one function runs, one never does. */` |
| `drivers/net/other.c:5` | review | x | `skb_reserve(skb, 2);` |
"""


def test_each_site_of_a_profiled_file_ran_or_not(tmp_path: Path) -> None:
    """The sites are found again by their code where the series moved them
    (line 3 is line 4 in the tree tested), and one the series rewrote is said so."""
    data = json.loads((FIX / 'toy.gcov.json').read_text())
    [cov] = coverage.from_gcov_json(data, TOY)
    tree = tmp_path / 'tree'
    (tree / 'net/core').mkdir(parents=True)
    shutil.copyfile(FIX / 'toy.c', tree / TOY)
    (tmp_path / 'pad-sites.md').write_text(INVENTORY)
    ran, profiled = site_coverage.write(tmp_path, 'x86_64', [cov], tree, tmp_path / 'pad-sites.md')
    assert (ran, profiled) == (2, 4)
    lines = (tmp_path / 'pad-sites.txt').read_text().splitlines()
    assert lines[2:6] == ['ran            copy   net/core/toy.c:3 -> 4 (1x)',
                          'not ran        copy   net/core/toy.c:9 -> 9',
                          'changed by the series copy   net/core/toy.c:30',
                          # no block on the line: the one after it (an inlined call)
                          'ran            copy   net/core/toy.c:1 -> 1 (1x)']
    assert lines[-1] == ('# ran: 2, not ran: 1, no code: 0, changed by the series: 1, '
                         'not profiled: 1')
    assert len(site_coverage.read_sites(site_coverage.INVENTORY.read_text())) >= 90


# ---- the guest's /init, built for this machine ----

@pytest.mark.skipif(not shutil.which('gcc'), reason='no gcc on this machine')
def test_the_guest_dump_reads_back_byte_for_byte(tmp_path: Path) -> None:
    """gcov-dump.c with host-shim.h (no mount, no reboot, no loglevel; a
    directory of ours instead of debugfs): nested directories, a file of
    one line, an empty one and a .gcno link come back as they were."""
    root = tmp_path / 'debug'
    files = {'gcov/a/b/x.gcda': bytes(range(256)) * 4, 'gcov/a/y.gcda': b'\x01' * 57,
             'gcov/c/z.gcda': b'', 'gcov/a/b/c/d/w.gcda': b'late'}
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / 'gcov/a/x.gcno').symlink_to('/nonexistent')
    program = tmp_path / 'gcov-dump'
    source = Path(coverage.__file__).parents[1] / 'initramfs/gcov-dump.c'
    subprocess.run(['gcc', '-O2', '-Wall', '-Werror', '-include', str(FIX / 'host-shim.h'),
                    f'-DMOUNT_AT="{root}"', '-o', str(program), str(source)], check=True)
    out = subprocess.run([str(program)], capture_output=True, text=True, timeout=10,
                         check=True).stdout
    got = {g.path: g.data for g in coverage.read_dump(out.splitlines())}
    assert got == {f'{root}/{name}': data for name, data in files.items()}
