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
from typing import Callable, Dict, List, Optional

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


FAULTS: Dict[str, Callable[[], Lines]] = {
    'pass': pass_log, 'fail': fail, 'fail_first_param': fail_first_param, 'skip': skip,
    'skip_noreason': skip_noreason, 'truncated': truncated, 'panic_mid_suite': panic_mid_suite,
    'missing_suite': missing_suite, 'no_ktap': no_ktap, 'warn_in_case': warn_in_case,
    'warn_at_boot': warn_at_boot, 'kmemleak_clean': kmemleak_clean,
    'kmemleak_unavailable': kmemleak_unavailable,
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
