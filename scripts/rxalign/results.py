"""The run's data, typed: case and arch statuses, verdicts, runs, and the gate.

Everything that reads or writes results goes through here: run-kunit builds
a Verdict per arch from the console log (verdict.py), the writers read
Results (report.py), and scripts/report loads them back with from_json.
An arch's status is never stored and trusted: it is decided from the cases,
in `decide()`, every time it is asked for; the JSON carries it only for
readers outside this package.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import re
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from .exitcodes import Exit
from .ktap_index import Index


class CaseStatus(str, enum.Enum):
    """What KTAP said of one case (kunit_parser's statuses, by our names)."""
    PASS = 'PASS'
    FAIL = 'FAIL'
    SKIP = 'SKIP'
    CRASH = 'CRASH'


class ArchStatus(str, enum.Enum):
    PASSED = 'passed'            # every declared case ran; each passed or skipped with a reason
    FAILED = 'failed'            # complete results, a case failed or skipped without a reason
    INFRA = 'infra'              # results missing: build, boot, crash, hang, a case absent
    ENVIRONMENT = 'environment'  # this machine cannot run the arch
    KNOWN = 'known'              # results missing, and an expected-failures rule says so

    @property
    def exit(self) -> Exit:
        return _EXIT[self]


_EXIT = {ArchStatus.PASSED: Exit.OK, ArchStatus.FAILED: Exit.TEST_FAILED,
         ArchStatus.INFRA: Exit.INFRA, ArchStatus.ENVIRONMENT: Exit.ENVIRONMENT,
         ArchStatus.KNOWN: Exit.OK}
# The most severe exit wins: results missing outrank a failed test.
_SEVERITY = (Exit.OK, Exit.TEST_FAILED, Exit.INFRA, Exit.ENVIRONMENT)


def _fields(data: Any, where: str, required: Tuple[str, ...]) -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f'{where}: expected an object, got {type(data).__name__}')
    lost = [k for k in required if k not in data]
    if lost:
        raise ValueError(f'{where}: no {", ".join(lost)}')
    return data


def _kind(value: Any) -> str:
    return 'null' if value is None else type(value).__name__


def _str(d: Dict[str, Any], key: str, where: str) -> str:
    """A string field; absent is ''."""
    value = d.get(key, '')
    if not isinstance(value, str):
        raise ValueError(f'{where}: {key} is {_kind(value)}, not a string')
    return value


def _list(d: Dict[str, Any], key: str, where: str) -> List[Any]:
    """A list field; absent is []."""
    value = d.get(key, [])
    if not isinstance(value, list):
        raise ValueError(f'{where}: {key} is {_kind(value)}, not a list')
    return value


def _strs(d: Dict[str, Any], key: str, where: str) -> List[str]:
    """A list of strings; absent is []."""
    value = _list(d, key, where)
    if not all(isinstance(x, str) for x in value):
        raise ValueError(f'{where}: {key} is not a list of strings')
    return value


def _map(d: Dict[str, Any], key: str, where: str, of: Any = str) -> Dict[str, Any]:
    """An object whose values are all of type @of (numbers: int or float, no
    bool); absent is {}."""
    value = d.get(key, {})
    kinds = (int, float) if of is float else (of,)
    if not isinstance(value, dict) or not all(
            isinstance(x, kinds) and not isinstance(x, bool) for x in value.values()):
        what = 'numbers' if of is float else 'strings'
        raise ValueError(f'{where}: {key} is not an object of {what}')
    return value


def _enum(kind: Any, value: Any, where: str, what: str = 'status') -> Any:
    try:
        return kind(value)
    except ValueError:
        known = ', '.join(repr(k.value) for k in kind)
        raise ValueError(f'{where}: unknown {what} {value!r} (known: {known})') from None


@dataclasses.dataclass
class Case:
    name: str                   # suite.case or suite.case.param
    status: CaseStatus
    message: str = ''           # the failed expectation, or the skip reason
    log: List[str] = dataclasses.field(default_factory=list)
    known: str = ''             # why a FAIL is a known failure (--expected), else ''
    # What failed the case besides its assertions, else '': what the kernel
    # reported while it ran (a WARN, KASAN, lockdep, the module's own "kernel
    # state changed" check), or a line of its own log that contradicts its
    # `ok` (a frame it judged failed). No known-failure rule excuses it.
    report: str = ''

    @property
    def failed(self) -> bool:
        """KTAP said `not ok`, or a report failed a case that said ok or skip."""
        return self.status == CaseStatus.FAIL or \
            (bool(self.report) and self.status in (CaseStatus.PASS, CaseStatus.SKIP))

    @property
    def excused(self) -> bool:
        """A known failure: a rule covers the failed assertion, and nothing else
        (a kernel report, its own log) failed the case."""
        return self.status == CaseStatus.FAIL and bool(self.known) and not self.report

    @property
    def shown(self) -> str:
        """The status every report shows: a known failure is XFAIL, a case a
        report failed is FAIL whatever KTAP said of it."""
        if self.excused:
            return 'XFAIL'
        return CaseStatus.FAIL.value if self.failed else self.status.value

    @property
    def gating(self) -> bool:
        """Fails the arch: a failure nobody expected (or a report), or a skip
        that gives no reason."""
        return (self.failed and not self.excused) or \
            (self.status == CaseStatus.SKIP and not self.message and not self.report)

    def to_json(self) -> Dict[str, Any]:
        d = {'name': self.name, 'status': self.status.value, 'message': self.message,
             'log': self.log}
        if self.known:
            d['known'] = self.known
        if self.report:
            d['report'] = self.report
        return d

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Case':
        d = _fields(data, where, ('name', 'status'))
        name = _str(d, 'name', f'{where}: a case')
        where = f'{where}: {name}'
        # A known mark is never read back: the rules given to the reader decide
        # it afresh (known_failures.apply); an XFAIL of older results is a FAIL.
        status = _str(d, 'status', where)
        return cls(name=name, status=_enum(CaseStatus, 'FAIL' if status == 'XFAIL' else status,
                                           where),
                   message=_str(d, 'message', where), log=_strs(d, 'log', where),
                   report=_str(d, 'report', where))


class DriverClass(str, enum.Enum):
    """How a driver of the drivers suite places a received frame (`class=`):
    rx_class_names[] of kunit-tests/rx_align_drivers_kunit.c, which a test
    holds this to."""
    IP_ALIGN = 'ip_align'       # NET_IP_ALIGN in front of the DMA or the copy
    COPY_PAD2 = 'copy_pad2'     # a CPU copy behind a literal 2
    CHIP_SHIFT2 = 'chip_shift2'  # the chip writes 2 bytes before the frame
    DEVICE = 'device'           # the chip or no reserve decides: the arch's rule only
    HYPERVISOR = 'hypervisor'   # the hypervisor fills the buffer: recorded
    XDP = 'xdp'                 # a native XDP program ran first: NET_IP_ALIGN judges


class FrameVerdict(str, enum.Enum):
    """What the case that printed a frame concluded of it (`verdict=`): from the
    same comparison as its expectation (rx_align_report_frame() in the C)."""
    PASS = 'pass'
    FAIL = 'fail'
    COST = 'cost'               # not judged, and off a 4-byte boundary: what it costs
    RECORDED = 'recorded'       # not judged (a hypervisor's buffer): measured and shown


FRAME_PREFIX = 'rx_align_frame: '
# The keys of an rx_align_frame: line, by kind; any other key is kept as extra.
_FRAME_TEXT = {'path': 'path', 'frame': 'frame', 'driver': 'driver', 'rule': 'rule'}
_FRAME_INT = {'len': 'length', 'headroom': 'headroom', 'mac_line_off': 'mac_line_off',
              'nh_mod4': 'nh_mod4', 'want_mod4': 'want_mod4'}
# want_mod4 of a frame no rule judges
NOT_JUDGED = -1
_FRAME_FLAG = {'head_frag': 'head_frag', 'pp_recycle': 'pp_recycle'}
_FRAME_ENUM: Dict[str, Tuple[str, Any]] = {'class': ('driver_class', DriverClass),
                                           'verdict': ('verdict', FrameVerdict)}


def _frame_int(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)) or \
            (isinstance(value, str) and not (value.isascii() and value.isdigit())):
        raise ValueError(f'{key}={value!r} is not a number of bytes')
    n = int(value)
    if key in ('nh_mod4', 'want_mod4') and n > 3:
        raise ValueError(f'nh_mod4={n} is no remainder of a division by 4')
    return n


def _frame_flag(key: str, value: Any) -> bool:
    if value in ('0', '1') or (isinstance(value, int) and value in (0, 1)):
        return bool(int(value))
    raise ValueError(f'{key}={value!r} is not 0 or 1')


@dataclasses.dataclass
class Frame:
    """One `rx_align_frame:` line: where one receive path put one frame.

    `case` is the case that printed it (suite.case[.param]); for a case that
    never finished (the one a crash hit) it is the case that was running.
    A key the line did not have is None (or ''), never a guess.
    """
    case: str
    path: str = ''                          # the receive path (or the driver's own)
    frame: str = ''                         # ipv4, ipv6, vlan_ipv4, ...
    length: Optional[int] = None            # `len`: the frame's length
    headroom: Optional[int] = None          # skb_headroom() when the frame was there
    mac_line_off: Optional[int] = None      # the MAC header's offset in its cache line
    nh_mod4: Optional[int] = None           # the IP header's address mod 4
    want_mod4: Optional[int] = None         # where its rule wants it; None: not judged
    rule: str = ''                          # the rule that judged it (rx_align_want())
    head_frag: Optional[bool] = None
    pp_recycle: Optional[bool] = None
    driver: str = ''                        # the drivers suite: a real NIC driver
    driver_class: Optional[DriverClass] = None   # `class`
    verdict: Optional[FrameVerdict] = None
    extra: Dict[str, str] = dataclasses.field(default_factory=dict)   # keys we do not know

    @classmethod
    def from_fields(cls, case: str, fields: Mapping[str, Any]) -> 'Frame':
        """The line's key=value pairs (strings, or JSON's numbers) -> a Frame;
        ValueError says what is wrong with them."""
        f = cls(case=case)
        for key, value in fields.items():
            if key in _FRAME_TEXT:
                if not isinstance(value, str) or not value:
                    raise ValueError(f'{key}={value!r} is not a name')
                setattr(f, _FRAME_TEXT[key], value)
            elif key == 'want_mod4' and str(value) == str(NOT_JUDGED):
                f.want_mod4 = None
            elif key in _FRAME_INT:
                setattr(f, _FRAME_INT[key], _frame_int(key, value))
            elif key in _FRAME_FLAG:
                setattr(f, _FRAME_FLAG[key], _frame_flag(key, value))
            elif key in _FRAME_ENUM:
                attr, kind = _FRAME_ENUM[key]
                try:
                    setattr(f, attr, kind(value))
                except ValueError:
                    known = '|'.join(k.value for k in kind)
                    raise ValueError(f'{key}={value!r} is not one of {known}') from None
            elif key == 'extra' and isinstance(value, dict):
                f.extra.update({str(k): str(x) for k, x in value.items()})
            else:
                f.extra[str(key)] = str(value)
        return f

    def fields(self) -> Dict[str, Any]:
        """The keys the line had, by the line's names, typed (the inverse of from_fields)."""
        d: Dict[str, Any] = {}
        for key, attr in {**_FRAME_TEXT, **_FRAME_INT, **_FRAME_FLAG}.items():
            value = getattr(self, attr)
            if value not in ('', None):
                d[key] = int(value) if isinstance(value, bool) else value
        for key, (attr, _) in _FRAME_ENUM.items():
            value = getattr(self, attr)
            if value is not None:
                d[key] = value.value
        return d

    def to_json(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {'case': self.case, **self.fields()}
        if self.extra:
            d['extra'] = dict(self.extra)
        return d

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Frame':
        d = _fields(data, where, ('case',))
        try:
            return cls.from_fields(_str(d, 'case', where),
                                   {k: x for k, x in d.items() if k != 'case'})
        except ValueError as e:
            raise ValueError(f'{where}: frame of {d["case"]}: {e}') from None


@dataclasses.dataclass(frozen=True)
class MalformedFrame:
    """An `rx_align_frame:` line that could not be read: kept, counted, never a crash."""
    case: str
    line: str
    why: str

    def to_json(self) -> Dict[str, str]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'MalformedFrame':
        d = _fields(data, where, ('line',))
        return cls(case=_str(d, 'case', where), line=_str(d, 'line', where),
                   why=_str(d, 'why', where))


def _key_values(text: str) -> Dict[str, str]:
    """A line's `key=value key=value ...`; ValueError says what is wrong."""
    fields: Dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition('=')
        if not sep or not key:
            raise ValueError(f'{token!r} is no key=value')
        if key in fields:
            raise ValueError(f'{key} given twice')
        fields[key] = value
    if not fields:
        raise ValueError('no key=value at all')
    return fields


def parse_frame(case: str, text: str) -> Union[Frame, MalformedFrame]:
    """What follows `rx_align_frame: ` on a console line -> a Frame, or why not."""
    try:
        return Frame.from_fields(case, _key_values(text))
    except ValueError as e:
        return MalformedFrame(case=case, line=(FRAME_PREFIX + text).strip(), why=str(e))


SENT_PREFIX = 'rx_align_sent: '


class SendOutcome(str, enum.Enum):
    """What became of a frame the drivers suite sent (outcome=)."""
    SEEN = 'seen'
    LOST = 'lost'               # no send of it arrived


@dataclasses.dataclass(frozen=True)
class Sent:
    """One `rx_align_sent:` line of the drivers suite (rx_report_sent() in
    the C): one frame sent to a NIC, how many sends it took, whether it came."""
    frame: str
    length: int
    sends: int                  # 0: an earlier frame of its kind and length was seen
    outcome: SendOutcome

    @property
    def resent(self) -> int:
        return max(self.sends - 1, 0)


def parse_sent(text: str) -> Sent:
    """What follows `rx_align_sent: ` on a console line -> a Sent; ValueError
    says what is wrong with it."""
    fields = _key_values(text)
    missing = [k for k in ('frame', 'len', 'sends', 'outcome') if k not in fields]
    if missing:
        raise ValueError(f'no {", ".join(missing)} in {text!r}')
    try:
        outcome = SendOutcome(fields['outcome'])
    except ValueError:
        raise ValueError(f'outcome={fields["outcome"]!r} is not one of seen|lost') from None
    if not (fields['sends'].isascii() and fields['sends'].isdigit()):
        raise ValueError(f'sends={fields["sends"]!r} is not a count')
    return Sent(frame=fields['frame'], length=_frame_int('len', fields['len']),
                sends=int(fields['sends']), outcome=outcome)


@dataclasses.dataclass(frozen=True)
class FileSummary:
    """--coverage: report.md's line for one profiled file (coverage.py)."""
    source: str
    lines: int
    lines_ran: int
    functions: int
    functions_ran: int

    def describe(self) -> str:
        return (f'{self.source}: {self.lines_ran}/{self.lines} lines ran, '
                f'{self.functions_ran}/{self.functions} functions ran')

    def to_json(self) -> Dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'FileSummary':
        if not isinstance(data, dict) or not isinstance(data.get('source'), str) or any(
                not isinstance(data.get(k), int) or isinstance(data.get(k), bool)
                for k in ('lines', 'lines_ran', 'functions', 'functions_ran')):
            raise ValueError(f'{where}: a coverage summary is not {{source, lines, lines_ran, '
                             'functions, functions_ran}')
        return cls(data['source'], data['lines'], data['lines_ran'], data['functions'],
                   data['functions_ran'])


@dataclasses.dataclass
class ArchRun:
    """What happened when we drove kunit.py for one arch (before judging KTAP)."""
    arch: str
    phase_failed: Optional[str] = None   # 'config', 'build' or None
    timed_out: bool = False
    hung: int = 0                        # stopped after this many silent seconds
    seconds: Dict[str, float] = dataclasses.field(default_factory=dict)  # phase -> s
    ktap_log: Optional[Path] = None
    build_log: Optional[Path] = None
    kmemleak: bool = False               # /init scans for leaks after the suites
    build_dir: Optional[Path] = None     # kunit.py's: the .config, the kernel
    config_copy: Optional[Path] = None   # <arch>/config: the .config, in the results
    reused: bool = False                 # the build stamp matched: neither configured nor built

    @property
    def config(self) -> Optional[Path]:
        """The .config the kernel was built with."""
        return self.build_dir / '.config' if self.build_dir else None


class ProblemKind(str, enum.Enum):
    """What kept an arch from complete results, in the order decide() ranks
    them: the first found is the cause shown.  verdict.judge() records every
    one it finds and ranks none."""
    UNRUNNABLE = 'unrunnable'          # this machine cannot build or boot the arch
    NO_RESULTS = 'no-results'          # the run was interrupted, or a merge lacks the arch
    RECORDED = 'recorded'              # stored by results that predate kinds
    BUILD = 'build'                    # config or build failed
    CRASH = 'crash'                    # panic, oops, BUG
    UNKNOWN_REPORT = 'unknown-report'  # a report banner (BUG, WARNING, ====) no table knows
    SECOND_STREAM = 'second-stream'    # a reboot, a second run
    DROPPED = 'console-dropped'        # printk dropped messages after KTAP began
    LATE_KMEMLEAK = 'late-kmemleak'    # --debug: a kmemleak report after its scan began
    HUNG = 'hung'                      # no console output for --idle-timeout
    NO_EXIT = 'no-exit'                # every suite ran, QEMU did not exit by --timeout
    TIMEOUT = 'timeout'                # no results within --timeout
    NO_KTAP = 'no-ktap'                # no boot, wrong console
    UNPARSEABLE = 'unparseable'        # kunit.py's parser did not finish on the log
    # Ranked after "no case ran" and "a case absent or crashed", which explain them:
    KTAP_ERRORS = 'ktap-errors'        # errors the parser found in the KTAP
    NO_KMEMLEAK = 'no-kmemleak'        # --debug: no kmemleak scan report
    NO_COVERAGE = 'no-coverage'        # --coverage: no gcov counters, or unreadable ones

    @property
    def status(self) -> ArchStatus:
        return ArchStatus.ENVIRONMENT if self is ProblemKind.UNRUNNABLE else ArchStatus.INFRA

    @property
    def excusable(self) -> bool:
        """What an `ARCH: *` rule may excuse: this run's own evidence that the
        arch gave no case (it cannot run here, did not build, crashed, hung or
        printed no KTAP before any case); never results that are missing (a
        job that died or never ran, an interrupted run), stored by older
        results, or that the harness cannot read."""
        return self in (ProblemKind.UNRUNNABLE, ProblemKind.BUILD, ProblemKind.CRASH,
                        ProblemKind.HUNG, ProblemKind.TIMEOUT, ProblemKind.NO_KTAP)

    @property
    def after_cases(self) -> bool:
        """Ranked below a run without cases and an incomplete one."""
        return self in (ProblemKind.KTAP_ERRORS, ProblemKind.NO_KMEMLEAK,
                        ProblemKind.NO_COVERAGE)


_RANK = list(ProblemKind)


@dataclasses.dataclass(frozen=True)
class Problem:
    """Something that kept an arch's results from being complete, as found."""
    kind: ProblemKind
    cause: str

    @property
    def status(self) -> ArchStatus:
        return self.kind.status

    def to_json(self) -> Dict[str, str]:
        return {'kind': self.kind.value, 'status': self.status.value, 'cause': self.cause}

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Problem':
        d = _fields(data, where, ('kind', 'cause'))
        return cls(_enum(ProblemKind, _str(d, 'kind', where), where, 'problem kind'),
                   _str(d, 'cause', where))


@dataclasses.dataclass
class Verdict:
    arch: str
    cases: List[Case] = dataclasses.field(default_factory=list)
    missing: List[str] = dataclasses.field(default_factory=list)   # declared, absent
    facts: Dict[str, str] = dataclasses.field(default_factory=dict)
    seconds: Dict[str, float] = dataclasses.field(default_factory=dict)
    logs: Dict[str, str] = dataclasses.field(default_factory=dict)
    problems: List[Problem] = dataclasses.field(default_factory=list)   # as found
    known: str = ''             # an `ARCH: *` rule: covers the arch only if no case ran
    frames: List[Frame] = dataclasses.field(default_factory=list)     # rx_align_frame: lines
    malformed_frames: List[MalformedFrame] = dataclasses.field(default_factory=list)
    # suite -> cases this arch's kernel had to run (its .config decides: --drivers)
    declared: Dict[str, List[str]] = dataclasses.field(default_factory=dict)
    reused: bool = False        # not configured or built: an earlier build of the same inputs
    toolchain: str = ''         # what built and booted it: toolchains.Toolchain.describe()
    # where each case is in ktap.log, from the walk that judged it; None:
    # results of format 3 or older, or no console log was read
    index: Optional[Index] = None
    # --coverage: lines and functions of each profiled file that ran (<arch>/coverage/)
    coverage: List[FileSummary] = dataclasses.field(default_factory=list)

    @property
    def problem(self) -> Optional[Problem]:
        """The problem decide() ranks first, if the run had any."""
        ranked = sorted(self.problems, key=lambda p: _RANK.index(p.kind))
        return ranked[0] if ranked else None

    @property
    def status(self) -> ArchStatus:
        return decide(self)[0]

    @property
    def cause(self) -> str:
        return decide(self)[1]

    @property
    def exit(self) -> Exit:
        return self.status.exit

    def count(self, shown: str) -> int:
        return sum(1 for c in self.cases if c.shown == shown)

    def incomplete(self) -> List[str]:
        """What keeps the cases that ran from being the whole run: declared
        cases absent, cases crashed (empty if none)."""
        crashed = [c.name for c in self.cases if c.status == CaseStatus.CRASH]
        return ([f'missing {_names(self.missing, 5)}'] if self.missing else []) + \
            ([f'crashed {_names(crashed, 5)}'] if crashed else [])

    def frames_of(self, case: str) -> List[Frame]:
        """The frames one case printed."""
        return [f for f in self.frames if f.case == case]

    def mark_contradictions(self) -> 'Verdict':
        """A case that said ok (or skipped: KUnit writes SKIP over FAIL) but
        printed a frame it judged failed, or one that took an unaligned-access
        fixup, has a log that contradicts it: that is its report
        (verdict.judge() and from_json() both ask, so that results read back
        are judged the same)."""
        for c in self.cases:
            bad = [f for f in self.frames_of(c.name) if _failed_frame(f)]
            if c.status in (CaseStatus.PASS, CaseStatus.SKIP) and bad and not c.report:
                fields = ' '.join(f'{k}={x}' for k, x in {**bad[0].fields(),
                                                           **bad[0].extra}.items())
                said = 'passed' if c.status == CaseStatus.PASS else 'skipped'
                c.report = f'{said}, but printed a frame it judged failed: {fields}'
        return self

    def to_json(self) -> Dict[str, Any]:
        status, cause = decide(self)
        return {'arch': self.arch, 'status': status.value, 'cause': cause,
                'cases': [c.to_json() for c in self.cases], 'missing': self.missing,
                'facts': self.facts, 'seconds': self.seconds, 'logs': self.logs,
                'problem': self.problem.to_json() if self.problem else None,
                'problems': [p.to_json() for p in self.problems],
                'known': self.known,
                'frames': [f.to_json() for f in self.frames],
                'frames_malformed': [m.to_json() for m in self.malformed_frames],
                'declared': self.declared, 'reused': self.reused,
                'toolchain': self.toolchain,
                'index': self.index.to_json() if self.index else None,
                'coverage': [c.to_json() for c in self.coverage]}

    @classmethod
    def from_json(cls, data: Any, where: str, version: int = 3) -> 'Verdict':
        """One arch of results.json of format @version; ValueError names a field
        that is missing or not of its type."""
        d = _fields(data, where, ('arch',))
        arch = _str(d, 'arch', where)
        where = f'{where}: {arch}'
        stored = _enum(ArchStatus, _str(d, 'status', where), where) if 'status' in d else None
        reused = d.get('reused', False)
        if not isinstance(reused, bool):
            raise ValueError(f'{where}: reused is {_kind(reused)}, not true or false')
        v = cls(arch=arch, cases=[Case.from_json(c, where) for c in _list(d, 'cases', where)],
                missing=_strs(d, 'missing', where), facts=dict(_map(d, 'facts', where)),
                seconds={k: float(x) for k, x in _map(d, 'seconds', where, float).items()},
                logs=dict(_map(d, 'logs', where)), reused=reused,
                toolchain=_str(d, 'toolchain', where))
        declared = _map(d, 'declared', where, list)
        v.declared = {suite: _strs(declared, suite, f'{where}: declared') for suite in declared}
        v.frames = [Frame.from_json(f, f'{where}: frames') for f in _list(d, 'frames', where)]
        v.malformed_frames = [MalformedFrame.from_json(m, f'{where}: frames_malformed')
                              for m in _list(d, 'frames_malformed', where)]
        if d.get('index') is not None:
            v.index = Index.from_json(d['index'], where)
        v.coverage = [FileSummary.from_json(c, f'{where}: coverage')
                      for c in _list(d, 'coverage', where)]
        if 'problems' in d or version >= 3:
            # what kept the results from being complete: a list, even when empty
            # (format 3 always has it; the first files of format 2 had `problem`)
            if not isinstance(d.get('problems'), list):
                raise ValueError(f'{where}: problems is {_kind(d.get("problems"))}, not a list')
            v.problems = [Problem.from_json(p, f'{where}: problems') for p in d['problems']]
            return v.mark_contradictions()
        problem = d.get('problem')
        if problem is not None:
            # results written before problems had kinds: the one they stored
            problem = _fields(problem, f'{where}: problem', ('status',))
            status = _enum(ArchStatus, problem['status'], f'{where}: problem')
            if status not in (ArchStatus.INFRA, ArchStatus.ENVIRONMENT):
                raise ValueError(f'{where}: a problem is infra or environment, not {status.value}')
            v.problems = [Problem(ProblemKind.UNRUNNABLE if status == ArchStatus.ENVIRONMENT
                                  else ProblemKind.RECORDED,
                                  _str(problem, 'cause', f'{where}: problem'))]
        elif 'problem' not in d and stored in (ArchStatus.INFRA, ArchStatus.ENVIRONMENT,
                                               ArchStatus.KNOWN):
            # Results written before `problem` was a field: a stored status may
            # only make an arch worse than its cases say, never better. A
            # stored `known` says results were missing; whether a rule may
            # excuse that is for this --expected and decide() to say.
            v.problems = [Problem(ProblemKind.UNRUNNABLE if stored == ArchStatus.ENVIRONMENT
                                  else ProblemKind.RECORDED, _str(d, 'cause', where))]
        return v.mark_contradictions()


def _see(v: Verdict) -> str:
    ktap = v.logs.get('ktap')
    return f' (see {ktap})' if ktap else ''


def _names(names: List[str], n: int = 3) -> str:
    return ', '.join(names[:n]) + (' ...' if len(names) > n else '')


def _failed_frame(f: Frame) -> bool:
    """A frame line the case that printed it judged failed."""
    return f.verdict == FrameVerdict.FAIL


def decide(v: Verdict) -> Tuple[ArchStatus, str]:
    """An arch's status and one-line cause: the one place that decides it.

    In order, the first that holds decides:
      the run gave no complete results: of the problems verdict.judge() found
      in the run and its console, the first in ProblemKind's order (this
      machine cannot run the arch, config or build failed, a kernel crash, a
      second KTAP stream, a console that dropped messages, a kmemleak report
      its scan may not have read, a hang, the --timeout, no KTAP) -> its status
      no case ran                                   -> infra  (exit 3)
      a declared case absent, or a case crashed     -> infra
      KTAP errors, or --debug without a kmemleak report (problems an absent
      or crashed case would explain)                -> infra
      a case failed (a kernel report in its window fails it; so does a frame
      it judged failed, or one that took an unaligned-access fixup, printed
      by a case that said ok or skip, or an expectation that failed before
      a case's `ok ... # SKIP`: Case.report), or skipped without a reason, and
      no rule expects it                            -> failed (exit 1)
      else                                          -> passed (exit 0)
    An `ARCH: *` rule (v.known) makes a problem known only when no case ran
    at all and the run itself showed why (ProblemKind.excusable): never a
    failure, crash, hang or missing case of an arch that produced results,
    nor an arch whose results are missing. It is asked every time
    (Verdict.status), never stored and trusted, so results read back from
    JSON are judged by these rules.
    """
    first = v.problem
    if first and not first.kind.after_cases:
        status, cause = first.status, first.cause
    elif not v.cases:
        status, cause = ArchStatus.INFRA, f'{v.arch}: no test case ran{_see(v)}'
    elif v.incomplete():
        status, cause = (ArchStatus.INFRA,
                         f'{v.arch}: incomplete KTAP: {"; ".join(v.incomplete())}{_see(v)}')
    elif first:
        status, cause = first.status, first.cause
    else:
        failed = [c.name for c in v.cases if c.gating and c.status == CaseStatus.FAIL]
        silent = [c.name for c in v.cases if c.gating and c.status == CaseStatus.SKIP
                  and not c.report]
        # a case that said ok (or skip) and failed all the same: its log contradicts it
        contradicted = [c.name for c in v.cases if c.gating and c.status == CaseStatus.PASS
                        and c.report]
        overruled = [c.name for c in v.cases if c.gating and c.status == CaseStatus.SKIP
                     and c.report]
        if failed or silent or contradicted or overruled:
            parts = []
            if failed:
                parts.append(f'{len(failed)} failed: {_names(failed)}')
            if silent:
                parts.append(f'{len(silent)} skipped without a reason: {_names(silent)}')
            if contradicted:
                parts.append(f'{len(contradicted)} passed but printed a failed frame or '
                             f'report: {_names(contradicted)}')
            if overruled:
                parts.append(f'{len(overruled)} skipped after a failure of their own (a failed '
                             f'expectation or frame; KUnit writes SKIP over FAIL): '
                             f'{_names(overruled)}')
            return ArchStatus.FAILED, f'{v.arch}: {"; ".join(parts)}{_see(v)}'
        known = v.count('XFAIL')
        return ArchStatus.PASSED, (f'{v.arch}: {v.count("PASS")} passed, {v.count("SKIP")} '
                                   'skipped with a reason'
                                   + (f', {known} known failure(s)' if known else ''))
    if v.known and not v.cases and all(p.kind.excusable for p in v.problems):
        return ArchStatus.KNOWN, f'{cause} [known: {v.known}]'
    if v.known:
        cause += (' (the arch\'s "*" rule covers only an arch that ran and gave no case, '
                  'not one with results or whose results are missing)')
    return status, cause


def gate(verdicts: Iterable[Verdict]) -> Exit:
    """The exit status of a run or a merge: the most severe of its arches."""
    return max((v.exit for v in verdicts), key=_SEVERITY.index, default=Exit.OK)


def _kernel_of(tree: str) -> str:
    """The kernel of results written before they said it: Debian's package name."""
    m = re.match(r'linux-source-(\d+\.\d+)\b', tree)
    return m.group(1) if m else ''


@dataclasses.dataclass(frozen=True)
class RunMeta:
    """What one run of run-kunit tested, and which run it was."""
    tree: str                   # the base, for humans: a Debian package or a path
    head: str                   # the commit tested: base + series + tests + --patches
    tree_hash: str              # git's hash of that commit's tree: equal content, equal hash
    series: str                 # sha256 of what was applied: series, tests, --patches
    run_id: str                 # one per CI pipeline (--run-id), or made up per run
    arches: Tuple[str, ...]     # what the run was asked for
    finished: str
    base_commit: str = ''
    interrupted: str = ''       # the run was stopped: only some arches are complete
    kernel: str = ''            # the kernel version tested (6.12; a --tree's VERSION.PATCHLEVEL)
    # --patches, each "name sha256", () for none; None: results that did not say
    patches: Optional[Tuple[str, ...]] = None
    command: str = ''           # the run-kunit command that repeats the run ('' unknown)
    rxalign: str = ''           # this project's commit, -dirty if changed ('' unknown)
    # the run it was compared with (--baseline), relative to its results
    # directory; '' for none
    baseline: str = ''
    # the suites it booted (kunit.py's filter glob): a --drivers run and a
    # plain one test different cases; '' in results that did not say
    suites: str = ''

    IDENTITY = ('tree_hash', 'series', 'run_id')

    def identity(self) -> Tuple[str, str, str]:
        return (self.tree_hash, self.series, self.run_id)

    def to_json(self) -> Dict[str, Any]:
        d = dataclasses.asdict(self)
        d['arches'] = list(self.arches)
        if self.patches is None:
            del d['patches']
        else:
            d['patches'] = list(self.patches)
        return d

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'RunMeta':
        where = f'{where}: meta'
        d = _fields(data, where, ())
        text = {f: _str(d, f, where) for f in ('tree', 'head', 'tree_hash', 'series', 'run_id',
                                              'finished', 'base_commit', 'interrupted',
                                              'kernel', 'command', 'rxalign', 'baseline',
                                              'suites')}
        text['kernel'] = text['kernel'] or _kernel_of(text['tree'])
        patches = tuple(_strs(d, 'patches', where)) if 'patches' in d else None
        return cls(arches=tuple(_strs(d, 'arches', where)), patches=patches, **text)


# The layout of results.json: 2 has `format` and each arch's `problem`; 3 a
# case's kernel `report`, which no known-failure rule excuses (a reader of 2
# would), and the run's `kernel`; 4 each arch's `index` (where its cases are
# in ktap.log: a reader of 3 walks the log for it), each arch's `config` log
# (the kernel's .config), and the run's `command`, `rxalign` commit and
# `baseline`; a file without `format` is 1 (older run-kunit). Any other is
# refused.
RESULTS_FORMAT = 4
KNOWN_FORMATS = (1, 2, 3, RESULTS_FORMAT)


class UnknownFormat(ValueError):
    """A results file of a format this reader does not know (newer, or not ours)."""


@dataclasses.dataclass
class Results:
    """One run's results, or several merged: the arches, and what each run tested."""
    runs: List[RunMeta]
    arches: Dict[str, Verdict]

    @property
    def meta(self) -> RunMeta:
        return self.runs[0]

    def gate(self) -> Exit:
        return gate(self.arches.values())

    def to_json(self) -> Dict[str, Any]:
        meta = self.meta.to_json() if self.runs else {}
        if len(self.runs) > 1:
            meta['arches'] = list(self.arches)
            meta['runs'] = [r.to_json() for r in self.runs]
        return {'format': RESULTS_FORMAT, 'meta': meta,
                'arches': {a: v.to_json() for a, v in self.arches.items()}}

    @classmethod
    def from_json(cls, data: Any, where: str) -> 'Results':
        d = _fields(data, where, ('meta', 'arches'))
        version = d.get('format', 1)
        if isinstance(version, bool) or version not in KNOWN_FORMATS:
            raise UnknownFormat(f'{where}: results format {version!r}, this scripts/report '
                                f'reads formats {", ".join(map(str, KNOWN_FORMATS))}: '
                                'regenerate the reports with the run-kunit that wrote them')
        if not isinstance(d['arches'], dict):
            raise ValueError(f'{where}: arches is not an object of arch -> verdict')
        meta = _fields(d['meta'], f'{where}: meta', ())
        runs = meta.get('runs')
        if runs is not None and not isinstance(runs, list):
            raise ValueError(f'{where}: meta: runs is {_kind(runs)}, not a list')
        metas = [RunMeta.from_json(r, where) for r in runs] if runs is not None \
            else [RunMeta.from_json(meta, where)]
        arches = {}
        for name, v in d['arches'].items():
            verdict = Verdict.from_json(v, where, version)
            if verdict.arch != name:
                raise ValueError(f'{where}: the verdict filed under {name} is {verdict.arch}\'s')
            arches[name] = verdict
        return cls(runs=metas, arches=arches)


def read_dir(d: Path) -> Tuple[Results, Dict[str, str]]:
    """One results directory -> its Results, and the statuses its file claims."""
    path = d / 'results.json'
    try:
        data = json.loads(path.read_text(encoding='utf-8'))
        results = Results.from_json(data, str(path))
    except (OSError, RecursionError) as e:
        raise ValueError(f'{path}: not a results file of run-kunit ({e})') from e
    except ValueError as e:
        if isinstance(e, UnknownFormat) or str(e).startswith(str(path)):
            raise
        raise ValueError(f'{path}: not a results file of run-kunit ({e})') from e
    for v in results.arches.values():
        # logs are stored relative to the directory (older results: absolute)
        for key, log in v.logs.items():
            if not Path(log).is_absolute():
                v.logs[key] = str(d / log)
                v.problems = [Problem(p.kind, p.cause.replace(f'(see {log})',
                                                              f'(see {v.logs[key]})'))
                              for p in v.problems]
    claimed = {a: str(v.get('status', '')) for a, v in data['arches'].items()}
    return results, claimed
