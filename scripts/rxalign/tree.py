"""Tree preparation: base source -> our series -> our KUnit tests -> --patches.

The test tree is a git repository in the cache whose commits are exactly that
stack, so `git format-patch base..` on it is the mail-ready series.  Each layer
is keyed by a hash of its inputs: a layer whose inputs did not change is
reused, and git rewrites only the files that differ between commits, so an
unchanged file keeps its mtime and make does not rebuild it.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from . import debian_archive, gcov_profile, kunit_series
from .cache import Cache
from .exitcodes import Exit, HarnessError
from .kernels import Kernel
from .patches import Patch

# Where kunit-tests/ lands in the kernel tree, and how it is hooked into Kbuild.
TESTS_DEST = 'net/core/tests'
KCONFIG_FILE = 'net/Kconfig'
KCONFIG_ANCHOR = re.compile(r'^endif\s*#\s*if NET\s*$', re.M)
KCONFIG_LINE = f'source "{TESTS_DEST}/Kconfig"\n'
MAKEFILE_FILE = 'net/core/Makefile'
MAKEFILE_LINE = 'obj-y += tests/\n'
TEST_FILES = kunit_series.TEST_FILES

STATE = 'rxalign-state.json'
BASE_IDENTITY = {
    'GIT_AUTHOR_NAME': 'rx-align', 'GIT_AUTHOR_EMAIL': 'rx-align@localhost',
    'GIT_COMMITTER_NAME': 'rx-align', 'GIT_COMMITTER_EMAIL': 'rx-align@localhost',
    'GIT_AUTHOR_DATE': '2000-01-01T00:00:00Z', 'GIT_COMMITTER_DATE': '2000-01-01T00:00:00Z',
}

Log = Callable[[str], None]


@dataclasses.dataclass(frozen=True)
class Base:
    """Where the unpatched kernel comes from."""
    base_id: str                 # names the tree and build directories
    label: str                   # for humans and reports
    tarball: Optional[Path] = None
    tarball_digest: str = ''     # the tarball's checksum, verified at this use
    path: Optional[Path] = None  # a tree the user named; read, never written
    exclude: Tuple[str, ...] = ()  # in it, what is ours (results, cache): not snapshotted


@dataclasses.dataclass(frozen=True)
class Layer:
    name: str
    patches: Tuple[Path, ...] = ()
    tests_dir: Optional[Path] = None
    extra: Tuple[Patch, ...] = ()       # --patches: mails and plain diffs, read and checked
    # Each patch only where it applies and is not in the tree already (a
    # user's tree and our fixes); else every patch must apply (exit 5).
    where_needed: bool = False
    # --coverage: the files (tree-relative) and the NIC drivers (Kconfig
    # symbols) built with gcov, as Makefile lines (gcov_profile.py)
    gcov: Tuple[str, ...] = ()
    gcov_drivers: Tuple[str, ...] = ()

    def own_key(self) -> str:
        h = hashlib.sha256(self.name.encode())
        if self.gcov:   # and how the lines are found: the module that finds them
            h.update(Path(gcov_profile.__file__).read_bytes())
            for name in (*self.gcov, '\0drivers', *self.gcov_drivers):
                h.update(name.encode() + b'\0')
        if self.where_needed:   # its outcome differs: never reuse a strict layer's commit
            h.update(b'\0where needed')
        for p in self.patches:
            h.update(p.name.encode() + b'\0' + p.read_bytes())
        for e in self.extra:
            h.update(e.name.encode() + b'\0' + bytes(e.plain) + e.text)
        if self.tests_dir:
            h.update(KCONFIG_LINE.encode() + MAKEFILE_LINE.encode())
            commits = sorted((self.tests_dir / kunit_series.COMMITS_DIR).glob('*.msg'))
            for f in sorted(self.tests_dir.iterdir()) + commits:
                if f.is_file():
                    h.update(f.name.encode() + b'\0' + f.read_bytes())
        return h.hexdigest()


class Outcome(enum.Enum):
    """What became of one patch of a where_needed layer."""
    APPLIED = 'applied'
    ALREADY_IN = 'already in the tree'
    DOES_NOT_APPLY = 'does not apply to this tree'


@dataclasses.dataclass(frozen=True)
class PatchOutcome:
    layer: str
    patch: str                  # the file's name
    outcome: Outcome
    detail: str = ''            # git's first error line, when it does not apply

    @property
    def skipped(self) -> bool:
        return self.outcome is not Outcome.APPLIED

    def describe(self) -> str:
        """`net/0003-xdp-... (does not apply to this tree: error: ...)`, for humans."""
        why = self.outcome.value + (f': {self.detail}' if self.detail else '')
        return f'{self.layer}/{self.patch.removesuffix(".patch")} ({why})'

    def to_json(self) -> List[str]:
        return [self.patch, self.outcome.name, self.detail]

    @classmethod
    def from_json(cls, layer: str, data: object) -> Optional['PatchOutcome']:
        """None: not one as to_json writes it (the state is then not trusted)."""
        if not (isinstance(data, list) and len(data) == 3
                and all(isinstance(f, str) for f in data)
                and data[1] in Outcome.__members__):
            return None
        return cls(layer, data[0], Outcome[data[1]], data[2])


@dataclasses.dataclass(frozen=True)
class DoneLayer:
    """A layer the tree has, as its state file keeps it: [name, key, commit],
    and for a where_needed layer what became of each patch."""
    name: str
    key: str
    commit: str
    outcomes: Tuple[PatchOutcome, ...] = ()

    def to_json(self) -> List[object]:
        own: List[object] = [self.name, self.key, self.commit]
        return own + [[o.to_json() for o in self.outcomes]] if self.outcomes else own

    @classmethod
    def from_json(cls, data: object) -> Optional['DoneLayer']:
        """None: not one as to_json writes it (the state is then not trusted)."""
        if not (isinstance(data, list) and len(data) in (3, 4)
                and all(isinstance(f, str) for f in data[:3])):
            return None
        name, key, commit = (str(f) for f in data[:3])
        found = data[3] if len(data) == 4 else []
        if not isinstance(found, list):
            return None
        outcomes = [PatchOutcome.from_json(name, o) for o in found]
        kept = tuple(o for o in outcomes if o is not None)
        return cls(name, key, commit, kept) if len(kept) == len(outcomes) else None


@dataclasses.dataclass(frozen=True)
class PreparedTree:
    path: Path
    base: Base
    base_commit: str
    head: str
    reused: bool
    # what became of each patch of the where_needed layers, bottom up
    outcomes: Tuple[PatchOutcome, ...] = ()

    @property
    def skipped(self) -> List[PatchOutcome]:
        return [o for o in self.outcomes if o.skipped]


def debian_base(kernel: Kernel, cache: Cache, log: Log) -> Base:
    """Debian's linux-source package of @kernel, fetched if it must be."""
    tarball = debian_archive.tarball(kernel, cache, log)
    safe = re.sub(r'[^\w.+-]', '_', tarball.version)
    return Base(base_id=f'debian-{safe}', label=f'{kernel.package} {tarball.version}',
                tarball=tarball.path, tarball_digest=tarball.digest)


def user_tree(path: Path) -> Path:
    """--tree, resolved, if it is a kernel tree kunit.py can run in (usage error if not)."""
    path = path.expanduser().resolve()
    if not (path / 'Makefile').is_file() or not (path / 'tools/testing/kunit/kunit.py').is_file():
        raise HarnessError(Exit.USAGE, f'--tree {path} is not a kernel tree with '
                           'tools/testing/kunit/kunit.py')
    return path


def kernel_version(path: Path) -> str:
    """VERSION.PATCHLEVEL of the kernel tree at @path, from its Makefile; '' when
    the Makefile does not say (what --expected rules for a --tree must match)."""
    try:
        text = (path / 'Makefile').read_text(errors='replace')
    except OSError:
        return ''
    found = dict(re.findall(r'^(VERSION|PATCHLEVEL)\s*=\s*(\d+)\s*$', text, re.M))
    return f'{found["VERSION"]}.{found["PATCHLEVEL"]}' if len(found) == 2 else ''


def user_base(path: Path, ours: Sequence[Path] = ()) -> Base:
    """A tree the user named. `ours` are paths of this run (its results, the
    cache) that a CI may keep inside the checkout: they are no part of the
    kernel, and the snapshot leaves them out so every job tests the same tree."""
    path = user_tree(path)
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    inside = tuple(str(p.resolve().relative_to(path)) for p in ours
                   if p.resolve().is_relative_to(path) and p.resolve() != path)
    return Base(base_id=f'tree-{path.name}-{digest}', label=str(path), path=path, exclude=inside)


def _git(tree: Path, *args: str, env: Optional[Dict[str, str]] = None,
         check: bool = True, stdin: Optional[bytes] = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    raw = subprocess.run(['git', '-C', str(tree), '-c', 'core.looseCompression=1',
                          '-c', 'gc.auto=0', *args], input=stdin,
                         capture_output=True, env=full_env, check=False)
    proc = subprocess.CompletedProcess(raw.args, raw.returncode,
                                       raw.stdout.decode(errors='replace'),
                                       raw.stderr.decode(errors='replace'))
    if check and proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'git {" ".join(args[:2])} failed in {tree}: '
                           f'{proc.stderr.strip() or proc.stdout.strip()}')
    return proc


def _read_state(tree: Path) -> Dict[str, object]:
    """The tree's state, or {} when it is missing, empty, not ours or wrongly
    typed (a tree whose state cannot be read is made again, never trusted)."""
    try:
        data = json.loads((tree / '.git' / STATE).read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    layers = data.get('layers', [])
    if not all(isinstance(data.get(k), str) for k in ('base_key', 'base_commit')) or \
            not isinstance(layers, list) or \
            any(DoneLayer.from_json(x) is None for x in layers) or \
            not isinstance(data.get('tarball', ''), str):
        return {}
    return data


def _write_state(tree: Path, state: Dict[str, object]) -> None:
    path = tree / '.git' / STATE
    tmp = path.with_suffix('.tmp')
    tmp.write_text(json.dumps(state, indent=1) + '\n')
    os.replace(tmp, path)


def _init_repo(tree: Path) -> None:
    tree.mkdir(parents=True, exist_ok=True)
    _git(tree, 'init', '-q')
    _git(tree, 'config', 'core.autocrlf', 'false')


# What Kbuild writes into a tree built in place (make without O=): a snapshot
# of a plain directory leaves these out.  The tree's own ignore files are not
# used for that: Debian's kernel source packages end their top-level
# .gitignore with "/*" (packaging: ignore everything at the top level), which
# would leave every source file out.
BUILD_OUTPUT = (
    '*.o', '*.o.*', '*.a', '*.ko', '*.mod', '*.mod.c', '*.cmd', '*.d', '*.dwo', '*.order',
    '*.symvers', '*.su', '*.gcno', '*.lst', '*.tmp', '.tmp_*', '/vmlinux', '/vmlinux.*',
    '/System.map', '/Module.symvers', '/modules.*', '/.config', '/.config.old', '/.version',
    '/include/config/', '/include/generated/', '/arch/*/include/generated/', '/.kunit/',
)
# What a snapshot must hold for kunit.py to build it.
KERNEL_MARKERS = ('Makefile', 'tools/testing/kunit/kunit.py')


def _snapshot_files(source: Path, repo: Path, env: Dict[str, str]) -> List[str]:
    """The files of @source that are the kernel: for a git checkout, what git
    tracks plus untracked files its ignore rules do not name; for a plain
    directory, every file but BUILD_OUTPUT, whatever its ignore files say."""
    if source != repo and (source / '.git').exists():
        # read, never written: a checkout of another owner (the host's user's,
        # in a container run as root: docs/containers.md) is as good
        out = _git(source, '-c', f'safe.directory={source}', 'ls-files', '-z', '--cached',
                   '--others', '--exclude-standard').stdout
    else:
        excludes = repo / '.git' / 'rxalign-build-output'
        excludes.write_text('\n'.join(BUILD_OUTPUT) + '\n')
        # no --exclude-standard: only our list, never the tree's .gitignore files;
        # run from the top of @source, which may hold @repo (a cache in a checkout)
        out = _git(source, f'--git-dir={repo / ".git"}', '--work-tree', str(source),
                   'ls-files', '-z', '--others', f'--exclude-from={excludes}',
                   env=env).stdout
    return [f for f in dict.fromkeys(out.split('\0')) if f and os.path.lexists(source / f)]


def _snapshot(repo: Path, source: Path, label: str, exclude: Sequence[str] = ()) -> str:
    """Commit the kernel files of @source (read, never written) in @repo; the commit id.

    One path for Debian's unpacked tarballs and for a tree the user names."""
    index = repo / '.git' / 'snapshot.index'
    index.unlink(missing_ok=True)
    env = {'GIT_INDEX_FILE': str(index)}
    files = [f for f in _snapshot_files(source, repo, env)
             if not any(f == x or f.startswith(x.rstrip('/') + '/') for x in exclude)]
    # update-index takes paths as they are: no pathspec matching, no ignore rules
    proc = subprocess.run(['git', '-C', str(source), f'--git-dir={repo / ".git"}',
                           '--work-tree', str(source), 'update-index', '--add', '-z',
                           '--stdin'], input='\0'.join(files) + '\0',
                          capture_output=True, text=True, env={**os.environ, **env}, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'snapshotting {source} failed: {proc.stderr.strip()}')
    tree_id = _git(repo, 'write-tree', env=env).stdout.strip()
    index.unlink(missing_ok=True)
    present = _git(repo, 'ls-tree', '--name-only', tree_id, '--', *KERNEL_MARKERS).stdout.split()
    missing = [m for m in KERNEL_MARKERS if m not in present]
    if missing:
        raise HarnessError(Exit.USAGE, f'the snapshot of {source} has no {", ".join(missing)} '
                           f'({len(files)} files taken): its git index or ignore rules leave '
                           'them out; name a tree whose git tracks them, or a plain copy of it')
    return _git(repo, 'commit-tree', tree_id, '-m', label, env=BASE_IDENTITY).stdout.strip()


def _extract_debian(cache: Cache, base: Base, log: Log) -> None:
    """Unpack the tarball into a new tree and commit it; rename only when complete."""
    assert base.tarball is not None
    final = cache.tree(base.base_id)
    tmp = cache.trees / f'.{base.base_id}.partial'
    if tmp.exists():
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)
    log(f'extracting {base.tarball} (once per package version)')
    proc = subprocess.run(['tar', '-xJf', str(base.tarball), '-C', str(tmp),
                           '--strip-components=1'], capture_output=True, text=True, check=False)
    try:
        if proc.returncode != 0:
            status = Exit.ENVIRONMENT if 'No space' in proc.stderr else Exit.INFRA
            raise HarnessError(status, f'extracting {base.tarball} failed: '
                               f'{proc.stderr.strip()}')
        _init_repo(tmp)
        log('committing the pristine tree')
        commit = _snapshot(tmp, tmp, f'{base.label} (pristine)')
        _git(tmp, 'reset', '-q', commit)
    except HarnessError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    _git(tmp, 'tag', '-f', 'pristine', commit)
    _write_state(tmp, {'base_key': base.label, 'base_commit': commit, 'layers': [],
                       'tarball': base.tarball_digest})
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)


def _import_user_tree(tree: Path, base: Base) -> Tuple[str, str]:
    """Snapshot the user's tree into our repository without writing to it."""
    assert base.path is not None
    if not (tree / '.git').exists():
        _init_repo(tree)
    commit = _snapshot(tree, base.path, f'{base.label} (as found)', base.exclude)
    _git(tree, 'tag', '-f', 'pristine', commit)
    return _git(tree, 'rev-parse', f'{commit}^{{tree}}').stdout.strip(), commit


def _hook_tests(tree: Path) -> None:
    """Source the tests' Kconfig from net/Kconfig and build their directory."""
    kconfig = tree / KCONFIG_FILE
    text = kconfig.read_text()
    match = KCONFIG_ANCHOR.search(text)
    if not match:
        raise HarnessError(Exit.PATCH, f'cannot hook the tests into {KCONFIG_FILE}: '
                           'its "endif # if NET" line is gone; update KCONFIG_ANCHOR '
                           'in scripts/rxalign/tree.py')
    kconfig.write_text(text[:match.start()] + KCONFIG_LINE + '\n' + text[match.start():])
    with open(tree / MAKEFILE_FILE, 'a', encoding='utf-8') as mk:
        mk.write(MAKEFILE_LINE)


def commit_tests(tree: Path, tests_dir: Path) -> None:
    """kunit-tests/ as the commits kunit-tests/commits/ describes, each building alone."""
    commits = kunit_series.read(tests_dir)
    dest = tree / TESTS_DEST
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    _hook_tests(tree)
    for i, commit in enumerate(commits):
        for name, text in kunit_series.files_at(tests_dir, commits, i).items():
            (dest / name).write_text(text)
        author = re.fullmatch(r'(.+?) <(.+?)>', commit.author)
        env = dict(BASE_IDENTITY)
        if author:
            env.update(GIT_AUTHOR_NAME=author.group(1), GIT_AUTHOR_EMAIL=author.group(2),
                       GIT_COMMITTER_NAME=author.group(1),
                       GIT_COMMITTER_EMAIL=author.group(2))
        _git(tree, 'add', '-A', '-f', TESTS_DEST, KCONFIG_FILE, MAKEFILE_FILE)
        _commit_with_message(tree, commit.message, env)


def _commit_gcov(tree: Path, layer: Layer, log: Log) -> None:
    """The Makefile lines that build @layer's files with gcov, as one commit."""
    try:
        lines = gcov_profile.lines_for(tree, layer.gcov, layer.gcov_drivers, log)
    except gcov_profile.ProfileError as e:
        raise HarnessError(Exit.PATCH, f'--coverage: {e}') from None
    written = gcov_profile.write(tree, lines)
    _git(tree, 'add', '-f', *written)
    _commit_with_message(tree, gcov_profile.COMMIT_MESSAGE, BASE_IDENTITY)


def _commit_with_message(tree: Path, msg: str, env: Dict[str, str]) -> None:
    full_env = dict(os.environ)
    full_env.update(env)
    proc = subprocess.run(['git', '-C', str(tree), 'commit', '-q', '--no-verify', '-F', '-'],
                          input=msg, capture_output=True, text=True, env=full_env, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.INFRA, f'committing in {tree} failed: {proc.stderr}')


def _apply_patch(tree: Path, patch: Path, layer: str) -> None:
    proc = _git(tree, 'am', '-q', '--committer-date-is-author-date', str(patch.resolve()),
                env=BASE_IDENTITY, check=False)
    if proc.returncode != 0:
        _git(tree, 'am', '--abort', env=BASE_IDENTITY, check=False)
        raise HarnessError(Exit.PATCH, f'{patch} from the series in kernel-patches/{layer}/ '
                           f'does not apply to the tree (git am: {_first_error(proc)})')


def _apply_where_needed(tree: Path, patch: Path, layer: str, log: Log) -> PatchOutcome:
    """One fix on a user's tree: skipped when it is there already (it reverts
    cleanly) or does not apply (named, with git's first error line)."""
    path = str(patch.resolve())
    if _git(tree, 'apply', '--check', '--reverse', path, check=False).returncode == 0:
        outcome = PatchOutcome(layer, patch.name, Outcome.ALREADY_IN)
    else:
        proc = _git(tree, 'am', '-q', '--committer-date-is-author-date', path,
                    env=BASE_IDENTITY, check=False)
        if proc.returncode == 0:
            return PatchOutcome(layer, patch.name, Outcome.APPLIED)
        _git(tree, 'am', '--abort', env=BASE_IDENTITY, check=False)
        outcome = PatchOutcome(layer, patch.name, Outcome.DOES_NOT_APPLY, _first_error(proc))
    log(f'skipped {outcome.describe()}')
    return outcome


def _first_error(proc: subprocess.CompletedProcess[str]) -> str:
    detail = (proc.stdout + proc.stderr).strip().splitlines()
    return next((ln for ln in detail if 'error' in ln.lower()), detail[0] if detail else '')


def _apply_extra(tree: Path, patch: Patch, before: int) -> None:
    """One patch of --patches: a mail through git am, a plain diff through git
    apply and a commit with its made-up subject. Exit 5 names it and says how
    many of --patches applied before it."""
    if patch.plain:
        proc = _git(tree, 'apply', '--index', '-', stdin=patch.text, check=False)
        if proc.returncode == 0:
            _commit_with_message(tree, patch.message(), BASE_IDENTITY)
            return
        how = 'git apply'
    else:
        proc = _git(tree, 'am', '-q', '--committer-date-is-author-date', env=BASE_IDENTITY,
                    stdin=patch.text, check=False)
        if proc.returncode == 0:
            return
        _git(tree, 'am', '--abort', env=BASE_IDENTITY, check=False)
        how = 'git am'
    raise HarnessError(Exit.PATCH, f'--patches {patch.name} ("{patch.subject}") does not '
                       f'apply ({how}: {_first_error(proc)}; {before} patch(es) of --patches '
                       'before it applied)')


def _apply(tree: Path, layer: Layer, log: Log) -> Tuple[PatchOutcome, ...]:
    """Commit @layer; what became of each patch if it is where_needed, else ()."""
    if layer.tests_dir:
        commit_tests(tree, layer.tests_dir)
    if layer.gcov:
        _commit_gcov(tree, layer, log)
    outcomes = []
    for patch in layer.patches:
        if layer.where_needed:
            outcomes.append(_apply_where_needed(tree, patch, layer.name, log))
        else:
            _apply_patch(tree, patch, layer.name)
    for i, extra in enumerate(layer.extra):
        _apply_extra(tree, extra, i)
    return tuple(outcomes)


def _chain(base_key: str, layers: Sequence[Layer]) -> List[Tuple[str, str]]:
    """Each layer's name and key, the keys chained so that a layer is only reused
    on top of the same layers below."""
    wanted: List[Tuple[str, str]] = []
    key = base_key
    for layer in layers:
        key = hashlib.sha256((key + layer.own_key()).encode()).hexdigest()
        wanted.append((layer.name, key))
    return wanted


def _layers_done(state: Dict[str, object]) -> List[DoneLayer]:
    """Each layer the tree has, bottom up (_read_state checked them)."""
    done = state.get('layers')
    found = [DoneLayer.from_json(x) for x in done] if isinstance(done, list) else []
    return [d for d in found if d]


def _kept(wanted: List[Tuple[str, str]], have: List[DoneLayer]) -> int:
    """How many layers from the bottom the tree has as wanted."""
    keep = 0
    while keep < len(wanted) and keep < len(have) and \
            (have[keep].name, have[keep].key) == wanted[keep]:
        keep += 1
    return keep


def earlier_trees(cache: Cache, label: str, layers: Sequence[Layer]) -> List[Tuple[str, str, Path]]:
    """(base, commit, tree) of each tree an earlier run prepared in @cache from a
    base whose label starts with @label and that has @layers on it, the
    newest first: what --patches can be checked on before this run's own tree
    is prepared. Read only; a tree being rewritten by a run holding the lock
    is at worst not found."""
    found = []
    for t in sorted(cache.trees.iterdir()) if cache.trees.is_dir() else []:
        state = _read_state(t)
        base_key = str(state.get('base_key', ''))
        wanted, have = _chain(base_key, layers), _layers_done(state)
        if not base_key.startswith(label) or not wanted or _kept(wanted, have) < len(wanted):
            continue
        try:
            when = (t / '.git' / STATE).stat().st_mtime
        except OSError:
            continue
        found.append((when, base_key, have[len(wanted) - 1].commit, t))
    return [(base, commit, t) for _, base, commit, t in sorted(found, reverse=True)]


def applies(tree: Path, commit: str, extra: Sequence[Patch]) -> Optional[str]:
    """Why @extra do not apply one after the other on @commit of @tree (None: they
    do, or git cannot tell). git apply --cached on an index of its own; what it
    writes (the index, new blobs) goes to a temporary directory, never to @tree."""
    with tempfile.TemporaryDirectory(prefix='rx-align-check-') as tmp:
        env = {'GIT_INDEX_FILE': f'{tmp}/index', 'GIT_OBJECT_DIRECTORY': f'{tmp}/objects',
               'GIT_ALTERNATE_OBJECT_DIRECTORIES': str(tree / '.git' / 'objects')}
        os.mkdir(env['GIT_OBJECT_DIRECTORY'])
        if _git(tree, 'read-tree', commit, env=env, check=False).returncode != 0:
            return None
        for i, patch in enumerate(extra):
            proc = _git(tree, 'apply', '--cached', '-', env=env, stdin=patch.text, check=False)
            if proc.returncode != 0:
                return (f'--patches {patch.name} ("{patch.subject}") does not apply (git '
                        f'apply: {_first_error(proc)}; {i} patch(es) of --patches before it '
                        'applied)')
    return None


def prepare(cache: Cache, base: Base, layers: Sequence[Layer], log: Log) -> PreparedTree:
    tree = cache.tree(base.base_id)
    state = _read_state(tree) if base.tarball else {}
    if base.tarball and (not state or state.get('tarball') not in (None, base.tarball_digest)):
        # no tree, one whose state cannot be read, or one of another tarball
        _extract_debian(cache, base, log)
        state = _read_state(tree)
    elif base.tarball and 'tarball' not in state:
        # extracted by an older run-kunit: the tarball checked now is its own
        _write_state(tree, {**state, 'tarball': base.tarball_digest})
    if base.path:
        base_key, base_commit = _import_user_tree(tree, base)
        state = _read_state(tree)
    if base.tarball:
        base_key, base_commit = str(state['base_key']), str(state['base_commit'])

    wanted = _chain(base_key, layers)
    have = _layers_done(state) if state.get('base_key') == base_key else []
    keep = _kept(wanted, have)
    start = have[keep - 1].commit if keep else base_commit

    head = _git(tree, 'rev-parse', '-q', '--verify', 'HEAD', check=False).stdout.strip()
    interrupted = (tree / '.git' / 'rebase-apply').exists()
    clean = not interrupted and not _git(tree, 'status', '--porcelain').stdout.strip()
    done = have[:keep]
    # a fix an earlier run skipped on a kept layer is still skipped: say so again
    for o in (o for d in done for o in d.outcomes if o.skipped):
        log(f'skipped {o.describe()}')
    if clean and keep == len(wanted) and head == start:
        return PreparedTree(tree, base, base_commit, head, reused=True,
                            outcomes=tuple(o for d in done for o in d.outcomes))

    if interrupted:
        _git(tree, 'am', '--abort', env=BASE_IDENTITY, check=False)
    log(f'updating the test tree {tree} ({len(wanted) - keep} layer(s) to apply)')
    # Only a clean tree is what HEAD says: then its dates can be kept.
    before = _blobs_and_mtimes(tree, start) if clean and head else {}
    _git(tree, 'reset', '-q', '--hard', start)
    _git(tree, 'clean', '-q', '-fdx')
    _write_layers(tree, base, base_key, base_commit, done)
    for layer, (name, lkey) in zip(layers[keep:], wanted[keep:]):
        try:
            outcomes = _apply(tree, layer, log)
        except HarnessError:
            # Leave the tree at the last complete layer, never half-patched.
            _git(tree, 'reset', '-q', '--hard', done[-1].commit if done else base_commit)
            _git(tree, 'clean', '-q', '-fdx')
            raise
        done.append(DoneLayer(name, lkey, _git(tree, 'rev-parse', 'HEAD').stdout.strip(),
                              outcomes))
        _write_layers(tree, base, base_key, base_commit, done)
    head = _git(tree, 'rev-parse', 'HEAD').stdout.strip()
    _keep_mtimes(tree, before)
    return PreparedTree(tree, base, base_commit, head, reused=False,
                        outcomes=tuple(o for d in done for o in d.outcomes))


def _write_layers(tree: Path, base: Base, base_key: str, base_commit: str,
                  done: Sequence[DoneLayer]) -> None:
    _write_state(tree, {'base_key': base_key, 'base_commit': base_commit,
                        'layers': [d.to_json() for d in done], 'tarball': base.tarball_digest})


def _blobs(tree: Path, paths: Sequence[str]) -> Dict[str, str]:
    """The blob HEAD has for each of paths that is a regular file there (no symlinks:
    a date put back through one would land on its target).  One ls-tree of the
    whole tree, filtered here: a base change can name more paths than argv holds."""
    wanted = set(paths)
    if not wanted:
        return {}
    out = _git(tree, 'ls-tree', '-r', '-z', 'HEAD').stdout
    entries = (e.split('\t', 1) for e in out.split('\0') if e)
    return {path: meta.split()[2] for meta, path in entries
            if path in wanted and meta.split()[0] in ('100644', '100755')}


def _blobs_and_mtimes(tree: Path, since: str) -> Dict[str, Tuple[str, int]]:
    """Blob and mtime of every file the layers above `since` wrote, before they are redone."""
    names = [n for n in _git(tree, 'diff', '--name-only', '-z', since, 'HEAD').stdout.split('\0')
             if n]
    return {path: (blob, (tree / path).stat().st_mtime_ns)
            for path, blob in _blobs(tree, names).items()}


def _keep_mtimes(tree: Path, before: Dict[str, Tuple[str, int]]) -> None:
    """Redoing a layer rewrites all its files; one whose content came back the same
    gets its old mtime, so make rebuilds only what changed (a one-line test edit
    no longer recompiles the other test files nor re-runs syncconfig for the
    rewritten net/Kconfig)."""
    for path, blob in _blobs(tree, list(before)).items():
        old_blob, mtime = before[path]
        if blob == old_blob:
            os.utime(tree / path, ns=(mtime, mtime))


def pristine_worktree(cache: Cache, base: Base, log: Log) -> Path:
    """A git worktree of @base's pristine tree, for checks that apply a series to
    the base alone; the test tree beside it and its build dirs are not touched."""
    assert base.tarball is not None, 'a worktree of a Debian base'
    tree = cache.tree(base.base_id)
    if not (tree / '.git' / STATE).exists():
        _extract_debian(cache, base, log)
    path = cache.root / 'upstream' / base.base_id
    if not (path / '.git').exists():
        _git(tree, 'worktree', 'prune')
        path.parent.mkdir(parents=True, exist_ok=True)
        log(f'checking out {base.label} (pristine) in {path} (once)')
        _git(tree, 'worktree', 'add', '-q', '--detach', str(path), 'pristine')
    return path
