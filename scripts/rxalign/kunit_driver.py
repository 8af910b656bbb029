"""Drive the tree's own tools/testing/kunit/kunit.py for one arch, phase by phase.

kunit.py returns 1 for a failed build, a kernel that never booted, a timeout
and a failing test alike; calling config, build and exec separately tells
them apart and gives each phase its own time and log.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import inspect
import io
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .arch_plan import ArchPlan, RunSettings, plan
from .arches import Arch
from .cache import Cache, Lock
from .console import RESULT as RESULT_LINE, PANIC as PANIC_LINE, TIMESTAMP
from .fmt import seconds as fmt_seconds
from .live import SuiteProgress
from .kconfig import defined_here, kernel_kconfig, tree_symbols
from .initramfs import BUSYBOX, GuestBuildError, kconfig as initramfs_kconfig
from .paths import KMEMLEAK_INIT
from .procs import bounded, group_members
from .ktap_log import KtapLog
from .results import ArchRun
from .build_env import build_env
from .toolchains import Toolchain, env_for

Progress = Callable[[str], None]



TCG_ONLY = """#!{python}
# Written by rx-align: {real} in TCG only.  kunit.py of newer trees (7.3)
# asks for "-accel kvm -accel hvf -accel tcg"; where /dev/kvm exists but
# nested KVM hangs, the guest then never prints.  The same arguments
# without the kvm and hvf accelerators.
import os
import sys

args = sys.argv[1:]
keep = [a for i, a in enumerate(args)
        if not (a == '-accel' and i + 1 < len(args) and args[i + 1].split(',')[0] in ('kvm', 'hvf'))
        and not (i > 0 and args[i - 1] == '-accel' and a.split(',')[0] in ('kvm', 'hvf'))]
os.execv({real!r}, [{real!r}] + keep)
"""


def tcg_only(arch: Arch, cache: Cache, env: Dict[str, str],
             toolchain: Optional[Toolchain] = None) -> None:
    """Put a wrapper for the arch's QEMU first on @env's PATH that keeps it in TCG
    (the QEMU of @toolchain's root, where it has one: the wrapper runs in there)."""
    root = toolchain.root if toolchain else None
    if not arch.qemu_binary:
        return
    real = (root.which(arch.qemu_binary) if root
            else shutil.which(arch.qemu_binary, path=env.get('PATH')))
    if not real:
        return
    wrappers = cache.root / 'tcg-only' / (toolchain.build_suffix if toolchain else '')
    wrappers.mkdir(parents=True, exist_ok=True)
    wrapper = wrappers / arch.qemu_binary
    text = TCG_ONLY.format(python=sys.executable, real=real)
    if not wrapper.is_file() or wrapper.read_text() != text:
        tmp = wrapper.with_suffix('.tmp')
        tmp.write_text(text)
        tmp.chmod(0o755)
        os.replace(tmp, wrapper)
    env['PATH'] = f'{wrappers}:{env.get("PATH", "")}'


def kunit_args(p: ArchPlan, s: RunSettings, booting: bool) -> List[str]:
    """Arguments every kunit.py subcommand gets, so config and build agree:
    config as the entry that builds the kernel, exec as the one that boots it."""
    arch = p.arch if booting else p.builder
    args = [f'--build_dir={p.build_dir}']
    args += [f'--kunitconfig={k}' for k in p.kunitconfigs(s.profile.fragments(), s.slim_kept,
                                                           booting)]
    args.append((p.boot if booting else p.configure).kunit_arg)
    if arch.cross_compile:
        args.append(f'--cross_compile={arch.cross_compile}')
    args += [f'--make_options={o}' for o in make_options(arch)]
    return args


def make_options(arch: Arch) -> List[str]:
    """What make gets besides ARCH and O: the compilers, through ccache."""
    if not shutil.which('ccache'):
        return []
    return [f'CC=ccache {arch.cross_compile}gcc', 'HOSTCC=ccache gcc']


# The drivers suite takes over the NICs it is given (module parameter), by MAC
# address: their interface names follow the drivers' probe order.
MODULE = 'rx_align_drivers_kunit'    # the drivers suite's module: its parameters
NICS_PARAM = f'{MODULE}.nics'
# The helpers print a passing frame's rx_align_frame: line only when asked: the
# reports tabulate every frame, a plain kunit.py run shows the failing ones.
FRAME_LINES_ARG = '--kernel_args=rx_align_kunit_helpers.frame_lines=1'


def free_udp_port() -> int:
    """A UDP port on 127.0.0.1 nobody holds now: a lone NIC's loop (arches)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(('127.0.0.1', 0))
        return int(s.getsockname()[1])


def nic_exec_args(arch: Arch) -> List[str]:
    """kunit.py exec: the arch's NICs on one hub, and how many the suite must find."""
    port = free_udp_port() if len(arch.nics) == 1 else 0
    return [f'--qemu_args={shlex.join(arch.nic_qemu_args(port))}',
            f'--kernel_args={NICS_PARAM}={",".join(arch.nic_macs())}',
            *(f'--kernel_args={a}' for a in arch.bystander_kernel_args()),
            *(f'--kernel_args={MODULE}.{p}' for p in arch.nic_params),
            *(f'--kernel_args={a}' for a in arch.nic_kernel_args)]


def dtb_args(arch: Arch, build_dir: Path) -> List[str]:
    """kunit.py exec: the board's device tree, from the build (`make dtbs`
    puts it under a vendor directory since 6.5, flat before)."""
    if not arch.dtb:
        return []
    found = sorted(build_dir.glob(f'arch/*/boot/dts/**/{arch.dtb}'))
    # a missing one is left to QEMU, whose error names the file
    path = found[0] if found else build_dir / 'arch' / arch.kunit_arch / 'boot/dts' / arch.dtb
    return [f'--qemu_args=-dtb {shlex.quote(str(path))}']


def panic_args(arch: Arch) -> List[str]:
    """A panic ends the guest at once: the kernel reboots (panic=-1) and kunit.py's
    QEMU, started with -no-reboot, exits. UML has no QEMU to exit; the console
    watch stops it."""
    return ['--kernel_args=panic=-1'] if arch.qemu_binary else []


# Every parse of a console log is bounded: kunit_parser loops forever, growing,
# on some logs (a bare `1..0` among a parameterised case's results).
PARSE_SECONDS = 60.0
PARSE_MEMORY = 1 << 30


def load_kunit_parser(kunit_tools: Path) -> ModuleType:
    """The tree's own KTAP parser, with its terminal output silenced, each parse
    in a child process bounded in time and memory (procs.Unfinished if it is
    not done within them)."""
    parser = kunit_tool(kunit_tools, 'kunit_parser')
    printer = kunit_tool(kunit_tools, 'kunit_printer')
    quiet = printer.Printer(output=io.StringIO())
    parser.stdout = quiet  # type: ignore[attr-defined]
    # the tree's own function, not the wrapper a load before this one put there
    run_tests = getattr(parser, 'rxalign_parse_run_tests', parser.parse_run_tests)
    parser.rxalign_parse_run_tests = run_tests  # type: ignore[attr-defined]
    # newer trees (7.3) take the printer as an argument: one call shape for all
    takes_printer = 'printer' in inspect.signature(run_tests).parameters

    def parse(ktap: List[str]) -> Any:
        return run_tests(ktap, quiet) if takes_printer else run_tests(ktap)

    def parse_run_tests(lines: Iterable[str]) -> Any:
        # Blank lines mean nothing in KTAP, but QEMU's sparc32 console doubles
        # every newline, and 6.1's parser stops at the first one after "1..N".
        ktap = [line for line in lines if line.strip()]
        return bounded(parse, ktap, seconds=PARSE_SECONDS, memory=PARSE_MEMORY)

    parser.parse_run_tests = parse_run_tests  # type: ignore[attr-defined]
    return parser


def write_kunit_json(tree: Path, ktap: KtapLog, out: Path, arch: Arch, build_dir: Path) -> None:
    """kunit.json, by kunit.py's own writer, from the parse the verdict read: exec
    runs with --raw_output=all (so the console can be watched as it comes),
    which makes kunit.py skip its --json. None where the parser did not finish
    (the verdict says why the log cannot be read)."""
    if ktap.root is None:
        return
    kunit_json = kunit_tool(tree / 'tools/testing/kunit', 'kunit_json')
    meta = kunit_json.Metadata(arch=arch.kunit_arch, build_dir=str(build_dir),
                               def_config='kunit_defconfig')
    out.write_text(kunit_json.get_json_result(test=ktap.root, metadata=meta))


def kunit_tool(kunit_tools: Path, name: str) -> ModuleType:
    """One of the tree's tools/testing/kunit modules (kunit_parser, kunit_config, ...)."""
    path = str(kunit_tools)
    if path not in sys.path:
        sys.path.insert(0, path)
    return importlib.import_module(name)


STAMP = '.rxalign-build-stamp'
CONFIG_STAMP = '.rxalign-config-stamp'


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else 'absent'


def config_stamp(p: ArchPlan, s: RunSettings, cmds: List[List[str]]) -> str:
    """What kunit.py's .config is made of, the tree aside: our config files,
    the kunit.py command lines (kconfig_add, make options), the compiler."""
    gcc = p.toolchain.version(f'{p.builder.cross_compile}gcc')
    files = [*s.profile.fragments(), *p.stamp_files]
    if s.profile.debug:
        files += [KMEMLEAK_INIT, BUSYBOX]
    inputs = {'gcc': gcc, 'cmds': cmds, 'files': {str(f): _digest(f) for f in files}}
    return hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest()


def build_stamp(tree: Path, config: str) -> str:
    """Everything a build depends on: the config inputs and the tree's content."""
    content = subprocess.run(['git', 'rev-parse', 'HEAD^{tree}'], cwd=tree, capture_output=True,
                             text=True, check=False).stdout.strip()
    return hashlib.sha256(f'{config} {content or "not a git tree"}'.encode()).hexdigest()


def kunit_make(p: ArchPlan, s: RunSettings) -> List[str]:
    """The make `kunit.py build` runs (kunit_kernel.py), for the one image QEMU
    boots: `all compile_commands.json` builds every boot wrapper of the arch
    (ppc32 links and gzips four zImages nobody boots) and an editor index."""
    arch = p.builder
    cmd = ['make', *p.make_targets, f'ARCH={arch.kunit_arch}', f'O={p.build_dir}',
           f'--jobs={s.jobs}', *make_options(arch)]
    if arch.cross_compile:
        cmd.append(f'CROSS_COMPILE={arch.cross_compile}')
    return cmd


def config_lost(tree: Path, build_dir: Path) -> List[str]:
    """The check `kunit.py build` makes after its olddefconfig
    (kunit_kernel.validate_config), with kunit.py's own kconfig parser: the
    lines of the kunitconfig kunit.py config saved that .config lost."""
    saved = build_dir / 'last_used_kunitconfig'
    if not saved.is_file():
        return [f'{saved.name} (kunit.py config never finished here)']
    kconfig = kunit_tool(tree / 'tools/testing/kunit', 'kunit_config')
    want, have = kconfig.parse_file(str(saved)), kconfig.parse_file(str(build_dir / '.config'))
    if want.is_subset_of(have):
        return []
    lost: List[str] = sorted(str(e) for e in set(want.as_entries()) - set(have.as_entries()))
    return lost


def _kernel_built(build_dir: Path) -> bool:
    return (build_dir / 'vmlinux').is_file() or (build_dir / 'linux').is_file()


def _run(cmd: List[str], log: Path, env: Dict[str, str], cwd: Path,
         timeout: Optional[float] = None,
         watch: Optional['ConsoleWatch'] = None, lock: Optional[Lock] = None) -> Tuple[int, bool]:
    """Run one kunit.py phase in its own process group; append output to log.

    The child inherits the cache lock's fd (and make's children with it), and
    the lock file names its process group: a new run cannot take the cache
    while any of them lives, even after this process died by SIGKILL."""
    with open(log, 'a', encoding='utf-8', errors='replace') as out:
        out.write('$ ' + ' '.join(cmd) + '\n')
        out.flush()
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, cwd=cwd, start_new_session=True,
                                pass_fds=(lock.fileno(),) if lock else ())
        if lock:
            lock.adopt(proc.pid)
        deadline = time.monotonic() + timeout if timeout else None
        try:
            while True:
                try:
                    return proc.wait(timeout=POLL if watch else
                                     (max(0.0, deadline - time.monotonic()) if deadline
                                      else None)), False
                except subprocess.TimeoutExpired:
                    if deadline and time.monotonic() > deadline:
                        raise
                if watch and watch.poll():
                    return _stop_guest(proc), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return -9, True
        except BaseException:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise


POLL = 0.5          # seconds between two looks at the console
KUNIT_GRACE = 30    # kunit.py's own --timeout is later than ours: ours decides
PANIC_GRACE = 5.0   # after "Kernel panic", time for the rest of the message
STOP_GRACE = 10.0   # for kunit.py to write test.log once its guest is gone


class ConsoleWatch:
    """Reads the console as kunit.py --raw_output=all prints it, and says when to
    stop the guest: a panic message with no test result after it for
    PANIC_GRACE seconds (a kernel that ignores panic=-1 spins forever), no
    new output for `idle` seconds (a hung guest), or `limit` seconds since it
    began (--timeout: measured here, never read from what the console says)."""

    def __init__(self, log: Path, idle: float,
                 on_line: Optional[Callable[[str], None]] = None,
                 limit: Optional[float] = None) -> None:
        self.log = log
        self.idle = idle
        self.on_line = on_line               # each console line, as it comes
        self.offset = 0
        self.last_output = time.monotonic()
        self.deadline = self.last_output + limit if limit else None
        self.panic_at: Optional[float] = None
        self.stopped = ''                    # 'panic', 'idle' or 'timeout', once poll() said stop
        self._partial = ''

    def read(self) -> None:
        """The lines the console printed since the last look."""
        now = time.monotonic()
        with open(self.log, 'rb') as f:
            f.seek(self.offset)
            data = f.read()
        if data:
            self.offset += len(data)
            self.last_output = now
            lines = (self._partial + data.decode(errors='replace')).split('\n')
            self._partial = lines.pop()
            for raw in lines:
                line = TIMESTAMP.sub('', raw)
                if self.on_line:
                    self.on_line(line)
                if PANIC_LINE.match(line) and self.panic_at is None:
                    self.panic_at = now
                elif RESULT_LINE.match(line):
                    self.panic_at = None     # the run went on: words of a test, not a panic

    def poll(self) -> bool:
        self.read()
        now = time.monotonic()
        if self.panic_at is not None and now - self.panic_at > PANIC_GRACE:
            self.stopped = 'panic'
        elif self.deadline is not None and now > self.deadline:
            self.stopped = 'timeout'
        elif now - self.last_output > self.idle:
            self.stopped = 'idle'
        return bool(self.stopped)


def _stop_guest(proc: 'subprocess.Popen[bytes]') -> int:
    """End the guest, not kunit.py: with its QEMU gone, kunit.py reads the end of
    the console, writes test.log and exits; if it does not, or there is no guest
    to end (kunit.py itself hangs), kill the group."""
    guests = [pid for pid in group_members(proc.pid) if pid != proc.pid]
    for pid in guests:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    try:
        return proc.wait(timeout=STOP_GRACE if guests else 0.5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return proc.wait()


@dataclasses.dataclass(frozen=True)
class Phase:
    """One kunit.py step of an arch's run."""
    name: str                       # config, build or run: its key in ArchRun.seconds
    verb: str                       # what the progress line says it is doing
    cmd: List[str]
    log: Path
    limit: Optional[float] = None   # seconds before it is stopped


def run_arch(arch: Arch, s: RunSettings, out_dir: Path, progress: Progress) -> ArchRun:
    out_dir.mkdir(parents=True, exist_ok=True)
    p = plan(arch, s)           # config and build as its builder, boot as this entry
    build_dir = p.build_dir
    build_dir.mkdir(parents=True, exist_ok=True)
    kunit = [sys.executable, str(s.tree / 'tools/testing/kunit/kunit.py')]
    built = _kernel_built(build_dir)
    env = env_for(p.toolchain, build_env(s.cache,
                                         first_build=not built and not s.ccache_first_build))
    tcg_only(arch, s.cache, env, p.toolchain)
    build_log = out_dir / 'build.log'
    build_log.write_text('')
    result = ArchRun(arch=arch.name, build_log=build_log, kmemleak=p.kmemleak,
                     build_dir=build_dir)

    try:
        initramfs = initramfs_kconfig(p, s.tree, env, build_log)
    except GuestBuildError as e:
        progress(f'guest program: {e}')
        result.phase_failed = 'config'
        return result
    lines, gone = defined_here(kernel_kconfig(arch, s.profile), tree_symbols(s.tree))
    adds = [f'--kconfig_add={line}' for line in (*lines, *initramfs)]
    configure = Phase('config', 'configuring',
                      [*kunit, 'config', *kunit_args(p, s, booting=False), *adds], build_log)
    build = Phase('build', 'building', kunit_make(p, s), build_log)
    boot = Phase('run', 'booting and running',
                 [*kunit, 'exec', *kunit_args(p, s, booting=True), *adds,
                  f'--timeout={s.timeout + KUNIT_GRACE}', '--raw_output=all', FRAME_LINES_ARG,
                  *panic_args(arch),
                  *(nic_exec_args(arch) if s.drivers else []),
                  *([s.filter_glob] if s.filter_glob else [])],
                 out_dir / 'kunit-exec.log', s.timeout + KUNIT_GRACE + 90.0)
    phases = [configure, build, boot]
    # kunit.py config writes .config (olddefconfig, then its check that every
    # kunitconfig line survived); the build is the make kunit.py build would
    # run after its own olddefconfig, which repeats kunit.py config's (7 s of
    # $(cc-option) probes per arch).  make re-syncs .config itself when a
    # Kconfig file changed, so config_lost() repeats kunit.py's check after it.
    # Two stamps skip work: the config inputs unchanged since the last good
    # build -> no kunit.py config; the tree unchanged too -> no make either
    # (make alone costs 10-30 s here with nothing to do), boot what is there.
    stamp_file, config_file = build_dir / STAMP, build_dir / CONFIG_STAMP
    config = config_stamp(p, s, [configure.cmd, [a for a in build.cmd
                                             if not a.startswith('--jobs=')]])
    stamp = build_stamp(s.tree, config)
    if built and stamp_file.is_file() and stamp_file.read_text() == stamp:
        progress('build up to date (same tree, config and compiler): not rebuilt')
        build_log.write_text(f'build stamp {stamp} matches {stamp_file}: the tree, the config '
                             'inputs and the compiler are those of the last good build, so '
                             'kunit.py config and make were not run\n')
        result.seconds.update(config=0.0, build=0.0)
        result.reused = True
        phases = [boot]
    elif built and config_file.is_file() and config_file.read_text() == config:
        build_log.write_text(f'config stamp {config} matches {config_file}: only the tree '
                             'changed, so kunit.py config was not run\n')
        result.seconds['config'] = 0.0
        phases = [build, boot]
    else:
        config_file.unlink(missing_ok=True)
    if gone:
        with open(build_log, 'a', encoding='utf-8') as out:
            out.write('left out of --kconfig_add, no Kconfig file of this tree defines their '
                      f'symbols: {", ".join(gone)}\n')
    if p.lacks:
        progress(f'without {", ".join(p.lacks)}: arch/{arch.srcarch} does not offer it')
        with open(build_log, 'a', encoding='utf-8') as out:
            out.write(f'left out of --kunitconfig, arch/{arch.srcarch}/Kconfig selects no '
                      f'capability they need: {", ".join(p.lacks)}\n')
    if phases[0] is not boot:
        # a build that fails or is cut short leaves no stamp to trust
        stamp_file.unlink(missing_ok=True)
    for phase in phases:
        name, verb, cmd, log = phase.name, phase.verb, phase.cmd, phase.log
        progress(f'{verb}...')
        if phase is boot:
            log.write_text('')
            (build_dir / 'test.log').unlink(missing_ok=True)
            cmd = [*cmd, *dtb_args(arch, build_dir)]     # built by now
        start = time.monotonic()
        watch = (ConsoleWatch(log, s.idle_timeout, SuiteProgress(progress).feed, s.timeout)
                 if phase is boot else None)
        rc, killed = _run(p.toolchain.command(cmd, s.tree), log,
                          dict(env, PYTHONUNBUFFERED='1') if watch else env,
                          s.tree, phase.limit, watch, s.lock)
        if watch:
            watch.read()                     # what came after the last look: the last suites
        result.seconds[name] = round(time.monotonic() - start, 1)
        progress(f'{verb} done in {fmt_seconds(result.seconds[name])}'
                 + ('' if rc == 0 or phase is boot else f' (failed, see {log})'))
        if phase is boot:
            ktap = build_dir / 'test.log'
            if ktap.exists():
                shutil.copyfile(ktap, out_dir / 'ktap.log')
                result.ktap_log = out_dir / 'ktap.log'
            # from the process: our --timeout, or the outer limit that kills it all
            result.timed_out = killed or bool(watch and watch.stopped == 'timeout')
            if watch and watch.stopped == 'idle':
                result.hung = int(watch.idle)
            break
        if rc != 0:
            result.phase_failed = name
            if phase is configure:
                return result       # its .config, if any, is an earlier build's
            break
        lost = config_lost(s.tree, build_dir) if phase is build else []
        if lost:
            with open(build_log, 'a', encoding='utf-8') as out:
                out.write('Not all Kconfig options selected in kunitconfig were in the '
                          'generated .config.\nMissing: ' + ', '.join(lost) + '\n')
            config_file.unlink(missing_ok=True)
            result.phase_failed = 'config'
            break
        if phase is build:
            stamp_file.write_text(stamp)
            config_file.write_text(config)
    keep_config(result, out_dir)
    return result


def keep_config(result: ArchRun, out_dir: Path) -> None:
    """<arch>/config in the results: the .config the kernel was built with
    (or the one that lost a kunitconfig line), for the reports to link."""
    if result.config and result.config.is_file():
        shutil.copyfile(result.config, out_dir / 'config')
        result.config_copy = out_dir / 'config'
