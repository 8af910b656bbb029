"""scripts/mutation-test: each kernel mutation must be caught, by the case meant to.

Every assertion class of the KUnit module gets a broken kernel here: the
mutation is applied with run-kunit --patches on the arch where it bites,
and the run must end with exit 1 and the named cases failing with the
named message.  The unmutated tree must pass on the same arches first, so a
failure is the mutation's and nothing else's.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from . import fmt
from .cli import run_main
from .exitcodes import Exit
from .kernels import DEFAULT, NEWEST
from .paths import MUTATION_PATCHES, SCRIPTS
from .results import CaseStatus, Results, Verdict, read_dir



@dataclasses.dataclass(frozen=True)
class Mutation:
    name: str                           # scripts/mutations/<name>.patch
    arch: str                           # where it bites
    assertion: str                      # the assertion class it proves
    catches: Tuple[Tuple[str, str], ...]  # (case-name prefix, what its message says)
    profile: str = ''                   # run-kunit --<profile> that sees it: debug, drivers
    kernel: str = DEFAULT.name          # run-kunit --kernel: the net fixes' reverts on their base
    # why CI (scripts/test: mutation-test --ci) leaves it out: it needs a kernel
    # no other step builds; '' for the mutations CI runs
    not_in_ci: str = ''

    @property
    def rebuilds_all(self) -> bool:
        """It changes a header (include/ or arch/*/include/): most of a kernel is
        rebuilt for it, and again when the header is back."""
        return any(re.match(r'(arch/[^/]+/)?include/', f) for f in _touched(self.name))


def _touched(name: str) -> List[str]:
    """The files a mutation patch changes."""
    text = (MUTATION_PATCHES / f'{name}.patch').read_text()
    return re.findall(r'^\+\+\+ b/(\S+)$', text, re.M)


def _own_build(what: str) -> str:
    """not_in_ci for a mutation whose kernel (@what) CI builds for nothing else."""
    return f'{what}, which no other CI step makes'


_ARM_BOARDS_BUILD = _own_build('the arm boards\' multi_v7 --drivers build (cold: about 3 '
                               'minutes and the arm toolchain)')

# Where loads trap and the kernel counts the fixups: malta, on the newest kernel.
_MIPS_BUILD = _own_build('a mips build of 7.3 (cold: about 5 minutes and the mips toolchain)')

# The --debug kernel (KASAN, lockdep, kmemleak) builds everything again: the
# slowest build CI would make (cold, x86_64: about 10 minutes), for two
# mutations whose detectors pytest also holds to saved logs.
_DEBUG_BUILD = _own_build('an x86_64 --debug build (cold: about 10 minutes)')

MUTATIONS: Tuple[Mutation, ...] = (
    Mutation('napi-reserve-hardcoded-2', 'x86_64', 'headroom, DMA start, IP header offset',
             (('net_rx_align_alloc.rx_alloc_path.napi_alloc_skb', 'headroom 66'),
              ('net_rx_align_alloc.rx_alloc_path.napi_alloc_skb', 'not aligned to 64'),
              ('net_rx_align_iphdr.rx_ipv4_header.napi_alloc_skb', 'IP header'),
              ('net_rx_align_gro.rx_gro_frags.ipv4', 'napi_get_frags() headroom 66'))),
    Mutation('frag-cache-unaligned', 'x86_64', 'DMA start alignment',
             (('net_rx_align_alloc.rx_alloc_path.napi_build_skb', 'DMA start'),)),
    Mutation('netdev-frag-short', 'x86_64', 'tailroom and truesize',
             (('net_rx_align_alloc.rx_alloc_path.netdev_alloc_skb', 'tailroom'),
              ('net_rx_align_alloc.rx_alloc_path.netdev_alloc_skb', 'truesize'))),
    Mutation('napi-drops-ip-align', 'powerpc32', 'IP header alignment where NET_IP_ALIGN is 2',
             (('net_rx_align_iphdr.rx_ipv4_header.napi_alloc_skb', 'IP header'),
              ('net_rx_align_iphdr.rx_ipv6_header.napi_alloc_skb', 'IP header'),
              ('net_rx_align_iphdr.rx_vlan_ipv4_header.napi_alloc_skb', 'IP header'),
              ('net_rx_align_gro.rx_gro_frags.ipv4', 'IP header'))),
    Mutation('netdev-kmalloc-no-pad', 'powerpc32', 'headroom equal on kmalloc and frag paths',
             (('net_rx_align_alloc.rx_alloc_path.__netdev_alloc_skb_gfp_kernel', 'headroom'),
              ('net_rx_align_alloc.rx_alloc_path.netdev_alloc_skb', 'len 60: headroom'))),
    Mutation('gro-reuse-drops-ip-align', 'powerpc32', 'GRO frags: the skb napi_reuse_skb() restores',
             (('net_rx_align_gro.rx_gro_frags.tcp_merge_then_reuse',
               'napi_get_frags() headroom 32'),
              ('net_rx_align_gro.rx_gro_frags.tcp_merge_then_reuse', 'IP header'))),
    Mutation('gro-frag0-any-offset', 'mips',
             'GRO reads headers in place only where they are aligned: fixups counted where '
             'loads trap',
             (('net_rx_align_gro.rx_gro_at.frags_udp4_at_2', 'unaligned-access fixup'),
              ('net_rx_align_gro.rx_gro_at.receive_tcp4_at_1', 'unaligned-access fixup')),
             kernel=NEWEST.name, not_in_ci=_MIPS_BUILD),
    Mutation('generic-xdp-grows-in-place', 'mips',
             'generic XDP copies a frame the driver put off its place: fixups counted where '
             'loads trap',
             (('net_rx_align_xdp_copy.rx_generic_xdp_copy.frags_prog_linear_ipv4_reserve_1',
               'do_xdp_generic() took'),
              ('net_rx_align_xdp_copy.rx_generic_xdp_copy.frags_prog_linear_ipv4_reserve_2',
               'IP header')),
             kernel=NEWEST.name, not_in_ci=_MIPS_BUILD),
    # The net fixes' reverts, on the tree the series is based on.
    Mutation('generic-xdp-copy-unaligned', 'powerpc32',
             f'generic XDP: the copy skb_cow_data_for_xdp() makes ({NEWEST.name} without our fix)',
             (('net_rx_align_xdp_copy.rx_generic_xdp_copy.frags_prog_linear_ipv4', 'IP header'),
              ('net_rx_align_xdp_copy.rx_generic_xdp_copy.frags_prog_nonlinear_ipv6',
               'IP header')),
             kernel=NEWEST.name),
    Mutation('generic-xdp-l3-pad', 'powerpc32',
             'generic XDP on a device without a MAC header: NET_IP_ALIGN is no pad there',
             (('net_rx_align_xdp.rx_generic_xdp.frags_prog_l3_linear_ipv4', 'word_aligned puts it 0'),
              ('net_rx_align_xdp.rx_generic_xdp.frags_prog_l3_nonlinear_ipv6',
               'word_aligned puts it 0')),
             kernel=NEWEST.name),
    Mutation('veth-xdp-copy-unaligned', 'powerpc32',
             f'veth native XDP: the copy before the program ({NEWEST.name} without our fix)',
             (('net_rx_align_xdp_copy.rx_veth_xdp.ipv4_mtu', 'IP header'),
              ('net_rx_align_xdp_copy.rx_veth_xdp.vlan_ipv4_mtu', 'IP header')),
             kernel=NEWEST.name),
    Mutation('pp-cow-shinfo-unaligned', 'powerpc32',
             'XDP copies: skb_shared_info where a clone\'s atomics work',
             (('net_rx_align_xdp_copy.rx_generic_xdp_copy.frags_prog_linear_ipv4_min',
               'skb_shared_info'),
              ('net_rx_align_xdp_copy.rx_veth_xdp.ipv4_min', 'skb_shared_info')),
             kernel=NEWEST.name),
    Mutation('xdp-frame-reserve', 'x86_64', 'xdp_frame to skb: where the frame stays',
             (('net_rx_align_xdp.rx_xdp_frame_to_skb.xdp_build_skb_from_frame_ipv4',
               'MAC header at page offset'),)),
    Mutation('page-pool-frag-shinfo-unaligned', 'x86_64',
             'page_pool fragments: offsets a head can be built on',
             (('net_rx_align_frag.rx_page_pool_frags.no_dma_order0', 'skb_shared_info'),
              ('net_rx_align_frag.rx_page_pool_frags.dma_order0', 'skb_shared_info'))),
    Mutation('frag-align-ignored', 'x86_64', 'napi/netdev_alloc_frag_align(): the alignment asked',
             (('net_rx_align_frag.rx_frag_align.napi_alloc_frag_align_1k', 'fragment at page offset'),
              ('net_rx_align_frag.rx_frag_align.netdev_alloc_frag_align_irqs_off_1k',
               'fragment at page offset'))),
    Mutation('netdev-frag-irq-unaligned', 'x86_64', 'the netdev_alloc_cache branch (IRQs off)',
             (('net_rx_align_frag.rx_frag_align.netdev_alloc_frag_align_irqs_off',
               'plain fragment'),)),
    Mutation('8139cp-hardcoded-2', 'x86_64', 'a real driver: a DMA buffer padded with a literal 2',
             (('net_rx_align_drivers.rx_driver_frames_case.8139cp', 'IP header'),),
             profile='drivers'),
    Mutation('tulip-copybreak-1518', 'sparc64',
             f'a real driver where loads trap: tulip\'s tagged 1518-byte frame '
             f'({NEWEST.name} without our fix)',
             (('net_rx_align_drivers.rx_driver_frames_case.tulip', 'IP header'),),
             profile='drivers', kernel=NEWEST.name),
    Mutation('tulip-unaligned-list', 'riscv',
             f'a real driver where unaligned loads are not cheap: tulip\'s frames of 100 '
             f'bytes or more on riscv ({NEWEST.name} without our net-next fix)',
             (('net_rx_align_drivers.rx_driver_frames_case.tulip',
               'IP header'),),
             profile='drivers', kernel=NEWEST.name,
             not_in_ci=_own_build('a riscv --drivers build of 7.3 (cold: about 4 minutes '
                                  'and the riscv toolchain)')),
    Mutation('smc91x-no-pad', 'armv5',
             'a copy behind a literal 2 on an ARM CPU that traps: smc91x without its pad',
             (('net_rx_align_drivers.rx_driver_frames_case.smc91x', 'IP header'),),
             profile='drivers',
             not_in_ci=_own_build('an armv5 --drivers build (cold: about 4 minutes and the '
                                  'arm toolchain)')),
    Mutation('fec-no-move', 'armv5-imx25',
             'a chip that cannot shift on an ARM CPU that traps: fec on the i.MX25 without '
             'net-next-fec\'s move',
             (('net_rx_align_drivers.rx_driver_frames_case.fec', 'unaligned-access fixup'),
              ('net_rx_align_drivers.rx_driver_xdp_frames_case.fec', 'IP header')),
             profile='drivers', kernel=NEWEST.name,
             not_in_ci=_own_build('an armv5 --drivers build of 7.3 (cold: about 4 minutes '
                                  'and the arm toolchain)')),
    Mutation('vhost-pad-rounded', 'mips',
             'vhost_net\'s batched TX keeps NET_IP_ALIGN: fixups counted where loads trap',
             (('net_rx_align_drivers_vhost.rx_vhost_tx_frames', 'IP header'),
              ('net_rx_align_drivers_vhost.rx_vhost_tx_frames', 'unaligned-access fixup')),
             profile='drivers', kernel=NEWEST.name,
             not_in_ci=_own_build('a mips --drivers build of 7.3 (cold: about 5 minutes and '
                                  'the mips toolchain)')),
    Mutation('sunlance-no-pad', 'sparc',
             'a lone NIC looped back on a SPARC32 that traps: sunlance without its pad',
             (('net_rx_align_drivers.rx_driver_frames_case.sunlance',
               'IP header'),),
             profile='drivers',
             not_in_ci=_own_build('a sparc --drivers build (cold: about 6 minutes and the '
                                  'sparc64 toolchain)')),
    Mutation('sonic-rbsize-1520', 'm68k-q800',
             'every frame sent is received: sonic\'s buffers too short for a tagged '
             '1518-byte frame (without our fix)',
             (('net_rx_align_drivers.rx_driver_frames_case.macsonic', 'lost the'),),
             profile='drivers',
             not_in_ci=_own_build('an m68k --drivers build (cold: about 6 minutes and the '
                                  'm68k toolchain)')),
    Mutation('smsc911x-no-ip-align', 'arm-vexpress',
             'a board NIC on a NET_IP_ALIGN 2 arch: smsc911x without its data offset',
             (('net_rx_align_drivers.rx_driver_frames_case.smsc911x', 'IP header'),),
             profile='drivers',
             not_in_ci=_ARM_BOARDS_BUILD),
    Mutation('macb-no-rbof', 'arm-zynq',
             'a SoC MAC on a NET_IP_ALIGN 2 arch: Zynq\'s GEM without its buffer offset',
             (('net_rx_align_drivers.rx_driver_frames_case.macb', 'IP header'),),
             profile='drivers',
             not_in_ci=_ARM_BOARDS_BUILD),
    # Two mutations of a header every file includes: each rebuilds most of a
    # kernel, and so does the next build of any dir after it (the header is
    # back, with a new date); main() runs them last (rebuilds_all).
    Mutation('net-ip-align-3', 'powerpc32', 'what skbuff.h asks of NET_IP_ALIGN',
             (('net_rx_align_policy.rx_net_ip_align_sane', 'does not align the IP header'),)),
    Mutation('net-skb-pad-48', 'x86_64',
             'NET_SKB_PAD: what skbuff.h asks of it, and the DMA start it gives',
             (('net_rx_align_policy.rx_net_skb_pad_sane', 'not a power of 2'),
              ('net_rx_align_alloc.rx_alloc_path.build_skb', 'DMA start'))),
    # the drivers suite's own holes: a test mutation, not a kernel one
    Mutation('drivers-row-missing', 'x86_64', 'a NIC whose driver has no row is no pass',
             (('net_rx_align_drivers.rx_driver_frames_case.e1000', 'has no row in rx_drivers[]'),),
             profile='drivers'),
    Mutation('drivers-dma-lead-missing', 'x86_64',
             'the DMA start: NET_IP_ALIGN into a cache line, after what the device writes first',
             (('net_rx_align_drivers.rx_driver_frames_case.e100',
               'the buffer starts 16 bytes into'),),
             profile='drivers'),
    Mutation('drivers-close-bystander', 'x86_64',
             'a NIC the suite was not told to take is left as the guest had it',
             (('net_rx_align_drivers_bystanders.rx_bystanders_untouched',
               'changed state (NETDEV_DOWN)'),
              ('net_rx_align_drivers_bystanders.rx_bystanders_untouched', 'was up, not now')),
             profile='drivers'),
    # the bystander named up_before= absent: a failure, never a skip over one
    Mutation('drivers-bystander-gone', 'x86_64',
             'a NIC named up_before= that the guest does not have up fails the bystanders case',
             (('net_rx_align_drivers_bystanders.rx_bystanders_untouched',
               'named up_before=, was not a bystander found up'),),
             profile='drivers'),
    Mutation('drivers-frame-lost', 'x86_64', 'every frame sent is received and judged',
             (('net_rx_align_drivers.rx_driver_frames_case.e1000',
               'lost the ipv4 400-byte frame'),),
             profile='drivers'),
    # the GRO suite's own property: its frames end at its device
    Mutation('gro-sink-passes', 'x86_64',
             'the GRO cases\' frames reach no protocol beyond the test\'s device',
             (('net_rx_align_gro.rx_gro_frags.ipv4', 'went past the test device'),
              ('net_rx_align_gro.rx_gro_at.receive_udp6_at_2', 'went past the test device'))),
    # netif_napi_add() calls napi_alloc_skb() (napi_get_frags_check()), so the
    # first case of the suite to register a NAPI sees it, whichever that is;
    # __might_resched() then stays quiet for a second.
    Mutation('napi-alloc-sleeps', 'x86_64', 'the debug profile: sleeping in BH',
             (('net_rx_align_alloc.',
               'BUG: sleeping function called from invalid context'),), profile='debug',
             not_in_ci=_DEBUG_BUILD),
    # lockdep's report ends lock debugging; the case fails on what the kernel
    # did (rx_align_watch_kernel()), whatever its console said
    Mutation('lockdep-ab-ba', 'x86_64',
             'the debug profile: a lockdep report fails the case it came in',
             (('net_rx_align_policy.rx_policy_facts',
               'kernel state changed during the case: debug_locks turned off'),),
             profile='debug', not_in_ci=_DEBUG_BUILD),
    Mutation('skb-head-leak', 'x86_64', 'the debug profile: a leak (kmemleak after the suites)',
             (('kmemleak.after_suites', 'leaked by this module'),), profile='debug',
             not_in_ci=_DEBUG_BUILD),
)


@dataclasses.dataclass
class Outcome:
    mutation: Mutation
    status: int
    killed: bool
    caught_by: List[str]
    detail: str


def _run_kunit(arches: str, out: Path, patch: Optional[Path], profile: str = '',
               kernel: str = DEFAULT.name) -> Tuple[int, Optional[Results], str]:
    cmd = [str(SCRIPTS / 'run-kunit'), '--kernel', kernel, '--arch', arches, '--out', str(out),
           '--baseline', 'none']
    if profile:
        cmd.append(f'--{profile}')
    if patch:
        cmd += ['--patches', str(patch)]
    proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          check=False)
    try:
        results: Optional[Results] = read_dir(out)[0]
    except ValueError:
        results = None
    return proc.returncode, results, proc.stderr.strip()


def judge(m: Mutation, status: int, arch: Optional[Verdict], error: str = '') -> Outcome:
    failed = [c for c in arch.cases if c.status == CaseStatus.FAIL] if arch else []
    caught_by = [c.name for c in failed]
    missing = [f'{prefix} ("{says}")' for prefix, says in m.catches
               if not any(c.name.startswith(prefix) and says in c.message for c in failed)]
    killed = status == Exit.TEST_FAILED and not missing
    if killed:
        detail = f'{len(failed)} case(s) failed'
    elif status != Exit.TEST_FAILED:
        cause = arch.cause if arch else error
        detail = f'run-kunit exited {status}, not {int(Exit.TEST_FAILED)}: {cause}'
    else:
        detail = f'did not fail as expected: {", ".join(missing)}'
    return Outcome(m, status, killed, caught_by, detail)


def table(outcomes: List[Outcome]) -> str:
    rows = ['| mutation | kernel | arch | assertion class | verdict | caught by |',
            '|---|---|---|---|---|---|']
    for o in outcomes:
        first = sorted({'.'.join(n.split('.')[:2]) for n in o.caught_by})
        rows.append(f'| {o.mutation.name} | {o.mutation.kernel} | {o.mutation.arch} | '
                    f'{o.mutation.assertion} | '
                    f'{"killed" if o.killed else "SURVIVED"} | '
                    f'{len(o.caught_by)} case(s): {", ".join(first)} |')
    return '\n'.join(rows) + '\n'


def listing(mutations: Sequence[Mutation]) -> str:
    """--list: a row per mutation, as run-kunit --list-arches prints its table."""
    return fmt.columns([('mutation', 'arch', 'run-kunit', 'assertion class it proves', 'CI')] + [
        (m.name, m.arch, f'--kernel {m.kernel}' + (f' --{m.profile}' if m.profile else ''),
         m.assertion, f'no: {m.not_in_ci}' if m.not_in_ci else 'yes') for m in mutations])


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog='mutation-test', description=__doc__.split('\n')[0])
    p.add_argument('--only', help='comma-separated mutation names')
    p.add_argument('--out', type=Path, help='where to keep each run (default: a temp dir)')
    p.add_argument('--ci', action='store_true',
                   help='leave out the mutations that need a kernel no other CI step builds')
    p.add_argument('--list', action='store_true',
                   help='print each mutation: where it bites, what it proves, whether CI '
                        'runs it; and exit')
    return p


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    if args.list:
        print(listing(MUTATIONS))
        return 0
    chosen = [m for m in MUTATIONS if not args.only or m.name in args.only.split(',')]
    if not chosen:
        print(f'mutation-test: error: no mutation named {args.only}', file=sys.stderr)
        return int(Exit.USAGE)
    if args.ci:
        for m in chosen:
            if m.not_in_ci:
                print(f'not in CI: {m.name}: {m.not_in_ci}; run scripts/mutation-test '
                      f'--only {m.name}', flush=True)
        chosen = [m for m in chosen if not m.not_in_ci]
    # Header mutations last: the build after one recompiles most of a kernel
    # (the header back, newer than every object); run last, that build is the
    # next run's, where ccache knows the objects, not one per later mutation.
    chosen.sort(key=lambda m: m.rebuilds_all)
    out = args.out or Path(tempfile.mkdtemp(prefix='rx-align-mutations-'))
    for profile, kernel in sorted({(m.profile, m.kernel) for m in chosen}):
        arches = ','.join(dict.fromkeys(m.arch for m in chosen
                                        if (m.profile, m.kernel) == (profile, kernel)))
        what = f'{arches} on {kernel}{f" --{profile}" if profile else ""}'
        print(f'baseline: the unmutated tree on {what}', flush=True)
        name = f'baseline-{kernel}' + (f'-{profile}' if profile else '')
        status, _, _ = _run_kunit(arches, out / name, None, profile, kernel)
        if status != Exit.OK:
            print(f'mutation-test: error: the unmutated tree does not pass on {what} '
                  f'(run-kunit exit {status}, see {out}); fix that first', file=sys.stderr)
            return int(Exit.INFRA)

    outcomes = []
    for i, m in enumerate(chosen, 1):
        print(f'[{i}/{len(chosen)}] {m.name} on {m.arch} ({m.kernel})...', flush=True)
        status, results, err = _run_kunit(m.arch, out / m.name, MUTATION_PATCHES / f'{m.name}.patch',
                                          m.profile, m.kernel)
        o = judge(m, status, results.arches.get(m.arch) if results else None, err)
        print(f'[{i}/{len(chosen)}] {m.name}: {"killed" if o.killed else "SURVIVED"} '
              f'({o.detail})', flush=True)
        outcomes.append(o)
    text = table(outcomes)
    (out / 'mutations.md').write_text(text)
    print('\n' + text + f'\nruns kept in {out}')
    survived = [o.mutation.name for o in outcomes if not o.killed]
    if survived:
        print(f'mutation-test: error: survived: {", ".join(survived)}', file=sys.stderr)
        return int(Exit.TEST_FAILED)
    return 0


if __name__ == '__main__':
    sys.exit(run_main('mutation-test', main))
