"""Who a series goes to: get_maintainer.pl, the Fixes: people, and kernel-patches/<series>/mail.toml.

get_maintainer.pl reads MAINTAINERS of the tree the series is based on; it
cannot name the people of a Fixes: commit without the kernel's history,
which a Debian tarball lacks, so those are recorded in the series'
mail.toml from the public postings, with the commit's subject.  mail.toml
also names the people and lists added by hand (each with its reason) and
the MAINTAINERS sections whose keyword-only hits are left off (with
theirs), and whether the patches go separately (`separate = true`: unrelated
fixes for different trees, as tree-fixes/ holds; no cover letter, each mail
to its own people, none a reply to another).  The sender's own identity must reach someone: the placeholders
this project and common tools write are refused.
"""

from __future__ import annotations

import dataclasses
import datetime
import email.utils
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from .exitcodes import Exit, HarnessError

MAIL_TOML = 'mail.toml'
COVER_LETTER = '0000-cover-letter.patch'
# Fixes: of a bug as old as git history: its commit names no one to ask.
GIT_HISTORY_START = '1da177e4c3f4'
FIXES_LINE = re.compile(r'^Fixes: ([0-9a-f]{12,40}) \("(.*)"\)\s*$', re.M)
# Addresses that reach no one: RFC 2606/6761 names, local ones, what the
# documentation of git and of this project suggests as a sample, and a
# no-reply name anywhere in the address (GitHub's hidden
# 1234+user@users.noreply.github.com ends in .com: issue 49).
UNREACHABLE = re.compile(
    r'(\.example|\.invalid|\.test|\.localhost|\.localdomain|@localhost|'
    r'@example\.(com|org|net)|@example|@your\.domain|@(mail\.)?example\.\w+)$'
    r'|(^|[@.+])(no-?reply|do-?not-?reply)([@.]|$)'
    r'|^[^@]*$|^(you|user|root|name|me)@', re.I)


@dataclasses.dataclass(frozen=True)
class FixesRef:
    id: str
    subject: str
    people: Tuple[str, ...]
    source: str


@dataclasses.dataclass(frozen=True)
class HandCc:
    who: str
    why: str
    patch: str = ''         # only the patch whose file name starts so; '' for all


@dataclasses.dataclass(frozen=True)
class Drop:
    section: str            # a MAINTAINERS section whose keyword-only hits stay off
    why: str


@dataclasses.dataclass(frozen=True)
class MailPlan:
    path: Path
    base: str
    fixes: Tuple[FixesRef, ...] = ()
    cc: Tuple[HandCc, ...] = ()
    drop: Tuple[Drop, ...] = ()
    separate: bool = False  # each patch a mail of its own: its own To:/Cc:, no thread

    def fixes_by_id(self) -> Dict[str, FixesRef]:
        return {f.id: f for f in self.fixes}


def reachable(address: str) -> bool:
    """False for an address no mail reaches (a placeholder)."""
    m = re.search(r'<([^>]+)>', address)
    return not UNREACHABLE.search((m.group(1) if m else address).strip())


def _str(table: Dict[str, object], key: str, path: Path, default: Optional[str] = None) -> str:
    value = table.get(key, default)
    if not isinstance(value, str):
        raise HarnessError(Exit.USAGE, f'{path}: "{key}" must be a string (got {value!r})')
    return value


def read(directory: Path) -> MailPlan:
    """kernel-patches/<series>/mail.toml; a series without one gets get_maintainer.pl only."""
    path = directory / MAIL_TOML
    if not path.is_file():
        return MailPlan(path, base='')
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise HarnessError(Exit.USAGE, f'{path}: {e}') from None
    fixes = []
    for f in data.get('fixes', []):
        people = f.get('people', [])
        if not isinstance(people, list) or not all(isinstance(p, str) for p in people):
            raise HarnessError(Exit.USAGE, f'{path}: fixes.people must be a list of addresses')
        fixes.append(FixesRef(_str(f, 'id', path), _str(f, 'subject', path), tuple(people),
                              _str(f, 'source', path)))
    cc = [HandCc(_str(c, 'who', path), _str(c, 'why', path), _str(c, 'patch', path, ''))
          for c in data.get('cc', [])]
    drop = [Drop(_str(d, 'section', path), _str(d, 'why', path)) for d in data.get('drop', [])]
    separate = data.get('separate', False)
    if not isinstance(separate, bool):
        raise HarnessError(Exit.USAGE, f'{path}: "separate" must be true or false (got '
                           f'{separate!r})')
    return MailPlan(path, _str(data, 'base', path, ''), tuple(fixes), tuple(cc), tuple(drop),
                    separate)


def fixes_lines(text: str) -> List[Tuple[str, str]]:
    """(id, subject) of each Fixes: tag of a patch."""
    return [(m.group(1), m.group(2)) for m in FIXES_LINE.finditer(text)]


@dataclasses.dataclass(frozen=True)
class Named:
    """One line of get_maintainer.pl --roles: who, and why it names them."""
    who: str
    roles: str

    @property
    def is_list(self) -> bool:
        return '<' not in self.who

    @property
    def keyword_only(self) -> List[str]:
        """The sections that name this address by a keyword only, if no other does."""
        parts = [r.strip() for r in self.roles.split(',')]
        if not parts or not all(':Keyword:' in p for p in parts):
            return []
        return [p.split(':')[1] for p in parts]


def get_maintainer(tree: Path, patches: Sequence[Path]) -> List[Named]:
    """What get_maintainer.pl of @tree names for @patches (no git history: --no-git)."""
    proc = subprocess.run(['perl', 'scripts/get_maintainer.pl', '--no-tree', '--no-git',
                           '--no-git-fallback', '--no-fixes', '--roles', '--rolestats',
                           *[str(p.resolve()) for p in patches]],
                          capture_output=True, text=True, cwd=tree, check=False)
    if proc.returncode != 0:
        raise HarnessError(Exit.ENVIRONMENT, f'get_maintainer.pl in {tree} failed: '
                           f'{proc.stderr.strip()}')
    named = []
    for line in proc.stdout.splitlines():
        m = re.match(r'^(.*?@[^ ]+?>?)\s*\((.*)\)\s*$', line.strip())
        if m:
            named.append(Named(m.group(1).strip(), m.group(2)))
        elif '@' in line:
            named.append(Named(line.strip(), ''))
    return named


@dataclasses.dataclass(frozen=True)
class Recipients:
    to: Tuple[str, ...]         # maintainers, reviewers, Fixes: people, people by hand
    cc: Tuple[str, ...]         # lists
    dropped: Tuple[Tuple[str, str], ...]    # (who, why): a keyword-only hit left off


def recipients(plan: MailPlan, named: Sequence[Named], texts: Sequence[str],
               patch_names: Sequence[str]) -> Recipients:
    """The To:/Cc: of a series: get_maintainer.pl's names but the dropped keyword hits,
    the people of every Fixes: commit the patches name, and the hand additions."""
    drops = {d.section: d.why for d in plan.drop}
    to: List[str] = []
    cc: List[str] = []
    dropped: List[Tuple[str, str]] = []
    for n in named:
        sections = n.keyword_only
        if sections and all(s in drops for s in sections):
            dropped.append((n.who, drops[sections[0]]))
        else:
            (cc if n.is_list else to).append(n.who)
    by_id = plan.fixes_by_id()
    for text in texts:
        for fid, _subject in fixes_lines(text):
            ref = next((r for i, r in by_id.items() if fid.startswith(i) or i.startswith(fid)),
                       None)
            to.extend(ref.people if ref else ())
    for hand in plan.cc:
        if not hand.patch or any(n.startswith(hand.patch) for n in patch_names):
            (to if '<' in hand.who else cc).append(hand.who)
    return Recipients(tuple(_unique(to)), tuple(_unique(c for c in cc if c not in to)),
                      tuple(dropped))


def _unique(items: Iterable[str]) -> List[str]:
    out: List[str] = []
    seen: Set[str] = set()
    for item in items:
        key = _address(item).lower()
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _address(who: str) -> str:
    m = re.search(r'<([^>]+)>', who)
    return m.group(1) if m else who.strip()


def addresses(header_values: Sequence[str]) -> List[str]:
    """The bare addresses in To:/Cc: header values (comma-separated, possibly quoted)."""
    out = []
    for value in header_values:
        for part in re.findall(r'(?:"[^"]*"|[^,])+', value):
            if '@' in part:
                out.append(_address(part).lower())
    return out


# ---- the mails themselves ----

@dataclasses.dataclass(frozen=True)
class Identity:
    name: str
    email: str

    def __str__(self) -> str:
        return f'{self.name} <{self.email}>'


def git_identity(cwd: Path) -> Identity:
    """The user's git identity; refused when missing or unreachable."""
    def get(key: str) -> str:
        return subprocess.run(['git', 'config', key], capture_output=True, text=True,
                              cwd=cwd, check=False).stdout.strip()
    name, address = get('user.name'), get('user.email')
    fix = ('set your own: git config --global user.name "Your Name"; '
           'git config --global user.email <the address your mail goes out from>')
    if not name or not address:
        raise HarnessError(Exit.USAGE, f'no git identity (user.name {name!r}, user.email '
                           f'{address!r}); a Signed-off-by must name the person who sends '
                           f'the patches: {fix}')
    if not reachable(address):
        raise HarnessError(Exit.USAGE, f'git identity {name} <{address}> is a placeholder no '
                           f'mail reaches; the DCO needs a real person: {fix}')
    return Identity(name, address)


def resign(text: str, who: Identity) -> str:
    """The patch as @who sends it: a placeholder author becomes @who (in From:,
    the trailers and the cover letter's shortlog), a placeholder's
    Signed-off-by goes, whoever the author, and @who signs it off."""
    m = re.search(r'^From: ([^\n<]*?)\s*\n?\s*<([^>\n]+)>[ \t]*$', text, re.M)
    if not m:
        raise HarnessError(Exit.USAGE, 'not a git format-patch mail: no From: header')
    name, address = m.group(1).strip(), m.group(2)
    if not reachable(address):
        text = text[:m.start()] + f'From: {who}' + text[m.end():]
        text = text.replace(f'{name} <{address}>', str(who))
        text = re.sub(rf'^{re.escape(name)} (\(\d+\):)$', rf'{who.name} \1', text,
                      flags=re.M)
    text = re.sub(r'^Signed-off-by: (.*)\n', lambda s: '' if not reachable(s.group(1))
                  else s.group(0), text, flags=re.M)
    sob = f'Signed-off-by: {who}'
    if sob not in text and '\n---\n' in text:
        # after the last trailer, before the --- that ends the message
        head, sep, rest = text.partition('\n---\n')
        text = head.rstrip('\n') + '\n' + sob + sep + rest
    return text


def add_recipients(text: str, to: Sequence[str], cc: Sequence[str]) -> str:
    """To:/Cc: headers after Subject:'s (possibly folded) header."""
    m = re.search(r'^Subject: .*\n(?:[ \t].*\n)*', text, re.M)
    if not m:
        raise HarnessError(Exit.USAGE, 'not a git format-patch mail: no Subject: header')
    lines = ''.join(f'{h}: {a}\n' for h, addrs in (('To', to), ('Cc', cc)) for a in addrs)
    return text[:m.end()] + lines + text[m.end():]


def dated(text: str, when: datetime.datetime) -> str:
    """The mail dated when it is written, not when the commit was made."""
    return re.sub(r'^Date: .*$', 'Date: ' + email.utils.format_datetime(when), text,
                  count=1, flags=re.M)


def unthreaded(text: str) -> str:
    """The mail without In-Reply-To:/References: headers (git format-patch
    --thread writes them): a reply to nothing."""
    head, sep, body = text.partition('\n\n')
    head = re.sub(r'^(?:In-Reply-To|References):.*\n?(?:[ \t].*\n?)*', '', head,
                  flags=re.M | re.I)
    return head.rstrip('\n') + sep + body


def mails_for(plan: MailPlan, files: Sequence[Path], tree: Path, name: str,
              address: str) -> Dict[str, str]:
    """Each mail of a series as @name <@address> sends it: re-signed, dated now,
    To:/Cc: from @tree's MAINTAINERS, the Fixes: people and @plan's hand
    additions: for the whole series, or where @plan says the patches go
    separately, for each patch alone (and no mail a reply to another).
    @tree holds scripts/get_maintainer.pl."""
    who = Identity(name, address)
    patches = [p for p in files if p.name != COVER_LETTER]
    if plan.separate and len(patches) != len(files):
        raise HarnessError(Exit.USAGE, f'{plan.path} says the patches go separately '
                           f'("separate = true"), but {COVER_LETTER} would tie them into one '
                           'series: remove the cover letter, or the "separate" line')
    texts = {p.name: p.read_text() for p in patches}
    groups = [[p] for p in patches] if plan.separate else [patches]
    rcpt: Dict[str, Recipients] = {}
    for group in groups:
        r = recipients(plan, get_maintainer(tree, group), [texts[p.name] for p in group],
                       [p.name for p in group])
        rcpt.update({p.name: r for p in group})
    whole = rcpt[patches[0].name] if patches else Recipients((), (), ())
    now = datetime.datetime.now(datetime.timezone.utc)
    mails = {}
    for f in files:
        r = rcpt.get(f.name, whole)
        text = dated(add_recipients(resign(f.read_text(), who), r.to, r.cc), now)
        mails[f.name] = unthreaded(text) if plan.separate else text
    return mails
