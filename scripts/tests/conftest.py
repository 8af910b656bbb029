"""Shared fixtures: kunit.py's own parser, and a fake kernel tree for the harness."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Iterable, Iterator, List

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rxalign.kunit_driver import load_kunit_parser  # noqa: E402

TARBALL = Path('/usr/src/linux-source-6.12.tar.xz')


@pytest.fixture(scope='session')
def kunit_tools(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tools/testing/kunit from linux-source-6.12: the parser the harness uses."""
    dest = tmp_path_factory.mktemp('kunit-tools')
    subprocess.run(['tar', '-xJf', str(TARBALL), '-C', str(dest), '--strip-components=1',
                    '--wildcards', '*/tools/testing/kunit/*.py'], check=True)
    return dest / 'tools/testing/kunit'


@pytest.fixture(scope='session')
def parser(kunit_tools: Path) -> ModuleType:
    return load_kunit_parser(kunit_tools)


FAKE_KUNIT = '''\
#!/usr/bin/env python3
"""A stand-in for kunit.py: each phase does what RXALIGN_FAKE says."""
import os, subprocess, sys, time
mode = os.environ.get('RXALIGN_FAKE', 'pass')
sub = sys.argv[1]
args = dict(a[2:].split('=', 1) for a in sys.argv[2:] if a.startswith('--') and '=' in a)
build = args['build_dir']
os.makedirs(build, exist_ok=True)
with open(os.path.join(build, 'calls.log'), 'a') as calls:
    calls.write(sub + '\\n')
if sub == 'config':   # kunit.py keeps the kunitconfig it configured with
    lines = ''.join(open(a.split('=', 1)[1]).read() for a in sys.argv[2:]
                    if a.startswith('--kunitconfig='))
    for name in ('last_used_kunitconfig', '.config'):
        with open(os.path.join(build, name), 'w') as f:
            f.write(lines)
if sub == 'exec':
    timeout = int(args['timeout'])
    arch = os.path.basename(build.rstrip('/'))
    mode = os.environ.get('RXALIGN_FAKE_MODE_' + arch, mode)     # one arch's own mode
    with open(os.path.join(build, 'exec-args.log'), 'w') as f:
        f.write('\\n'.join(sys.argv[2:]) + '\\n')
    if os.environ.get('RXALIGN_FAKE_KILL_ARCH') == arch:
        # a CI job killed mid-run (OOM, a runner's timeout): run-kunit dies
        # by SIGKILL before it writes any results
        os.kill(os.getppid(), 9)
        time.sleep(60)
    ktap = os.environ.get('RXALIGN_FAKE_KTAP_' + arch, os.environ.get('RXALIGN_FAKE_KTAP', ''))
    text = open(ktap).read() if ktap else ''
    if mode == 'spin':
        # kunit.py --raw_output=all: the console on stdout as it comes, then a
        # guest that never exits (a kernel spinning after a panic, or silent),
        # until kunit.py's own --timeout terminates "QEMU".
        log = open(os.path.join(build, 'test.log'), 'w')
        for line in text.splitlines(keepends=True):
            sys.stdout.write(line)
            sys.stdout.flush()
            log.write(line)
        qemu = subprocess.Popen(['sleep', str(timeout)])
        code = qemu.wait()
        log.close()
        if code == 0:
            print(f"Command '['qemu']' timed out after {timeout} seconds")
        sys.exit(1)
    sys.stdout.write(text)      # --raw_output=all: the console, as the guest prints it
    sys.stdout.flush()
    with open(os.path.join(build, 'test.log'), 'w') as log:
        log.write(text)
    if mode == 'hang':
        time.sleep(timeout)
        print(f"Command '['qemu']' timed out after {timeout} seconds")
    sys.exit(0 if mode == 'pass' else 1)
'''


FAKE_MAKE = '''\
#!/usr/bin/env python3
"""A stand-in for the kernel's make: RXALIGN_FAKE=buildfail fails it,
RXALIGN_FAKE_MAKE=drop makes it lose CONFIG_KUNIT as a Kconfig change would;
ccache.log says whether each call had ccache (CCACHE_DISABLE)."""
import os, sys
build = next(a[2:] for a in sys.argv[1:] if a.startswith('O='))
with open(os.path.join(build, 'calls.log'), 'a') as calls:
    calls.write('make\\n')
with open(os.path.join(build, 'ccache.log'), 'a') as ccache:
    ccache.write('off\\n' if os.environ.get('CCACHE_DISABLE') == '1' else 'on\\n')
if os.environ.get('RXALIGN_FAKE') == 'buildfail':
    print('net/core/tests/rx_align_kunit.c:1:1: error: expected ; before }')
    sys.exit(2)
if os.environ.get('RXALIGN_FAKE_MAKE') == 'drop':
    config = os.path.join(build, '.config')
    kept = [ln for ln in open(config) if not ln.startswith('CONFIG_KUNIT=')]
    open(config, 'w').writelines(kept)
open(os.path.join(build, 'vmlinux'), 'w').close()
'''


@pytest.fixture
def fake_tree(tmp_path: Path, kunit_tools: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory that passes for a kernel tree: Kbuild hooks, a fake kunit.py,
    and a fake make first on PATH."""
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    (bin_dir / 'make').write_text(FAKE_MAKE)
    (bin_dir / 'make').chmod(0o755)
    monkeypatch.setenv('PATH', f'{bin_dir}:{os.environ["PATH"]}')
    tree = tmp_path / 'linux'
    kunit = tree / 'tools/testing/kunit'
    kunit.mkdir(parents=True)
    for f in ('kunit_parser.py', 'kunit_printer.py', 'kunit_config.py', 'kunit_json.py'):
        (kunit / f).write_text((kunit_tools / f).read_text())
    (kunit / 'kunit.py').write_text(FAKE_KUNIT)
    (tree / 'Makefile').write_text('# fake\n')
    (tree / 'net/core').mkdir(parents=True)
    (tree / 'net/Kconfig').write_text(textwrap.dedent('''\
        if NET
        config NET_TEST
        \ttristate "x"
        endif   # if NET
        '''))
    (tree / 'net/core/Makefile').write_text('obj-y += skbuff.o\n')
    (tree / 'net/core/skbuff.c').write_text('int skb_pad = 32;\n')
    return tree


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests run the same in a CI job: run-kunit reads $CI (--ci)."""
    monkeypatch.delenv('CI', raising=False)


@pytest.fixture
def cache_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / 'cache'
    monkeypatch.setenv('RXALIGN_CACHE', str(root))
    yield root


@pytest.fixture
def package_checks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> List[str]:
    """No apt: every package check run-kunit makes is recorded; the fake tree
    takes no kernel series, only the fixture's kunit-tests, and boots to a
    passing KTAP."""
    from rxalign import deps, report_main, run_kunit
    import faults
    calls: List[str] = []

    def record(pkgs: Iterable[str], log: object = None) -> List[str]:
        calls.extend(pkgs)
        return []
    monkeypatch.setattr(deps, 'missing_packages', record)
    monkeypatch.setattr(deps, 'check_arch_tools', lambda arch: None)
    (tmp_path / 'no-series').mkdir()
    monkeypatch.setattr(run_kunit, 'SERIES_DIR', tmp_path / 'no-series')
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')
    monkeypatch.setattr(report_main, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))
    return calls
