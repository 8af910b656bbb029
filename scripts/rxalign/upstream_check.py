"""scripts/upstream-check: each series as netdev's patchwork checks it, on its base alone.

For every series of kernel-patches/ that is mailed (or those named), on a
git worktree of the pristine tree the series names as its base:

  applies       git am of each patch, in order, onto the base alone (and
                the series it is made on: Series.after)
  checkpatch    --strict --max-line-length=80 --codespell, as netdev runs it
  builds        each patch alone: the objects of the C files it touches
                and of every C file that includes a header (or an
                #included C file) it touches, make W=1, on x86_64 as
                netdev's build checks do (with KUnit on); a file x86_64
                cannot build is a skip with the reason
  kernel-doc    -none -Wall on the C files and headers each patch
                touches: the warnings it adds
  fixes         every Fixes: id and subject as mail.toml records them,
                and every record used
  cc            the mail export-series writes names in To:/Cc: everyone
                get_maintainer.pl names for it, the people of its Fixes:
                commits and the hand additions (a keyword-only hit may be
                left off where mail.toml says why); its author and
                Signed-off-by reach someone; where mail.toml says
                `separate = true`, no other patch's people and no
                In-Reply-To:/References:

The KUnit series is checked as it is made from kunit-tests/, and the copy
in kernel-patches/net-next/ must be that (scripts/export-series --refresh
net-next writes it).  Exit 0 when every check of every series passed,
1 when one failed (each is printed), as the harness's statuses say.
"""

from __future__ import annotations

import argparse
import dataclasses
import email.utils
import enum
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

from . import arches, checkpatch_policy, deps, kernels, kunit_patches, mail, series, tree
from .cache import Cache, Lock, default_root
from .cli import run_main
from .kbuild import BUILTIN, kconfig_symbol
from .exitcodes import Exit, HarnessError
from .paths import SERIES_DIR, TESTS_DIR
from .build_env import build_env

PROG = 'upstream-check'
BUILD_ARCH = 'x86_64'
WARNING = re.compile(r'^\S+:\d+:\d+: (warning|error):', re.M)
SAMPLE_SENDER = 'A. U. Thor <a.u.thor@kernel.org>'


class Status(enum.Enum):
    PASS = 'pass'
    FAIL = 'FAIL'
    SKIP = 'skip'


@dataclasses.dataclass(frozen=True)
class Finding:
    series: str
    patch: str              # the patch file, or '' for the series as a whole
    check: str
    status: Status
    detail: str = ''

    def line(self) -> str:
        where = f'{self.series}/{self.patch}' if self.patch else self.series
        return f'{self.status.value:4} {self.check:11} {where}' + (
            f': {self.detail}' if self.detail else '')


def _git(cwd: Path, *args: str, check: bool = True) -> 'subprocess.CompletedProcess[str]':
    proc = subprocess.run(['git', '-C', str(cwd), '-c', 'gc.auto=0', *args],
                          capture_output=True, text=True,
                          env={**os.environ, **tree.BASE_IDENTITY, 'GIT_EDITOR': 'true'},
                          check=False)
    if check and proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'git {" ".join(args[:2])} in {cwd}: '
                           f'{(proc.stderr or proc.stdout).strip()}')
    return proc


def touched(patch_text: str) -> List[str]:
    """The files a patch changes (their new names), in order."""
    return list(dict.fromkeys(m.group(1) for m in re.finditer(r'^\+\+\+ b/(\S+)$', patch_text,
                                                               re.M)))


# ---- the checks ----

def check_applies(worktree: Path, name: str, patch: Path) -> Finding:
    proc = _git(worktree, 'am', '-q', '--committer-date-is-author-date', str(patch),
                check=False)
    if proc.returncode != 0:
        _git(worktree, 'am', '--abort', check=False)
        first = next((ln for ln in (proc.stdout + proc.stderr).splitlines()
                      if 'error' in ln.lower() or 'patch failed' in ln.lower()), '')
        return Finding(name, patch.name, 'applies', Status.FAIL, first or 'git am failed')
    return Finding(name, patch.name, 'applies', Status.PASS)


def check_checkpatch(worktree: Path, name: str, patch: Path) -> Finding:
    keep = checkpatch_policy.kept(name)
    cmd = ['perl', 'scripts/checkpatch.pl', *checkpatch_policy.arguments(name), str(patch)]
    proc = subprocess.run(cmd, cwd=worktree, capture_output=True, text=True, check=False)
    problems = [ln for ln in proc.stdout.splitlines()
                if re.search(r':\d+: (ERROR|WARNING|CHECK):', ln)]
    if 'No codespell typos will be found' in proc.stdout + proc.stderr:
        return Finding(name, patch.name, 'checkpatch', Status.FAIL,
                       'codespell\'s dictionary is missing: install codespell')
    if proc.returncode != 0 or problems:
        return Finding(name, patch.name, 'checkpatch', Status.FAIL,
                       '; '.join(p.split(': ', 1)[-1] for p in problems[:4]) or
                       proc.stdout.strip()[-200:])
    return Finding(name, patch.name, 'checkpatch', Status.PASS,
                   f'ignoring {", ".join(keep)}' if keep else '')


def kernel_doc_warnings(worktree: Path, files: Sequence[str]) -> Set[str]:
    """kernel-doc -Wall's warnings on the C files and headers of @files that
    exist, without line numbers, so that the same warning before and after a
    patch that moves it is the same."""
    sources = [f for f in files if f.endswith(('.c', '.h')) and (worktree / f).is_file()]
    if not sources:
        return set()
    proc = subprocess.run(['scripts/kernel-doc', '-none', '-Wall', *sources], cwd=worktree,
                          capture_output=True, text=True, check=False)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    if proc.returncode != 0 and not lines:
        lines = [f'kernel-doc exited {proc.returncode}']
    return {re.sub(r'^((?:Warning|warning|error): )?(\S+?):\d+', r'\1\2', ln) for ln in lines
            if re.search(r'warning|error|exited', ln, re.I)}


def check_kernel_doc(worktree: Path, name: str, patch: Path, files: List[str],
                     before: Set[str]) -> Finding:
    """As netdev's kdoc check: the warnings the patch adds to the files it
    touches (@before: those files' warnings without the patch)."""
    if not any(f.endswith(('.c', '.h')) and (worktree / f).is_file() for f in files):
        return Finding(name, patch.name, 'kernel-doc', Status.SKIP, 'no C file or header')
    new = sorted(kernel_doc_warnings(worktree, files) - before)
    if new:
        return Finding(name, patch.name, 'kernel-doc', Status.FAIL,
                       f'{len(new)} new: {new[0]}')
    return Finding(name, patch.name, 'kernel-doc', Status.PASS,
                   f'no new warning ({len(before)} there before)' if before else
                   'no warning')


def check_fixes(name: str, plan: mail.MailPlan, texts: Dict[str, str]) -> List[Finding]:
    findings = []
    used: Dict[str, bool] = {f.id: False for f in plan.fixes}
    for pname, text in texts.items():
        for fid, subject in mail.fixes_lines(text):
            ref = next((r for r in plan.fixes if fid.startswith(r.id) or r.id.startswith(fid)),
                       None)
            if ref is None:
                findings.append(Finding(name, pname, 'fixes', Status.FAIL,
                                        f'Fixes: {fid} is not in {plan.path}: record its '
                                        'subject, people and source there'))
            elif ref.subject != subject:
                findings.append(Finding(name, pname, 'fixes', Status.FAIL,
                                        f'Fixes: {fid} ("{subject}"), but {plan.path.name} '
                                        f'records "{ref.subject}"'))
            else:
                used[ref.id] = True
                findings.append(Finding(name, pname, 'fixes', Status.PASS,
                                        f'{fid} ("{subject}")'))
    for fid, was in used.items():
        if not was:
            findings.append(Finding(name, '', 'fixes', Status.FAIL,
                                    f'{plan.path} records {fid}, which no patch names'))
    return findings


def _headers(text: str, name: str) -> List[str]:
    head = text.split('\n\n', 1)[0]
    return re.findall(rf'^{name}: (.*(?:\n[ \t].*)*)', head, re.M)


def check_cc(worktree: Path, name: str, plan: mail.MailPlan, mails: Dict[str, str],
             patches: Dict[str, Path]) -> List[Finding]:
    """Every address get_maintainer.pl names for a patch, and the people of its
    Fixes: commits, on that patch's mail; every sender reachable.  Where
    @plan sends the patches separately, no one else on it (another patch's
    people) and no In-Reply-To:/References: (a reply to another)."""
    findings = []
    drops = {d.section: d.why for d in plan.drop}
    for pname, text in mails.items():
        if pname not in patches:
            continue
        on_mail = set(mail.addresses(_headers(text, 'To') + _headers(text, 'Cc')))
        wanted: List[Tuple[str, str]] = []
        named = mail.get_maintainer(worktree, [patches[pname]])
        for n in named:
            sections = n.keyword_only
            if sections and all(s in drops for s in sections):
                continue
            wanted.append((n.who, n.roles or 'get_maintainer.pl'))
        for fid, _ in mail.fixes_lines(text):
            for ref in plan.fixes:
                if fid.startswith(ref.id) or ref.id.startswith(fid):
                    wanted += [(p, f'Fixes: {ref.id}') for p in ref.people]
        missing = [f'{who} ({why.split(",")[0]})' for who, why in wanted
                   if mail.addresses([who])[0] not in on_mail]
        senders = _headers(text, 'From') + re.findall(r'^Signed-off-by: (.*)$', text, re.M)
        unreachable = [s for s in senders if not mail.reachable(s)]
        alone: List[str] = []
        if plan.separate:
            own = mail.recipients(plan, named, [text], [pname])
            others = sorted(on_mail - set(mail.addresses([*own.to, *own.cc])))
            alone += [f'sent separately ({plan.path.name}), yet it names another patch\'s '
                      f'people: {", ".join(others)}'] if others else []
            alone += [f'sent separately ({plan.path.name}), yet it is a reply '
                      f'({", ".join(threads)})'] if (threads := _threading(text)) else []
        if missing or unreachable or alone:
            findings.append(Finding(name, pname, 'cc', Status.FAIL, '; '.join(
                [f'not on the mail: {"; ".join(missing)}'] * bool(missing)
                + [f'placeholder sender: {", ".join(unreachable)}'] * bool(unreachable)
                + alone)))
        else:
            findings.append(Finding(name, pname, 'cc', Status.PASS,
                                    f'{len(on_mail)} addresses'))
    return findings


def _threading(text: str) -> List[str]:
    """The In-Reply-To:/References: headers of a mail, by name."""
    head = text.split('\n\n', 1)[0]
    return re.findall(r'^(In-Reply-To|References):', head, re.M | re.I)


# ---- building each patch alone ----

@dataclasses.dataclass
class Builder:
    """One build dir for the worktree on one arch, configured once, reused
    patch after patch: make rebuilds only what the patch changed."""
    arch: arches.Arch
    src: Path
    build: Path
    log: Path
    jobs: int
    env: Dict[str, str]
    configured: bool = False

    def make(self, *args: str) -> 'subprocess.CompletedProcess[str]':
        cmd = ['make', f'O={self.build}', f'ARCH={self.arch.kunit_arch}', f'-j{self.jobs}']
        if self.arch.cross_compile:
            cmd.append(f'CROSS_COMPILE={self.arch.cross_compile}')
        cmd += [f'CC=ccache {self.arch.cross_compile}gcc', 'HOSTCC=ccache gcc', *args]
        proc = subprocess.run(cmd, cwd=self.src, capture_output=True, text=True,
                              env=self.env, check=False)
        with open(self.log, 'a', encoding='utf-8') as out:
            out.write('$ ' + ' '.join(cmd) + '\n' + proc.stdout + proc.stderr)
        return proc

    def configure(self, symbols: Sequence[str]) -> Optional[str]:
        """The arch's defconfig (once) with @symbols on; None, or why it failed."""
        if not self.configured:
            self.build.mkdir(parents=True, exist_ok=True)
            if self.make(self.arch.defconfig or 'defconfig').returncode != 0:
                return f'{self.arch.defconfig or "defconfig"} failed (see {self.log})'
            self.configured = True
        # COMPILE_TEST, as netdev's allmodconfig build has it: a driver of
        # another platform (fec, on i.MX and ColdFire) builds here too
        symbols = ['COMPILE_TEST', *symbols]
        subprocess.run([str(self.src / 'scripts/config'), '--file',
                        str(self.build / '.config'),
                        *(a for s in symbols for a in ('--enable', s))], check=True)
        if self.make('olddefconfig').returncode != 0:
            return f'olddefconfig failed (see {self.log})'
        return None


# A header more files include than this (<linux/skbuff.h>) is a tree-wide
# build's job (netdev's allmodconfig), not one for each patch here.
MAX_INCLUDERS = 40
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def _names(src: Path, including: str, quote: str, name: str, srcarch: str) -> Set[str]:
    """What an #include of @name in @including can open, as gcc with Kbuild's
    -I flags searches: beside the file first for "...", then include/,
    include/uapi/ and the arch's include directories."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), name))
    if quote == '"' and (src / beside).is_file():
        return {beside}
    return {f'{d}/{name}' for d in ('include', 'include/uapi', f'arch/{srcarch}/include',
                                    f'arch/{srcarch}/include/uapi')}


def includers(src: Path, target: str, srcarch: str) -> List[str]:
    """The C files of @src that include @target, directly or through headers
    (or C files) that do, for @srcarch; at most MAX_INCLUDERS + 1.  grep for
    its file name, then each #include line read as the compiler would: what
    it misses is an include through a directory a Makefile adds with -I, a
    computed #include MACRO, and generated files (the build's .cmd files
    would know, but the build dir here holds only the objects built so far)."""
    seen, todo = {target}, [target]
    found: List[str] = []
    while todo and len(found) <= MAX_INCLUDERS:
        current = todo.pop(0)
        proc = subprocess.run(['grep', '-rlF', '--exclude-dir=.git', '--include=*.c',
                               '--include=*.h', os.path.basename(current), '.'],
                              cwd=src, capture_output=True, text=True, check=False)
        if proc.returncode > 1:
            raise HarnessError(Exit.INFRA, f'grep for the includers of {current} in {src}: '
                               f'{proc.stderr.strip()}')
        for cand in sorted(os.path.normpath(c) for c in proc.stdout.splitlines()):
            if cand in seen:
                continue
            text = (src / cand).read_text(errors='replace')
            if any(current in _names(src, cand, q, n, srcarch) for q, n in INCLUDE.findall(text)):
                seen.add(cand)
                todo.append(cand)
                if cand.endswith('.c'):
                    found.append(cand)
                    if len(found) > MAX_INCLUDERS:
                        break
    return sorted(found)


def _symbols(src: Path, files: Sequence[str]) -> Dict[str, Optional[str]]:
    return {f: kconfig_symbol(src, f) for f in files}


def check_builds(b: Builder, name: str, patch: Path, files: List[str],
                 extra: Sequence[str]) -> Finding:
    sources = [f for f in files if f.endswith('.c')]
    skipped: List[str] = []
    # what includes a touched header, or a touched C file no Makefile line
    # builds (sonic.c, which macsonic.c and jazzsonic.c include)
    via: Dict[str, str] = {}
    for h in files:
        if not (h.endswith('.h') or h in sources and not kconfig_symbol(b.src, h)) or \
                not (b.src / h).is_file():
            continue
        other_arch = re.match(r'arch/([^/]+)/', h)
        if other_arch and other_arch.group(1) != b.arch.srcarch:
            skipped.append(f'{h} ({other_arch.group(1)}\'s, not {b.arch.name}\'s)')
            continue
        found = includers(b.src, h, b.arch.srcarch)
        if len(found) > MAX_INCLUDERS:
            skipped.append(f'the includers of {h} (more than {MAX_INCLUDERS}: a tree-wide '
                           'build\'s job)')
            continue
        if not found and h.endswith('.h'):
            skipped.append(f'{h} (no file includes {h})')
        via.update({c: os.path.basename(h) for c in found if c not in sources and c not in via})
    sources += via
    if not sources:
        return Finding(name, patch.name, 'builds', Status.SKIP,
                       '; '.join(skipped) or 'no C file and no header (Kconfig is built by '
                       'the patches\' objects)')
    symbols = _symbols(b.src, sources)
    why = b.configure([*extra, *(s for s in symbols.values() if s and s != BUILTIN)])
    if why:
        return Finding(name, patch.name, 'builds', Status.FAIL, why)
    config = (b.build / '.config').read_text()
    built, failed = [], []
    for f, sym in symbols.items():
        other_arch = re.match(r'arch/([^/]+)/', f)
        if other_arch and other_arch.group(1) != b.arch.srcarch:
            skipped.append(f'{f} ({other_arch.group(1)}\'s, not {b.arch.name}\'s)')
        elif not sym:
            skipped.append(f'{f} (no Makefile line builds it)')
        elif sym != BUILTIN and not re.search(rf'^CONFIG_{sym}=[ym]$', config, re.M):
            skipped.append(f'{f} (CONFIG_{sym} cannot be enabled on {b.arch.name})')
        else:
            proc = b.make('W=1', f[:-2] + '.o')
            warnings = [ln for ln in WARNING.findall(proc.stdout + proc.stderr)]
            text = proc.stdout + proc.stderr
            if proc.returncode != 0 or warnings:
                first = next((ln for ln in text.splitlines() if WARNING.match(ln)),
                             f'make exited {proc.returncode}')
                failed.append(f'{f}: {first}')
            else:
                built.append(f + (f' (includes {via[f]})' if f in via else ''))
    if failed:
        return Finding(name, patch.name, 'builds', Status.FAIL, '; '.join(failed))
    if not built:
        return Finding(name, patch.name, 'builds', Status.SKIP, '; '.join(skipped))
    return Finding(name, patch.name, 'builds', Status.PASS,
                   f'{b.arch.name} W=1: {", ".join(built)}' +
                   (f'; skipped {"; ".join(skipped)}' if skipped else ''))


# ---- one series ----

def check_series(s: series.Series, worktree: Path, builder: Optional[Builder],
                 scratch: Path) -> List[Finding]:
    directory = SERIES_DIR / s.name
    plan = mail.read(directory)
    findings: List[Finding] = []
    if s.tests_dir:
        made = kunit_patches.make(worktree, TESTS_DIR, scratch / 'made')
        stored = sorted(directory.glob('*.patch'))
        if [p.name for p in made] != [p.name for p in stored] or any(
                _body(a) != _body(b) for a, b in zip(made, stored)):
            findings.append(Finding(s.name, '', 'current', Status.FAIL,
                                    f'{directory} is not kunit-tests/ as committed: run '
                                    f'scripts/export-series --refresh {s.name}'))
        undated = [p.name for p in stored if not _dated(p)]
        if undated:
            findings.append(Finding(s.name, '', 'current', Status.FAIL,
                                    f'no Date: git am can read in {", ".join(undated)}: run '
                                    f'scripts/export-series --refresh {s.name}'))
        patches = [p for p in made if p.name != mail.COVER_LETTER]
    else:
        patches = list(s.patches(kernels.NEWEST))
    texts = {p.name: p.read_text() for p in patches}
    kunit_patches.reset(worktree)
    unmet = apply_base(worktree, s)
    if unmet:
        return findings + [unmet]
    for p in patches:
        files = touched(texts[p.name])
        kdoc_before = kernel_doc_warnings(worktree, files)
        applied = check_applies(worktree, s.name, p)
        findings.append(applied)
        if applied.status is not Status.PASS:
            break
        findings.append(check_checkpatch(worktree, s.name, p))
        findings.append(check_kernel_doc(worktree, s.name, p, files, kdoc_before))
        if builder:
            # KUnit: a test file's symbol depends on it (net_test.c's NET_TEST)
            extra = ['KUNIT', *(_kunitconfig_symbols() if s.tests_dir else [])]
            findings.append(check_builds(builder, s.name, p, files, extra))
    findings += check_fixes(s.name, plan, texts)
    mails = _export(plan, patches, worktree)
    findings += check_cc(worktree, s.name, plan, mails, {p.name: p for p in patches})
    kunit_patches.reset(worktree)
    return findings


def apply_base(worktree: Path, s: series.Series,
               series_dir: Path = SERIES_DIR) -> Optional[Finding]:
    """The series @s is made on (Series.after), applied to @worktree before
    it; a Finding when one of them does not apply (the check stops there)."""
    for name in s.after:
        for p in series.BY_NAME[name].patches(kernels.NEWEST, series_dir):
            found = check_applies(worktree, name, p)
            if found.status is not Status.PASS:
                return Finding(s.name, '', 'applies', Status.FAIL,
                               f'its base does not apply: {name}/{p.name}: {found.detail}')
    return None


def _kunitconfig_symbols() -> List[str]:
    return [ln.split('=')[0][len('CONFIG_'):]
            for ln in (TESTS_DIR / '.kunitconfig').read_text().splitlines()
            if ln.startswith('CONFIG_') and ln.endswith('=y')]


def _dated(patch: Path) -> bool:
    """The mail has a Date: header git am can read (RFC 2822)."""
    m = re.search(r'^Date: (.*)$', patch.read_text(), re.M)
    try:
        return bool(m and email.utils.parsedate_to_datetime(m.group(1)))
    except (TypeError, ValueError):
        return False


def _body(patch: Path) -> str:
    """A patch without what changes each time it is made (its commit id and date)."""
    lines = patch.read_text().splitlines()
    return '\n'.join(ln for ln in lines if not re.match(r'^(From [0-9a-f]{40} |Date: )', ln)
                     and not re.match(r'^index [0-9a-f]+\.\.[0-9a-f]+', ln))


def _export(plan: mail.MailPlan, patches: Sequence[Path], worktree: Path) -> Dict[str, str]:
    """The mails as export-series writes them, for a sample sender."""
    m = re.match(r'(.+?) <(.+)>', SAMPLE_SENDER)
    assert m
    return mail.mails_for(plan, list(patches), worktree, m.group(1), m.group(2))


def _checked(s: series.Series) -> bool:
    """Every series mailed from the newest kernel's tree: the fixes, the tests,
    and the tree fixes, which go to their lists one by one."""
    return (s.mailed or s.role is series.Role.TREE_FIX) and s.only_on in ((), None)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.splitlines()[0],
                                epilog='exit status: 0 every check passed, 1 a check failed, '
                                       '2 usage, 3 the tree could not be prepared, '
                                       '4 environment')
    p.add_argument('series', nargs='*', help='which series (default: every mailed one: '
                   f'{", ".join(s.name for s in series.SERIES if _checked(s))})')
    p.add_argument('--no-build', action='store_true', help='leave out the per-patch builds')
    p.add_argument('--jobs', type=int, default=2, help='make -j (default: 2)')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)

    def run() -> int:
        chosen = [s for s in series.SERIES if _checked(s)]
        unknown = [n for n in args.series if n not in series.BY_NAME]
        if unknown:
            raise HarnessError(Exit.USAGE, f'unknown series {", ".join(unknown)}; known: '
                               f'{", ".join(series.BY_NAME)}')
        if args.series:
            chosen = [series.BY_NAME[n] for n in args.series]
        arch = arches.select(BUILD_ARCH)[0]
        # a fresh machine has no ccache (CI, 2026-12-07: every build "ccache: not found")
        deps.ensure_packages(('perl', 'git', 'codespell', 'python3')
                             + deps.kernel_packages(kernels.NEWEST)
                             + (() if args.no_build else deps.build_packages([arch])), print)
        cache = Cache(default_root())
        findings: List[Finding] = []
        with Lock(cache):
            base = tree.debian_base(kernels.NEWEST, cache, print)
            worktree = tree.pristine_worktree(cache, base, print)
            builder = None if args.no_build else Builder(
                arch, worktree, cache.build_dir(base.base_id, arch.name, 'upstream'),
                cache.root / 'upstream' / f'{arch.name}-build.log', args.jobs,
                build_env(cache))
            if builder:
                builder.log.write_text('')
            for s in chosen:
                with tempfile.TemporaryDirectory() as scratch:
                    found = check_series(s, worktree, builder, Path(scratch))
                for f in found:
                    print(f.line(), flush=True)
                findings += found
        failed = [f for f in findings if f.status is Status.FAIL]
        print(f'{PROG}: {len(findings) - len(failed)} of {len(findings)} checks passed or '
              f'skipped with a reason, {len(failed)} failed')
        return int(Exit.TEST_FAILED) if failed else 0
    return run_main(PROG, run)


if __name__ == '__main__':
    sys.exit(main())
