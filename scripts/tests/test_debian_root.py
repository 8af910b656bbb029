"""The Debian root of --toolchain: made whole or not at all, failures named, exit 4.

mmdebstrap is replaced by a script that does what the real one did on this
machine (its saved messages are in fixtures/debian_root/): the real runs
(no network, a wrong keyring, a full disk) are in docs/exit-statuses.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import pytest

from rxalign import debian_root, deps
from rxalign.arches import BY_NAME
from rxalign.cache import Cache
from rxalign.exitcodes import Exit, HarnessError
from rxalign.arch_plan import tcg_only
from rxalign.toolchains import HOST, Toolchain, Toolchains, check_root_tools

SAVED = Path(__file__).parent / 'fixtures' / 'debian_root'
RELEASE = debian_root.RELEASES['debian-13']


def fake_mmdebstrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> Path:
    """An mmdebstrap first on PATH that runs @body with $target set; its calls logged."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    calls = tmp_path / 'calls'
    script = bin_dir / 'mmdebstrap'
    script.write_text('#!/bin/sh\n'
                      f'echo "$@" >> {calls}\n'
                      'target=$(for a; do case $a in /*) echo "$a"; break ;; esac; done)\n'
                      + body + '\n')
    script.chmod(0o755)
    monkeypatch.setenv('PATH', f'{bin_dir}:{os.environ["PATH"]}')
    monkeypatch.setattr(deps, 'ensure_packages', lambda pkgs, log: None)
    monkeypatch.setattr(debian_root, 'machine_mirror', lambda: 'http://mirror.invalid/debian/')
    return calls


def make(tmp_path: Path) -> Path:
    return debian_root.make_root(RELEASE, Cache(tmp_path / 'cache'), lambda m: None)


def test_a_root_is_made_once_and_renamed_into_place_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_mmdebstrap(tmp_path, monkeypatch, 'mkdir -p "$target/usr/bin"')
    path = make(tmp_path)
    assert path == tmp_path / 'cache/roots/debian-13'
    assert (path / debian_root.COMPLETE).is_file()
    assert '[signed-by=' in calls.read_text()       # this keyring alone, not the machine's apt's
    make(tmp_path)
    assert len(calls.read_text().splitlines()) == 1     # made once
    assert [p.name for p in path.parent.iterdir()] == ['debian-13']


@pytest.mark.parametrize('saved, says', [
    ('no-network.txt', 'no network'),
    ('wrong-keyring.txt', 'does not check against'),
    ('disk-full.txt', 'disk full'),
    ('failed-package.txt', 'a package failed'),
])
def test_a_failed_root_is_exit_4_with_the_reason_and_nothing_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, saved: str, says: str) -> None:
    # mmdebstrap got halfway: files in its target, then its error and exit 25
    fake_mmdebstrap(tmp_path, monkeypatch, 'mkdir -p "$target/usr/bin"; touch "$target/etc"\n'
                    f'cat {SAVED / saved} >&2; exit 25')
    with pytest.raises(HarnessError) as err:
        make(tmp_path)
    assert err.value.status == Exit.ENVIRONMENT
    assert says in err.value.message and 'nothing was kept' in err.value.message
    roots = tmp_path / 'cache/roots'
    assert list(roots.iterdir()) == []      # no half-made root for the next run


def test_the_next_run_after_a_failure_makes_the_root_anew(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    flag = tmp_path / 'fail-once'
    flag.touch()
    fake_mmdebstrap(tmp_path, monkeypatch, f'mkdir -p "$target/usr"\nif [ -e {flag} ]; then '
                    f'rm {flag}; cat {SAVED / "no-network.txt"} >&2; exit 25; fi')
    with pytest.raises(HarnessError):
        make(tmp_path)
    assert (make(tmp_path) / debian_root.COMPLETE).is_file()


def test_a_partial_root_a_killed_run_left_is_removed_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_mmdebstrap(tmp_path, monkeypatch, 'mkdir -p "$target/usr"')
    stale = tmp_path / 'cache/roots/.debian-13.partial-999999999'
    (stale / 'usr/bin').mkdir(parents=True)
    make(tmp_path)
    assert not stale.exists()


def test_a_root_without_its_completion_mark_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_mmdebstrap(tmp_path, monkeypatch, 'exit 99')
    (tmp_path / 'cache/roots/debian-13/usr').mkdir(parents=True)
    with pytest.raises(HarnessError) as err:
        make(tmp_path)
    assert err.value.status == Exit.ENVIRONMENT and 'remove it' in err.value.message


def test_a_missing_keyring_names_the_package(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fake_mmdebstrap(tmp_path, monkeypatch, 'exit 99')
    with pytest.raises(HarnessError) as err:
        debian_root.make_root(RELEASE, Cache(tmp_path / 'cache'), lambda m: None,
                              keyring=tmp_path / 'none.gpg')
    assert 'apt-get install debian-archive-keyring' in err.value.message


def test_commands_keep_their_pid_and_see_repository_and_cache_at_their_paths() -> None:
    root = debian_root.Root(Path('/c/roots/debian-13'), RELEASE, (Path('/repo'), Path('/c')))
    cmd = root.command(['make', 'all'], Path('/c/trees/t'))
    assert cmd[:2] == ['unshare', '--mount'] and '--fork' not in cmd
    assert cmd[-6:] == ['/c/trees/t', '/repo', '/c', '--', 'make', 'all']


def test_installed_packages_are_read_from_the_roots_dpkg_status(tmp_path: Path) -> None:
    status = tmp_path / 'var/lib/dpkg/status'
    status.parent.mkdir(parents=True)
    status.write_text('Package: gcc\nStatus: install ok installed\n\n'
                      'Package: qemu-system-misc\nStatus: deinstall ok config-files\n')
    root = debian_root.Root(tmp_path, RELEASE, ())
    assert root.missing(['gcc', 'qemu-system-misc', 'gcc']) == ['qemu-system-misc']


def test_sh_and_loongarch64_take_debian_13_on_debian_12_only(tmp_path: Path) -> None:
    cache = Cache(tmp_path)
    on12 = Toolchains(HOST, cache, print, machine=12)
    on13 = Toolchains(HOST, cache, print, machine=13)
    forced = Toolchains('debian-13', cache, print, machine=13)
    for name in ('sh', 'loongarch64'):
        assert on12.name_for(BY_NAME[name]) == 'debian-13'
        assert on13.name_for(BY_NAME[name]) == HOST
    assert on12.name_for(BY_NAME['x86_64']) == HOST
    assert forced.name_for(BY_NAME['x86_64']) == 'debian-13'
    assert on12.for_arch(BY_NAME['x86_64']).build_suffix == ''


def test_an_unknown_toolchain_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(HarnessError) as err:
        Toolchains('debian-99', Cache(tmp_path), print)
    assert err.value.status == Exit.USAGE and 'debian-13' in err.value.message


def fake_root(tmp_path: Path, binaries: Sequence[str]) -> debian_root.Root:
    path = tmp_path / 'roots/debian-13'
    (path / 'usr/bin').mkdir(parents=True)
    for b in binaries:
        (path / 'usr/bin' / b).write_text('')
    return debian_root.Root(path, RELEASE, ())


def test_an_arch_whose_tools_are_not_in_the_root_is_exit_4_naming_the_table(
        tmp_path: Path) -> None:
    root = fake_root(tmp_path, ['sh4-linux-gnu-gcc'])     # no qemu-system-sh4
    with pytest.raises(HarnessError) as err:
        check_root_tools(BY_NAME['sh'], root, Cache(tmp_path))
    assert err.value.status == Exit.ENVIRONMENT
    assert 'qemu-system-sh4 not found in the Debian 13 (trixie) root' in err.value.message
    assert 'arches.py' in err.value.message


def test_the_tcg_wrapper_of_a_root_runs_the_roots_qemu(tmp_path: Path) -> None:
    root = fake_root(tmp_path, ['qemu-system-sh4'])
    wrappers = tcg_only(BY_NAME['sh'], Cache(tmp_path / 'cache'), Toolchain('debian-13', root))
    wrapper = tmp_path / 'cache/tcg-only/debian-13/qemu-system-sh4'
    assert "'/usr/bin/qemu-system-sh4'" in wrapper.read_text()
    assert wrappers == wrapper.parent


def test_a_root_that_could_not_be_made_is_tried_once_per_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = fake_mmdebstrap(tmp_path, monkeypatch,
                            f'cat {SAVED / "no-network.txt"} >&2; exit 25')
    chains = Toolchains(HOST, Cache(tmp_path / 'cache'), lambda m: None, machine=12)
    problems = [chains.arch_problem(BY_NAME[a]) for a in ('sh', 'loongarch64')]
    assert all(p and p.status == Exit.ENVIRONMENT and 'no network' in p.message
               for p in problems)
    assert len(calls.read_text().splitlines()) == 1


def test_a_root_needs_root_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr('rxalign.debian_root.os.geteuid', lambda: 1000)
    with pytest.raises(HarnessError) as err:
        debian_root.open_root(RELEASE, Cache(tmp_path), lambda m: None)
    assert err.value.status == Exit.ENVIRONMENT and 'run as root' in err.value.message
    assert not (tmp_path / 'roots').exists()


# ---- issue 41: each test below failed before its fix (see the docstring) ----

def test_a_bare_root_is_never_the_root_that_builds(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 12: a root made --bare (apt and the essential packages, for
    e2e-debian-13) was reused as the complete root that builds kernels."""
    calls = fake_mmdebstrap(tmp_path, monkeypatch, 'mkdir -p "$target/usr/bin"')
    cache = Cache(tmp_path / 'cache')
    bare = debian_root.make_root(RELEASE, cache, lambda m: None, include=())
    full = debian_root.make_root(RELEASE, cache, lambda m: None)
    assert bare != full and full == tmp_path / 'cache/roots/debian-13'
    made = calls.read_text().splitlines()
    assert len(made) == 2 and '--include=' not in made[0] and '--include=make,' in made[1]
    assert debian_root.make_root(RELEASE, cache, lambda m: None, include=()) == bare


def test_a_root_made_before_its_package_list_grew_gets_what_it_lacks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Item 12: a root made before ROOT_PACKAGES grew was reused as complete:
    what it holds is read from its own dpkg status, and what it lacks installed."""
    # a root made when the list had no bc: its dpkg status has every other one
    status = ''.join(f'Package: {p}\nStatus: install ok installed\n\n'
                     for p in debian_root.ROOT_PACKAGES if p != 'bc')
    fake_mmdebstrap(tmp_path, monkeypatch, 'mkdir -p "$target/var/lib/dpkg"\n'
                    f'printf \'{status}\' > "$target/var/lib/dpkg/status"')
    monkeypatch.setattr('rxalign.debian_root.os.geteuid', lambda: 0)
    monkeypatch.setattr(shutil, 'copyfile', lambda a, b: None)   # no resolv.conf to copy
    ran: List[Sequence[str]] = []

    def run(self: debian_root.Root, cmd: Sequence[str], cwd: Optional[Path] = None,
            env: Optional[Dict[str, str]] = None) -> 'subprocess.CompletedProcess[str]':
        ran.append(cmd)
        return subprocess.CompletedProcess(list(cmd), 0, '', '')
    monkeypatch.setattr(debian_root.Root, 'run', run)
    root = debian_root.open_root(RELEASE, Cache(tmp_path / 'cache'), lambda m: None)
    assert root.path == tmp_path / 'cache/roots/debian-13'
    assert [list(cmd) for cmd in ran if cmd[:2] == ['apt-get', 'install']] == \
        [['apt-get', 'install', '-y', '-q', '--no-install-recommends', 'bc']], ran


def test_firmware_missing_in_the_root_is_checked_as_on_the_machine(tmp_path: Path) -> None:
    """One check of an arch's tools (deps.check_arch_tools) for the machine and
    a root: the firmware the QEMU loads is looked for inside the root, and
    the fix names the arch table, not apt-get."""
    igb = BY_NAME['x86_64-igb']
    root = fake_root(tmp_path, ['gcc', 'qemu-system-x86_64'])
    with pytest.raises(HarnessError) as err:
        check_root_tools(igb, root, Cache(tmp_path))
    assert err.value.status == Exit.ENVIRONMENT
    assert err.value.message.startswith(
        f'x86_64-igb: QEMU firmware {igb.firmware[0]} is missing in the Debian 13 (trixie) '
        f'root {root.path}; the arch table\'s packages')
    for fw in igb.firmware:
        (root.path / fw.lstrip('/')).parent.mkdir(parents=True, exist_ok=True)
        (root.path / fw.lstrip('/')).write_text('')
    check_root_tools(igb, root, Cache(tmp_path))
    with pytest.raises(HarnessError) as err:      # the machine's: what apt-get brings
        deps.check_arch_tools(igb, deps.Place(which=lambda b: f'/usr/bin/{b}',
                                              exists=lambda f: False))
    assert err.value.message == (f'x86_64-igb: QEMU firmware {igb.firmware[0]} is missing; '
                                 f'apt-get install {" ".join(igb.packages)}')
