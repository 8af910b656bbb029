"""Fault logs made by the tests: pass.ktap with one small edit each.

`fixtures/pass.ktap` is the raw console log of a real x86_64 run; every
fault the verdict rules must see is that log with a few lines replaced,
inserted or cut, written here where the edit can be read, rather than a
second 850-line copy in fixtures/.  `kmemleak_leak.ktap` stays a file: it is
the real `--debug` log of a mutation run, not an edit.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

FIXTURES = Path(__file__).resolve().parent / 'fixtures'

Lines = List[str]


def pass_log() -> Lines:
    return (FIXTURES / 'pass.ktap').read_text().splitlines()


def at(lines: Lines, line: str, nth: int = 1) -> int:
    """The index of the nth line equal to `line` (stripped of indentation)."""
    seen = 0
    for i, ln in enumerate(lines):
        if ln.strip() == line.strip():
            seen += 1
            if seen == nth:
                return i
    raise ValueError(f'no line {line!r} (#{nth}) in pass.ktap')


def replace(lines: Lines, line: str, new: Lines, nth: int = 1) -> Lines:
    i = at(lines, line, nth)
    return lines[:i] + new + lines[i + 1:]


def insert_before(lines: Lines, line: str, new: Lines, nth: int = 1) -> Lines:
    i = at(lines, line, nth)
    return lines[:i] + new + lines[i:]


def cut_before(lines: Lines, line: str, nth: int = 1) -> Lines:
    """Everything before the line: output that stops there."""
    return lines[:at(lines, line, nth)]


def headroom_failure(length: int, line: int) -> Lines:
    return [f'    # rx_napi_alloc: EXPECTATION FAILED at net/core/tests/rx_align_kunit.c:{line}',
            '    Expected skb_headroom(skb) == rx_headroom(path), but',
            '        skb_headroom(skb) == 66 (0x42)',
            '        rx_headroom(path) == 64 (0x40)',
            f'arch x86_64, napi_alloc_skb, len {length}: headroom 66, expected pad 64 + '
            'NET_IP_ALIGN 0']


def suite_failed(lines: Lines) -> Lines:
    lines = replace(lines, 'ok 2 rx_napi_alloc', ['    not ok 2 rx_napi_alloc'])
    return replace(lines, 'ok 2 net_rx_align_alloc', ['not ok 2 net_rx_align_alloc'])


def fail() -> Lines:
    """One parameter fails an expectation (headroom 66, expected 64)."""
    lines = replace(pass_log(), 'ok 3 napi_alloc_skb len=60',
                    headroom_failure(60, 662) + ['        not ok 3 napi_alloc_skb len=60'])
    return suite_failed(lines)


def fail_first_param() -> Lines:
    """The first parameter of a case fails: its lines come before the parameter list."""
    lines = replace(pass_log(), 'ok 1 napi_alloc_skb len=0',
                    headroom_failure(0, 665) + ['        not ok 1 napi_alloc_skb len=0'])
    return suite_failed(lines)


GFP_DMA = [f'ok {89 + i} __netdev_alloc_skb_gfp_dma len={n}' for i, n in enumerate(
    (0, 1, 60, 64, 128, 192, 193, 448, 449, 640, 641, 1500, 1514, 1518, 1536, 2048, 3520,
     3521, 3712, 3713, 9000, 65549))]


def _skip_dma(reason: str) -> Lines:
    lines = pass_log()
    for result in GFP_DMA:
        lines = replace(lines, result, [f'        {result} # SKIP{reason}'])
    return lines


def skip() -> Lines:
    """The GFP_DMA parameters skip, with a reason."""
    return _skip_dma(' CONFIG_ZONE_DMA is not set: no GFP_DMA zone on x86_64')


def skip_noreason() -> Lines:
    """The GFP_DMA parameters skip without a reason."""
    return _skip_dma('')


PANIC = ['BUG: kernel NULL pointer dereference, address: 0000000000000008',
         'Oops: Oops: 0002 [#1] PREEMPT NOPTI',
         'RIP: 0010:napi_alloc_skb+0x4c/0x1e0',
         'Kernel panic - not syncing: Fatal exception in interrupt']


def truncated() -> Lines:
    """Output stops mid-suite without a word (QEMU killed)."""
    return cut_before(pass_log(), 'ok 3 napi_alloc_skb len=60')


def panic_mid_suite() -> Lines:
    """An oops and a panic in the middle of net_rx_align_alloc."""
    return truncated() + PANIC


def missing_suite() -> Lines:
    """net_rx_align_iphdr is gone and the plan says 1..2."""
    lines = pass_log()
    lines = lines[:at(lines, '# Subtest: net_rx_align_iphdr') - 1]
    return replace(lines, '1..3', ['1..2'])


def no_ktap() -> Lines:
    """The kernel booted but never printed KTAP."""
    return cut_before(pass_log(), 'KTAP version 1')


WARNING = ['------------[ cut here ]------------',
           'WARNING: CPU: 0 PID: 97 at net/core/skbuff.c:817 napi_alloc_skb+0x1c5/0x1e0',
           'Modules linked in:',
           'CPU: 0 UID: 0 PID: 97 Comm: kunit_try_catch Tainted: G                 N 6.12.118 #1',
           'RIP: 0010:napi_alloc_skb+0x1c5/0x1e0',
           'Call Trace:',
           ' <TASK>',
           ' rx_napi+0x2b/0x50',
           ' </TASK>',
           '---[ end trace 0000000000000000 ]---']


def warn_in_case() -> Lines:
    """A kernel WARNING while one parameter runs: that case must fail."""
    return insert_before(pass_log(), 'ok 3 napi_alloc_skb len=60', WARNING)


UML_BOOT_WARNING = [
    '------------[ cut here ]------------',
    'WARNING: CPU: 0 PID: 1 at ../../../trees/debian-6.12.118-1_deb12u1/arch/um/drivers/'
    'virt-pci.c:1005 um_pci_init+0xc7/0xd4',
    'No virtio device ID configured for PCI - no PCI support',
    'CPU: 0 UID: 0 PID: 1 Comm: swapper Not tainted 6.12.118-g2976fab31a00 #1 ',
    'Call Trace:',
    ' [<60004673>] ? um_pci_init+0xc7/0xd4',
    ' [<600024f9>] ? kernel_init_freeable+0x249/0x2d0',
    ' [<602d7a9d>] ? kernel_init+0x39/0x15c']


def warn_at_boot() -> Lines:
    """The boot-time WARNING UML prints before KUnit starts (from a real
    --arch um log): no case ran then, so none may fail."""
    return insert_before(pass_log(), 'KTAP version 1', UML_BOOT_WARNING)


KMEMLEAK_NOT_OURS = [
    'unreferenced object 0xffff888003c1e400 (size 64):',
    '  comm "kunit_try_catch", pid 97, jiffies 4294670912',
    '  hex dump (first 32 bytes):',
    '    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................',
    '  backtrace (crc 4f1e2a7b):',
    '    [<ffffffff81000000>] __kmalloc_noprof+0x2f1/0x4a0',
    '    [<ffffffff81001000>] kobject_set_name_vargs+0x55/0x120',
    '    [<ffffffff81002000>] bus_register+0x8e/0x3d0',
    '    [<ffffffff81003000>] do_one_initcall+0xa9/0x390']


def kmemleak_clean() -> Lines:
    """pass.ktap plus one unreferenced boot-time object, not ours, in the
    older `[<addr>] sym+off/len` frame format: passes."""
    return insert_before(pass_log(), 'reboot: Restarting system',
                         ['Run /init as init process', 'rx_align_kmemleak: begin',
                          *KMEMLEAK_NOT_OURS, 'rx_align_kmemleak: end'])


def kmemleak_unavailable() -> Lines:
    """kmemleak disabled itself: no scan, results missing."""
    lines = insert_before(pass_log(), 'reboot: Restarting system',
                          ['Run /init as init process',
                           'rx_align_kmemleak: unavailable: kmemleak: Kernel memory leak '
                           'detector disabled'])
    return lines[:at(lines, 'reboot: machine restart')]


# ---- measured frames: rx_align_frame: lines, as the suites print them ----

IPHDR = ('rx_ipv4_header', 'rx_ipv6_header', 'rx_vlan_ipv4_header')
FRAME_OF = {'rx_ipv4_header': 'ipv4', 'rx_ipv6_header': 'ipv6',
            'rx_vlan_ipv4_header': 'vlan_ipv4'}
# The iphdr parameters (path, result number) that get a frame line here.
IPHDR_PATHS = (('dev_alloc_skb', 1), ('napi_alloc_skb', 8), ('page_pool_frag', 13))


def frame_line(case: str, text: str) -> str:
    """What kunit_info(test, "rx_align_frame: ...") prints inside a parameterised case."""
    return f'    # {case}: rx_align_frame: {text}'


def with_facts(lines: Lines, facts: str) -> Lines:
    """The policy suite's facts line, as another arch prints it."""
    return replace(lines, next(ln for ln in lines if 'rx_align_facts:' in ln).strip(),
                   [f'    # rx_policy_table: rx_align_facts: {facts}'])


def with_iphdr_frames(lines: Lines, offsets: Callable[[str, str], str]) -> Lines:
    """A frame line before each chosen iphdr parameter's result;
    offsets(path, frame) gives its `headroom=.. mac_line_off=.. nh_mod4=..` part."""
    for nth, case in enumerate(IPHDR, 1):
        frame = FRAME_OF[case]
        for path, n in IPHDR_PATHS:
            lines = insert_before(lines, f'ok {n} {path}', [frame_line(
                case, f'path={path} frame={frame} len=60 {offsets(path, frame)}')], nth)
    return lines


def with_drivers(lines: Lines, frames: List[Tuple[str, str]], failed: str = '') -> Lines:
    """A drivers suite after the others: one parameter per (name, fields) frame;
    the one named `failed` fails."""
    suite = ['    KTAP version 1', '    # Subtest: net_rx_align_drivers',
             '    # module: rx_align_drivers_kunit', '    1..1',
             '        KTAP version 1', '        # Subtest: rx_driver_frames']
    for i, (name, fields) in enumerate(frames, 1):
        suite.append(frame_line('rx_driver_frames', fields))
        if name == failed:
            suite += ['    # rx_driver_frames: EXPECTATION FAILED at '
                      'net/core/tests/rx_align_drivers_kunit.c:212',
                      '    Expected nh % 4 == rx_nh_want(), but',
                      '        nh % 4 == 2 (0x2)', '        rx_nh_want() == 0 (0x0)',
                      f'{name}: IP header 2 past a 4-byte boundary, NET_IP_ALIGN 2 '
                      'puts it 0 past',
                      f'        not ok {i} {name}']
        else:
            suite.append(f'        ok {i} {name}')
    bad = 'not ok' if failed else 'ok'
    suite += [f'    {bad} 1 rx_driver_frames', f'{bad} 4 net_rx_align_drivers']
    lines = replace(lines, '1..3', ['1..4'])
    end = next(i for i, ln in enumerate(lines) if ln.endswith('ok 3 net_rx_align_iphdr')) + 1
    return lines[:end] + suite + lines[end:]


def _x86_offsets(path: str, frame: str) -> str:
    # x86_64: NET_SKB_PAD 64, NET_IP_ALIGN 0; skb_vlan_untag() moves the MAC header 4 on
    headroom = {'page_pool_frag': 256}.get(path, 64) + (4 if frame == 'vlan_ipv4' else 0)
    return (f'headroom={headroom} mac_line_off={headroom % 64} nh_mod4=2 want_mod4=2 '
            f'rule=net_ip_align head_frag={int(path != "dev_alloc_skb")} '
            f'pp_recycle={int(path == "page_pool_frag")} verdict=pass')


def frames_pass() -> Lines:
    """x86_64 with frame lines: every iphdr path's IP header at 2 mod 4 (NET_IP_ALIGN 0),
    three drivers, and the lines a reader must survive: an unknown key, a missing
    key, and one malformed line."""
    lines = with_iphdr_frames(pass_log(), _x86_offsets)
    lines = insert_before(lines, 'ok 9 build_skb', [
        frame_line('rx_ipv4_header', 'path=build_skb frame=ipv4 len=60 headroom=64 cpu=0'),
        frame_line('rx_ipv4_header', 'path=build_skb frame=ipv4 len=sixty headroom=64')])
    return with_drivers(lines, [
        ('e1000 ipv4', 'driver=e1000 path=e1000 frame=ipv4 len=60 class=ip_align headroom=64 '
         'mac_line_off=0 nh_mod4=2 want_mod4=2 rule=net_ip_align head_frag=1 pp_recycle=0 '
         'verdict=pass'),
        ('virtio_net ipv4', 'driver=virtio_net path=virtio_net frame=ipv4 len=60 class=device '
         'headroom=256 mac_line_off=0 nh_mod4=2 want_mod4=-1 rule=none head_frag=1 '
         'pp_recycle=1 verdict=cost'),
        ('tulip ipv4', 'driver=tulip path=tulip frame=ipv4 len=60 class=ip_align headroom=64 '
         'mac_line_off=0 nh_mod4=2 want_mod4=2 rule=net_ip_align head_frag=0 pp_recycle=0 '
         'verdict=pass')])


POWERPC32_FACTS = ('arch=powerpc32 policy=generic net_ip_align=2 net_skb_pad=32 '
                   'l1_cache_bytes=32 smp_cache_bytes=32 page_size=4096 efficient_unaligned=0 '
                   'dma_cache_align=32 bits=32 endian=big')
POWERPC_FACTS = ('arch=powerpc policy=ppc64 net_ip_align=0 net_skb_pad=128 '
                 'l1_cache_bytes=128 smp_cache_bytes=128 page_size=65536 efficient_unaligned=1 '
                 'dma_cache_align=128 bits=64 endian=big')


def _ppc32_offsets(path: str, frame: str) -> str:
    # NET_SKB_PAD 32, NET_IP_ALIGN 2: the IP header at 0 mod 4, except where a
    # copy reserved XDP_PACKET_HEADROOM alone (the bug the suite found)
    if path == 'page_pool_frag' and frame == 'ipv4':
        return ('headroom=256 mac_line_off=0 nh_mod4=2 want_mod4=0 rule=net_ip_align '
                'head_frag=1 pp_recycle=1 verdict=fail')
    headroom = {'page_pool_frag': 258}.get(path, 34) + (4 if frame == 'vlan_ipv4' else 0)
    return (f'headroom={headroom} mac_line_off={headroom % 32} nh_mod4=0 want_mod4=0 '
            f'rule=net_ip_align head_frag={int(path != "dev_alloc_skb")} '
            f'pp_recycle={int(path == "page_pool_frag")} verdict=pass')


IPHDR_FAILURE = [
    '    # rx_ipv4_header: EXPECTATION FAILED at net/core/tests/rx_align.h:149',
    '    Expected addr % 4 == rx_nh_want(), but',
    '        addr % 4 == 2 (0x2)',
    '        rx_nh_want() == 0 (0x0)',
    "arch powerpc32, page_pool_frag, ipv4: IP header at page offset 270 is 2 past a 4-byte "
    "boundary, the arch's NET_IP_ALIGN 2 puts it 0 past"]


def frames_fail() -> Lines:
    """powerpc32's facts and frames (NET_IP_ALIGN 2): the ipv4 frame of
    page_pool_frag lands 2 off and its case fails; so does tulip's frame, and
    virtio_net's (class hw) is off but only recorded."""
    lines = with_iphdr_frames(with_facts(pass_log(), POWERPC32_FACTS), _ppc32_offsets)
    lines = replace(lines, 'ok 13 page_pool_frag',
                    IPHDR_FAILURE + ['        not ok 13 page_pool_frag'])
    lines = replace(lines, 'ok 1 rx_ipv4_header', ['    not ok 1 rx_ipv4_header'])
    lines = replace(lines, 'ok 3 net_rx_align_iphdr', ['not ok 3 net_rx_align_iphdr'])
    return with_drivers(lines, [
        ('e1000 ipv4', 'driver=e1000 path=e1000 frame=ipv4 len=60 class=ip_align headroom=66 '
         'mac_line_off=2 nh_mod4=0 want_mod4=0 rule=net_ip_align head_frag=1 pp_recycle=0 '
         'verdict=pass'),
        ('virtio_net ipv4', 'driver=virtio_net path=virtio_net frame=ipv4 len=60 class=device '
         'headroom=256 mac_line_off=0 nh_mod4=2 want_mod4=-1 rule=none head_frag=1 '
         'pp_recycle=1 verdict=cost'),
        ('tulip ipv4', 'driver=tulip path=tulip frame=ipv4 len=60 class=ip_align headroom=32 '
         'mac_line_off=0 nh_mod4=2 want_mod4=0 rule=net_ip_align head_frag=0 pp_recycle=0 '
         'verdict=fail')],
        failed='tulip ipv4')


def frames_panic() -> Lines:
    """powerpc's facts, then the oops of panic_mid_suite: no frame was measured."""
    return with_facts(panic_mid_suite(), POWERPC_FACTS)


FAULTS: Dict[str, Callable[[], Lines]] = {
    'pass': pass_log, 'fail': fail, 'fail_first_param': fail_first_param, 'skip': skip,
    'skip_noreason': skip_noreason, 'truncated': truncated, 'panic_mid_suite': panic_mid_suite,
    'missing_suite': missing_suite, 'no_ktap': no_ktap, 'warn_in_case': warn_in_case,
    'warn_at_boot': warn_at_boot, 'kmemleak_clean': kmemleak_clean,
    'kmemleak_unavailable': kmemleak_unavailable,
    'frames_pass': frames_pass, 'frames_fail': frames_fail, 'frames_panic': frames_panic,
    'kmemleak_leak': lambda: (FIXTURES / 'kmemleak_leak.ktap').read_text().splitlines(),
}


def write(lines: Lines, path: Path) -> Path:
    path.write_text('\n'.join(lines) + '\n')
    return path




_DIR: Optional[Path] = None


def path(name: str) -> Path:
    """The named fault log as a file (written once per test session)."""
    global _DIR
    if _DIR is None:
        _DIR = Path(tempfile.mkdtemp(prefix='rx-align-faults-'))
        atexit.register(shutil.rmtree, _DIR, True)
    p = _DIR / f'{name}.ktap'
    if not p.exists():
        write(FAULTS[name](), p)
    return p
