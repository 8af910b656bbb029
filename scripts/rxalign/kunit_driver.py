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
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .arch_plan import KUNIT_GRACE, KUNIT_PY, ArchPlan, RunSettings, plan
from .arches import Arch
from .cache import Lock
from .console import PANIC as PANIC_LINE
from .ktap_nesting import RESULT as RESULT_LINE, TIMESTAMP
from .fmt import seconds as fmt_seconds
from .live import SuiteProgress
from .initramfs import BUSYBOX, GuestBuildError, kconfig as initramfs_kconfig
from .paths import KMEMLEAK_INIT
from .procs import bounded, group_members
from .ktap_log import KtapLog
from .results import ArchRun

Progress = Callable[[str], None]



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
        self.killed = False                  # the outer limit killed it all (_run)
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


@dataclasses.dataclass(frozen=True)
class Stamps:
    """What the last good build of a build dir was made of (config_stamp,
    build_stamp), and the files that keep it."""
    config: str
    build: str
    config_file: Path
    build_file: Path

    def matches(self, build: bool) -> bool:
        f, want = (self.build_file, self.build) if build else (self.config_file, self.config)
        return f.is_file() and f.read_text() == want


def phases(p: ArchPlan, s: RunSettings, initramfs: List[str], build_log: Path,
           exec_log: Path) -> Tuple[Phase, Phase, Phase]:
    """kunit.py config, make and kunit.py exec, as @p says; the --kconfig_add
    lines of the plan and of the initramfs (initramfs.kconfig, built by now)."""
    kunit = [sys.executable, str(s.tree / KUNIT_PY)]
    adds = [f'--kconfig_add={line}' for line in (*p.kconfig_add, *initramfs)]
    return (Phase('config', 'configuring', [*kunit, 'config', *p.config_args, *adds],
                  build_log),
            Phase('build', 'building', list(p.make_command), build_log),
            Phase('run', 'booting and running',
                  [*kunit, 'exec', *p.exec_args, *adds, *p.exec_tail], exec_log,
                  s.timeout + KUNIT_GRACE + 90.0))


def stamps(p: ArchPlan, s: RunSettings, configure: Phase, build: Phase) -> Stamps:
    config = config_stamp(p, s, [configure.cmd, [a for a in build.cmd
                                             if not a.startswith('--jobs=')]])
    return Stamps(config, build_stamp(s.tree, config), p.build_dir / CONFIG_STAMP,
                  p.build_dir / STAMP)


def to_run(all_phases: Tuple[Phase, Phase, Phase], st: Stamps, built: bool, result: ArchRun,
           progress: Progress) -> List[Phase]:
    """kunit.py config writes .config (olddefconfig, then its check that every
    kunitconfig line survived); the build is the make kunit.py build would
    run after its own olddefconfig, which repeats kunit.py config's (7 s of
    $(cc-option) probes per arch).  make re-syncs .config itself when a
    Kconfig file changed, so config_lost() repeats kunit.py's check after it.
    Two stamps skip work: the config inputs unchanged since the last good
    build -> no kunit.py config; the tree unchanged too -> no make either
    (make alone costs 10-30 s here with nothing to do), boot what is there."""
    configure, build, boot = all_phases
    assert result.build_log
    if built and st.matches(build=True):
        progress('build up to date (same tree, config and compiler): not rebuilt')
        result.build_log.write_text(
            f'build stamp {st.build} matches {st.build_file}: the tree, the config '
            'inputs and the compiler are those of the last good build, so '
            'kunit.py config and make were not run\n')
        result.seconds.update(config=0.0, build=0.0)
        result.reused = True
        return [boot]
    if built and st.matches(build=False):
        result.build_log.write_text(f'config stamp {st.config} matches {st.config_file}: only '
                                    'the tree changed, so kunit.py config was not run\n')
        result.seconds['config'] = 0.0
        return [build, boot]
    st.config_file.unlink(missing_ok=True)
    return [configure, build, boot]


def left_out(p: ArchPlan, build_log: Path, progress: Progress) -> None:
    """build.log names the lines of ours this tree and arch cannot have."""
    with open(build_log, 'a', encoding='utf-8') as out:
        if p.kconfig_gone:
            out.write('left out of --kconfig_add, no Kconfig file of this tree defines their '
                      f'symbols: {", ".join(p.kconfig_gone)}\n')
        if p.lacks:
            progress(f'without {", ".join(p.lacks)}: arch/{p.arch.srcarch} does not offer it')
            out.write(f'left out of --kunitconfig, arch/{p.arch.srcarch}/Kconfig selects no '
                      f'capability they need: {", ".join(p.lacks)}\n')


def run_arch(arch: Arch, s: RunSettings, out_dir: Path, progress: Progress) -> ArchRun:
    """Configure, build and boot @arch as its plan says (the stamps skip what
    is done already): what happened, for the verdict."""
    out_dir.mkdir(parents=True, exist_ok=True)
    p = plan(arch, s)           # config and build as its builder, boot as this entry
    env = p.env
    build_log = out_dir / 'build.log'
    build_log.write_text('')
    result = ArchRun(arch=arch.name, build_log=build_log, kmemleak=p.kmemleak,
                     build_dir=p.build_dir)
    try:
        initramfs = initramfs_kconfig(p, s.tree, env, build_log)
    except GuestBuildError as e:
        progress(f'guest program: {e}')
        result.phase_failed = 'config'
        return result
    steps = phases(p, s, initramfs, build_log, out_dir / 'kunit-exec.log')
    st = stamps(p, s, steps[0], steps[1])
    todo = to_run(steps, st, p.built, result, progress)
    left_out(p, build_log, progress)
    if todo[0] is not steps[2]:
        # a build that fails or is cut short leaves no stamp to trust
        st.build_file.unlink(missing_ok=True)
    for phase in todo:
        rc, watch = run_phase(phase, p, s, env, result, progress)
        if watch:
            booted(result, watch, out_dir)
            break
        if rc != 0:
            result.phase_failed = phase.name
            if phase is steps[0]:
                return result       # its .config, if any, is an earlier build's
            break
        if phase is steps[1] and not built_whole(p, s, st, result):
            break
    keep_config(result, out_dir)
    return result


def run_phase(phase: Phase, p: ArchPlan, s: RunSettings, env: Dict[str, str],
              result: ArchRun, progress: Progress) -> Tuple[int, Optional['ConsoleWatch']]:
    """One phase, timed; a boot with its console watched (the watch, which
    says how it ended)."""
    progress(f'{phase.verb}...')
    boot = phase.name == 'run'
    if boot:
        phase.log.write_text('')
        (p.build_dir / 'test.log').unlink(missing_ok=True)
    start = time.monotonic()
    watch = (ConsoleWatch(phase.log, s.idle_timeout, SuiteProgress(progress).feed, s.timeout)
             if boot else None)
    rc, killed = _run(p.toolchain.command(phase.cmd, s.tree), phase.log,
                      dict(env, PYTHONUNBUFFERED='1') if watch else env,
                      s.tree, phase.limit, watch, s.lock)
    if watch:
        watch.read()                     # what came after the last look: the last suites
        watch.killed = killed
    result.seconds[phase.name] = round(time.monotonic() - start, 1)
    progress(f'{phase.verb} done in {fmt_seconds(result.seconds[phase.name])}'
             + ('' if rc == 0 or boot else f' (failed, see {phase.log})'))
    return rc, watch


def booted(result: ArchRun, watch: 'ConsoleWatch', out_dir: Path) -> None:
    """The console kunit.py kept, and how the boot ended."""
    assert result.build_dir
    ktap = result.build_dir / 'test.log'
    if ktap.exists():
        shutil.copyfile(ktap, out_dir / 'ktap.log')
        result.ktap_log = out_dir / 'ktap.log'
    # from the process: our --timeout, or the outer limit that kills it all
    result.timed_out = watch.killed or watch.stopped == 'timeout'
    if watch.stopped == 'idle':
        result.hung = int(watch.idle)


def built_whole(p: ArchPlan, s: RunSettings, st: Stamps, result: ArchRun) -> bool:
    """After make: kunit.py's check that .config kept every kunitconfig line;
    the stamps of a good build."""
    lost = config_lost(s.tree, p.build_dir)
    if lost:
        assert result.build_log
        with open(result.build_log, 'a', encoding='utf-8') as out:
            out.write('Not all Kconfig options selected in kunitconfig were in the '
                      'generated .config.\nMissing: ' + ', '.join(lost) + '\n')
        st.config_file.unlink(missing_ok=True)
        result.phase_failed = 'config'
        return False
    st.build_file.write_text(st.build)
    st.config_file.write_text(st.config)
    return True


def keep_config(result: ArchRun, out_dir: Path) -> None:
    """<arch>/config in the results: the .config the kernel was built with
    (or the one that lost a kunitconfig line), for the reports to link."""
    if result.config and result.config.is_file():
        shutil.copyfile(result.config, out_dir / 'config')
        result.config_copy = out_dir / 'config'
