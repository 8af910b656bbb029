"""How a kernel says it crashed or reported a bug: the tables the console walk reads.

Each entry is a line the kernel prints when it dies, oopses or hits a BUG(),
as the kernels of `kernels` format it (the file and function are in
`source`; `literal` is the text of the format in `file` of each of those
kernels, which tests/test_verdict.py reads in every kernel's tree it has);
`pattern` is matched at the start of a console line (printk timestamps
stripped, leading blanks allowed), never inside it, so a test's own message
that quotes these words is no crash.  `example` is a line as the kernel
prints it: tests/test_verdict.py checks that each pattern matches its
example, and that a run going on after any of them is no pass.

Only the first line of each report needs to be here: what follows it
(registers, a backtrace) belongs to the same crash.

REPORT_FORMATS are the kernel's reports of a bug it survives (a WARN, the
sanitizers, lockdep, the debug checks of spinlocks, pages, slabs and
workqueues): each fails the case that was running, and no known-failure
rule excuses it.  Any other line that opens like a report (BANNER: `BUG`,
`WARNING`, a rule of `=`) fails the arch: the gate does not guess what an
unknown report means.  STACK_DUMP lines are printed only by the kernel's
report machinery: where one comes, the kernel is talking, not a test.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Tuple


# The kernels of kernels.KERNELS, by name: which print a format.
EVERY_KERNEL = ('6.1', '6.12', '7.3')


@dataclasses.dataclass(frozen=True)
class CrashFormat:
    arches: str             # who prints it ("all": generic code)
    pattern: str            # a regex, matched at the start of a line
    example: str            # a line as the kernel prints it
    source: str             # where it is printed (6.12's files, unless it says)
    file: str               # the file of each of @kernels that holds...
    literal: str            # ...this text of its format, as the file has it
    kernels: Tuple[str, ...] = EVERY_KERNEL     # the kernels that print it


CRASH_FORMATS: Tuple[CrashFormat, ...] = (
    CrashFormat('all', r'Kernel panic - not syncing',
                'Kernel panic - not syncing: Fatal exception in interrupt',
                'kernel/panic.c panic()',
                'kernel/panic.c', 'Kernel panic - not syncing: %s\\n'),
    CrashFormat('all', r'kernel BUG at \S+:\d+!', 'kernel BUG at net/core/skbuff.c:210!',
                'lib/bug.c report_bug(); arch/sparc/kernel/traps_{32,64}.c do_BUG()',
                'lib/bug.c', 'kernel BUG at %s:%u!\\n'),
    CrashFormat('all', r'Kernel BUG at ',
                'Kernel BUG at skb_panic+0x4c/0x50 [verbose debug info unavailable]',
                'lib/bug.c report_bug(), a BUG() without file information',
                'lib/bug.c', 'Kernel BUG at %pB [verbose debug info unavailable]\\n',
                ('6.1', '6.12')),
    CrashFormat('all', r'kernel BUG at \S+ \[verbose debug info unavailable\]',
                'kernel BUG at skb_panic+0x4c/0x50 [verbose debug info unavailable]',
                'lib/bug.c __report_bug() of 7.3, a BUG() without file information',
                'lib/bug.c', 'kernel BUG at %pB [verbose debug info unavailable]\\n', ('7.3',)),
    CrashFormat('all', r'Oops(?::| -)', 'Oops: Oops: 0002 [#1] PREEMPT NOPTI',
                'die() of x86 (arch/x86/kernel/dumpstack.c __die_header()), powerpc, '
                'sh, s390, m68k ("Oops: ..."), riscv ("Oops - illegal instruction")',
                'arch/powerpc/kernel/traps.c', 'Oops: %s, sig: %ld [#%d]\\n'),
    # x86 prefixed every die() title with "Oops: " in 6.9; 6.1 prints the
    # trap's title alone ("divide error: 0000 [#1] PREEMPT SMP NOPTI"), and a
    # title may end in a newline ("Split lock detected\n"): the line is then
    # ": 0000 [#1] ..."
    CrashFormat('x86_64, i386', r'Oops: ', 'Oops: divide error: 0000 [#1] PREEMPT NOPTI',
                'arch/x86/kernel/dumpstack.c __die_header(), of 6.12 and 7.3 (7.3 prints no '
                'PREEMPT: one %s fewer)',
                'arch/x86/kernel/dumpstack.c', '"Oops: %s: %04lx [#%d]%s%s%s%s',
                ('6.12', '7.3')),
    CrashFormat('x86_64, i386', r'(?:\S.*)?: [0-9a-f]{4} \[#\d+\](?: |$)',
                'divide error: 0000 [#1] PREEMPT SMP NOPTI',
                'arch/x86/kernel/dumpstack.c __die_header() of 6.1: the titles of '
                'arch/x86/kernel/traps.c (divide error, invalid opcode, stack segment, '
                'double fault, int3, ...) and arch/x86/mm/fault.c ("Oops", "Bad pagetable")',
                'arch/x86/kernel/dumpstack.c', '"%s: %04lx [#%d]%s%s%s%s%s\\n"', ('6.1',)),
    CrashFormat('x86_64, i386', r'BUG: kernel NULL pointer dereference',
                'BUG: kernel NULL pointer dereference, address: 0000000000000008',
                'arch/x86/mm/fault.c show_fault_oops()',
                'arch/x86/mm/fault.c', 'BUG: kernel NULL pointer dereference, address: %px\\n'),
    CrashFormat('x86_64, i386', r'BUG: unable to handle page fault',
                'BUG: unable to handle page fault for address: ffffffffff600000',
                'arch/x86/mm/fault.c show_fault_oops()',
                'arch/x86/mm/fault.c', 'BUG: unable to handle page fault for address: %px\\n'),
    CrashFormat('x86_64, i386', r'general protection fault',
                'general protection fault, probably for non-canonical address '
                '0xdead000000000100: 0000 [#1] PREEMPT NOPTI',
                'arch/x86/kernel/traps.c exc_general_protection() (GPFSTR)',
                'arch/x86/kernel/traps.c', '#define GPFSTR "general protection fault"'),
    CrashFormat('arm, arm64', r'Internal error: ',
                'Internal error: Oops - BUG: 00000000f2000800 [#1] PREEMPT SMP',
                'arch/arm64/kernel/traps.c die(), arch/arm/kernel/traps.c die()',
                'arch/arm64/kernel/traps.c', 'Internal error: %s: %016lx [#%d]'),
    CrashFormat('arm, arm64, riscv, sparc, sparc64, alpha, m68k, s390',
                r'Unable to handle kernel ',
                'Unable to handle kernel NULL pointer dereference at virtual address '
                '0000000000000008',
                'arm64/arm/riscv mm/fault.c die_kernel_fault()/__do_kernel_fault(), '
                'sparc mm/fault_{32,64}.c unhandled_fault(), alpha and m68k mm/fault.c, '
                's390 mm/fault.c handle_fault_error_nolock()',
                'arch/arm64/mm/fault.c', 'Unable to handle kernel %s at virtual address %016lx\\n'),
    CrashFormat('riscv', r'\S.* \[#\d+\]$', 'Oops [#1]',
                'arch/riscv/kernel/traps.c die(): "%s [#%d]"',
                'arch/riscv/kernel/traps.c', '"%s [#%d]\\n"'),
    CrashFormat('powerpc, powerpc32, powerpcle',
                r'BUG: (?:Kernel NULL pointer dereference|Unable to handle kernel|'
                r'Unable to handle unknown paging fault)',
                'BUG: Kernel NULL pointer dereference on read at 0x00000008',
                'arch/powerpc/mm/fault.c __bad_page_fault()',
                'arch/powerpc/mm/fault.c', 'msg = "Kernel NULL pointer dereference";'),
    CrashFormat('mips, mipsel, mips64, mips64el', r'CPU \d+ Unable to handle kernel ',
                'CPU 0 Unable to handle kernel paging request at virtual address 00000008, '
                'epc == 80512f10, ra == 80512ef4',
                'arch/mips/mm/fault.c __do_page_fault()',
                'arch/mips/mm/fault.c', 'CPU %d Unable to handle kernel paging request at '),
    CrashFormat('mips, mipsel, mips64, mips64el', r'\S.*\[#\d+\]:$', 'Oops[#1]:',
                'arch/mips/kernel/traps.c die(): "%s[#%d]:"',
                'arch/mips/kernel/traps.c', '"%s[#%d]:\\n"'),
    CrashFormat('parisc', r'.+: Code=\d+ \(.*\) at addr ',
                'Kernel Fault: Code=26 (Data memory access rights trap) at addr 0000000c',
                'arch/parisc/kernel/traps.c parisc_terminate()',
                'arch/parisc/kernel/traps.c', '%s: Code=%d (%s) at addr '),
    CrashFormat('parisc', r'.+ \(pid \d+\): .+ \(code \d+\)$',
                'kunit_try_catch (pid 97): Unaligned data reference (code 28)',
                'arch/parisc/kernel/traps.c die_if_kernel(), kernel mode',
                'arch/parisc/kernel/traps.c', '%s (pid %d): %s (code %ld)\\n'),
    CrashFormat('parisc', r'< Your System ate a SPARC! Gah! >',
                '     < Your System ate a SPARC! Gah! >',
                'arch/parisc/kernel/traps.c die_if_kernel(), the banner',
                'arch/parisc/kernel/traps.c', '< Your System ate a SPARC! Gah! >'),
    CrashFormat('sparc, sparc64', r'\\\|/ ____ \\\|/', r'              \|/ ____ \|/',
                'arch/sparc/kernel/traps_{32,64}.c die_if_kernel(), the banner',
                'arch/sparc/kernel/traps_64.c', '\\\\|/ ____ \\\\|/'),
    CrashFormat('sparc, sparc64', r'\S+\(\d+\): .+ \[#\d+\]$',
                'kunit_try_catch(97): Oops [#1]',
                'arch/sparc/kernel/traps_{32,64}.c die_if_kernel(): "%s(%d): %s [#%d]"',
                'arch/sparc/kernel/traps_64.c', '%s(%d): %s [#%d]\\n'),
    CrashFormat('alpha', r'Kernel bug at \S+:\d+$', 'Kernel bug at net/core/skbuff.c:210',
                'arch/alpha/kernel/traps.c do_entIF()',
                'arch/alpha/kernel/traps.c', 'Kernel bug at %s:%d\\n'),
    CrashFormat('alpha', r'(?:CPU \d+ )?\S+\(\d+\): (?:Oops|Arithmetic fault|Kernel Bug|'
                r'Instruction fault) -?\d+$',
                'kunit_try_catch(97): Oops 0',
                'arch/alpha/kernel/traps.c die_if_kernel(): "%s(%d): %s %ld"',
                'arch/alpha/kernel/traps.c', '%s(%d): %s %ld\\n'),
    CrashFormat('sh', r'BUG: unable to handle kernel ',
                'BUG: unable to handle kernel NULL pointer dereference at 00000008',
                'arch/sh/mm/fault.c show_fault_oops()',
                'arch/sh/mm/fault.c', 'BUG: unable to handle kernel '),
    CrashFormat('sh', r'\S.*: [0-9a-f]{4} \[#\d+\]$', 'Kernel BUG: 003e [#1]',
                'arch/sh/kernel/traps.c die(): "%s: %04lx [#%d]"',
                'arch/sh/kernel/traps.c', '%s: %04lx [#%d]\\n'),
    CrashFormat('m68k', r'(?:Oops|BAD KERNEL TRAP|bad frame format): [0-9a-f]{8}$',
                'BAD KERNEL TRAP: 00000000',
                'arch/m68k/kernel/traps.c die_if_kernel(): "%s: %08x"',
                'arch/m68k/kernel/traps.c', '%s: %08x\\n'),
    CrashFormat('m68k', r'\*\*\* .+ \*\*\*   FORMAT=[0-9A-F]+$', '*** Bus Error ***   FORMAT=7',
                'arch/m68k/kernel/traps.c bad_super_trap(): a trap in supervisor mode',
                'arch/m68k/kernel/traps.c', '*** %s ***   FORMAT=%X\\n'),
    CrashFormat('m68k', r'BAD KERNEL BUSERR', 'BAD KERNEL BUSERR',
                'arch/m68k/kernel/traps.c bus_error030()',
                'arch/m68k/kernel/traps.c', 'BAD KERNEL BUSERR'),
    CrashFormat('s390', r'Kernel stack overflow\.', 'Kernel stack overflow.',
                'arch/s390/kernel/traps.c kernel_stack_overflow()',
                'arch/s390/kernel/traps.c', 'Kernel stack overflow.\\n', ('6.1', '6.12')),
    CrashFormat('s390', r'Kernel stack pointer invalid', 'Kernel stack pointer invalid',
                'arch/s390/kernel/traps.c kernel_stack_invalid() of 7.3',
                'arch/s390/kernel/traps.c', 'pr_emerg("Kernel stack pointer invalid\\n");',
                ('7.3',)),
    CrashFormat('s390', r'\S.*: [0-9a-f]{4} ilc:\d \[#\d+\]',
                'illegal operation: 0001 ilc:1 [#1] SMP',
                'arch/s390/kernel/dumpstack.c die(): "%s: %04x ilc:%d [#%d] "',
                'arch/s390/kernel/dumpstack.c', '%s: %04x ilc:%d [#%d]'),
)

# One regex of them all, as console.read() applies it.
CRASH = re.compile(r'^\s*(?:' + '|'.join(f'(?:{f.pattern})' for f in CRASH_FORMATS) + ')')


@dataclasses.dataclass(frozen=True)
class ReportFormat:
    pattern: str            # a regex, matched at the start of a line
    example: str            # a line as the kernel prints it
    source: str             # the file (of 6.12, unless it says 7.3) and function
    literal: str            # the text of its format string there, as the file has it
    closes: bool = False    # the report ends with a rule of `=` of its own
    kernels: Tuple[str, ...] = EVERY_KERNEL     # the kernels whose file holds @literal


def _lockdep(title: str, function: str, pattern: str = '') -> ReportFormat:
    return ReportFormat(pattern or re.escape(title), title,
                        f'kernel/locking/lockdep.c {function}()', title)


REPORT_FORMATS: Tuple[ReportFormat, ...] = (
    ReportFormat(r'WARNING: CPU: \d+ PID: \d+ at ',
                 'WARNING: CPU: 0 PID: 97 at net/core/skbuff.c:817 napi_alloc_skb+0x1c5/0x1e0',
                 'kernel/panic.c __warn() (6.1 and 6.12)', 'WARNING: CPU: %d PID: %d at %pS',
                 kernels=('6.1', '6.12')),
    ReportFormat(r'WARNING: (?:\S+:\d+ )?at \S+, CPU#\d+: ',
                 'WARNING: net/core/skbuff.c:817 at napi_alloc_skb+0x1c5/0x1e0, CPU#0: '
                 'kunit_try_catch/97', 'kernel/panic.c __warn() of 7.3',
                 'WARNING: %s:%d at %pS, CPU#%d: %s/%d', kernels=('7.3',)),
    ReportFormat(r'BUG: KASAN: ', 'BUG: KASAN: slab-use-after-free in skb_release_data+0x4a/0x3c0',
                 'mm/kasan/report.c print_error_description()', 'BUG: KASAN: %s in %pS',
                 closes=True),
    ReportFormat(r'BUG: KFENCE: ', 'BUG: KFENCE: use-after-free read in rx_alloc+0x4a/0x3c0',
                 'mm/kfence/report.c kfence_report_error()', 'BUG: KFENCE: use-after-free %s in',
                 closes=True),
    ReportFormat(r'BUG: KCSAN: ', 'BUG: KCSAN: data-race in rx_alloc / rx_free',
                 'kernel/kcsan/report.c print_report()', 'BUG: KCSAN: %s in %ps / %ps',
                 closes=True),
    ReportFormat(r'BUG: KMSAN: ', 'BUG: KMSAN: uninit-value in ip_rcv_core+0x4a/0x3c0',
                 'mm/kmsan/report.c kmsan_report()', 'BUG: KMSAN: %s in %pSb', closes=True),
    ReportFormat(r'UBSAN: ', 'UBSAN: array-index-out-of-bounds in net/core/skbuff.c:210:3',
                 'lib/ubsan.c ubsan_prologue()', 'UBSAN: %s in %s:%d:%d'),
    ReportFormat(r'BUG: sleeping function called from invalid context at ',
                 'BUG: sleeping function called from invalid context at mm/slub.c:4119',
                 'kernel/sched/core.c __might_resched()',
                 'BUG: sleeping function called from invalid context at %s:%d'),
    ReportFormat(r'BUG: scheduling while atomic: ',
                 'BUG: scheduling while atomic: kunit_try_catch/97/0x00000101',
                 'kernel/sched/core.c __schedule_bug()', 'BUG: scheduling while atomic: %s/%d/0x%08x'),
    ReportFormat(r'BUG: scheduling in a non-blocking section: ',
                 'BUG: scheduling in a non-blocking section: kunit_try_catch/97/1',
                 'kernel/sched/core.c schedule_debug()',
                 'BUG: scheduling in a non-blocking section: %s/%d/%i'),
    ReportFormat(r'BUG: assuming (?:non migratable|atomic) context at ',
                 'BUG: assuming atomic context at net/core/dev.c:6512',
                 'kernel/sched/core.c __cant_sleep()', 'BUG: assuming atomic context at %s:%d'),
    _lockdep('WARNING: possible circular locking dependency detected',
             'print_circular_bug_header'),
    _lockdep('WARNING: possible recursive locking detected', 'print_deadlock_bug'),
    _lockdep('WARNING: possible irq lock inversion dependency detected',
             'print_irq_inversion_bug'),
    _lockdep('WARNING: inconsistent lock state', 'print_usage_bug'),
    ReportFormat(r'WARNING: [\w-]+-safe -> [\w-]+-unsafe lock order detected',
                 'WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected',
                 'kernel/locking/lockdep.c print_bad_irq_dependency()',
                 'WARNING: %s-safe -> %s-unsafe lock order detected'),
    _lockdep('[ BUG: Invalid wait context ]', 'print_lock_invalid_wait_context',
             r'\[ BUG: Invalid wait context \]'),
    _lockdep('WARNING: bad unlock balance detected!', 'print_unlock_imbalance_bug'),
    _lockdep('WARNING: held lock freed!', 'print_freed_lock_bug'),
    _lockdep('WARNING: Nested lock was not taken', 'print_lock_nested_lock_not_held'),
    _lockdep('WARNING: bad contention detected!', 'print_lock_contention_bug'),
    ReportFormat(r'WARNING: \S+/\d+ still has locks held!',
                 'WARNING: kunit_try_catch/97 still has locks held!',
                 'kernel/locking/lockdep.c print_held_locks_bug()',
                 'WARNING: %s/%d still has locks held!'),
    _lockdep('WARNING: lock held when returning to user space!', 'lockdep_sys_exit'),
    _lockdep('WARNING: chain_key collision', 'print_collision'),
    _lockdep('WARNING: suspicious RCU usage', 'lockdep_rcu_suspicious'),
    ReportFormat(r'BUG: MAX_\w+ too low!', 'BUG: MAX_LOCKDEP_ENTRIES too low!',
                 'kernel/locking/lockdep.c print_lockdep_off()', 'BUG: MAX_LOCKDEP_ENTRIES too low!'),
    ReportFormat(r'BUG: key \S+ has not been registered!',
                 'BUG: key ffff888004b1c2c8 has not been registered!',
                 'kernel/locking/lockdep.c lockdep_init_map_type()',
                 'BUG: key %px has not been registered!'),
    ReportFormat(r'BUG: looking up invalid subclass: ', 'BUG: looking up invalid subclass: 9',
                 'kernel/locking/lockdep.c look_up_lock_class()',
                 'BUG: looking up invalid subclass: %u'),
    ReportFormat(r'BUG: spinlock .+ on CPU#\d+, ', 'BUG: spinlock recursion on CPU#0, '
                 'kunit_try_catch/97', 'kernel/locking/spinlock_debug.c spin_dump()',
                 'BUG: spinlock %s on CPU#%d, %s/%d'),
    ReportFormat(r'BUG: rwlock .+ on CPU#\d+, ', 'BUG: rwlock recursion on CPU#0, '
                 'kunit_try_catch/97, ffff888004b1c2c8',
                 'kernel/locking/spinlock_debug.c rwlock_bug()',
                 'BUG: rwlock %s on CPU#%d, %s/%d, %p'),
    ReportFormat(r'BUG: Bad page state', 'BUG: Bad page state in process kunit_try_catch  '
                 'pfn:04b1c', 'mm/page_alloc.c bad_page()',
                 'BUG: Bad page state in process %s  pfn:%05lx'),
    ReportFormat(r'BUG: Bad page map', 'BUG: Bad page map in process init  pte:8000000004b1c025 '
                 'pmd:04b1d067', 'mm/memory.c print_bad_pte()',
                 'BUG: Bad page map in process %s  '),
    ReportFormat(r'BUG: Bad rss-counter state ', 'BUG: Bad rss-counter state '
                 'mm:ffff888004b1c2c8 type:MM_ANONPAGES val:1', 'kernel/fork.c check_mm()',
                 'BUG: Bad rss-counter state mm:%p type:%s val:%ld'),
    ReportFormat(r'BUG \S+ \((?:Not tainted|Tainted: [^)]*)\): ',
                 'BUG kmalloc-2k (Not tainted): Object already free', 'mm/slub.c slab_bug()',
                 'BUG %s (%s): %pV'),
    ReportFormat(r'BUG: using \S+\(\) in preemptible \[[0-9a-f]+\] code: ',
                 'BUG: using smp_processor_id() in preemptible [00000000] code: '
                 'kunit_try_catch/97', 'lib/smp_processor_id.c check_preemption_disabled()',
                 'BUG: using %s%s() in preemptible [%08x] code: %s/%d'),
    ReportFormat(r'BUG: workqueue leaked atomic, lock or RCU: ',
                 'BUG: workqueue leaked atomic, lock or RCU: kworker/0:1[15]',
                 'kernel/workqueue.c process_one_work()',
                 'BUG: workqueue leaked atomic, lock or RCU: %s[%d]', kernels=('6.12', '7.3')),
    ReportFormat(r'BUG: workqueue leaked lock or atomic: ',
                 'BUG: workqueue leaked lock or atomic: kworker/0:1/0x00000000/15',
                 'kernel/workqueue.c process_one_work() of 6.1',
                 'BUG: workqueue leaked lock or atomic: %s/0x%08x/%d', kernels=('6.1',)),
    ReportFormat(r'BUG: workqueue lockup - pool', 'BUG: workqueue lockup - pool cpus=0 node=0 '
                 'flags=0x0 nice=0 stuck for 31s!', 'kernel/workqueue.c wq_watchdog_timer_fn()',
                 'BUG: workqueue lockup - pool'),
    ReportFormat(r'watchdog: BUG: soft lockup - CPU#\d+ stuck for ',
                 'watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kunit_try_catch:97]',
                 'kernel/watchdog.c watchdog_timer_fn() (pr_fmt "watchdog: ")',
                 'BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]'),
    ReportFormat(r'watchdog: Watchdog detected hard LOCKUP on cpu ',
                 'watchdog: Watchdog detected hard LOCKUP on cpu 0',
                 'kernel/watchdog.c watchdog_hardlockup_check() (pr_fmt "watchdog: ")',
                 'Watchdog detected hard LOCKUP on cpu %d', kernels=('6.12',)),
    ReportFormat(r'NMI watchdog: Watchdog detected hard LOCKUP on cpu ',
                 'NMI watchdog: Watchdog detected hard LOCKUP on cpu 0',
                 'kernel/watchdog_hld.c watchdog_overflow_callback() of 6.1 (pr_fmt '
                 '"NMI watchdog: ")', 'Watchdog detected hard LOCKUP on cpu %d', kernels=('6.1',)),
    ReportFormat(r'watchdog: CPU\d+: Watchdog detected hard LOCKUP on cpu ',
                 'watchdog: CPU1: Watchdog detected hard LOCKUP on cpu 0',
                 'kernel/watchdog.c watchdog_hardlockup_check() of 7.3 (pr_fmt "watchdog: ")',
                 'CPU%u: Watchdog detected hard LOCKUP on cpu %u', kernels=('7.3',)),
    ReportFormat(r'INFO: task \S+ blocked for more than \d+ seconds\.',
                 'INFO: task kunit_try_catch:97 blocked for more than 122 seconds.',
                 'kernel/hung_task.c check_hung_task()',
                 'INFO: task %s:%d blocked for more than %ld seconds.', kernels=('6.1', '6.12')),
    ReportFormat(r'INFO: task \S+ blocked(?: in I/O wait)? for more than \d+ seconds\.',
                 'INFO: task kunit_try_catch:97 blocked in I/O wait for more than 122 seconds.',
                 'kernel/hung_task.c check_hung_task() of 7.3',
                 'INFO: task %s:%d blocked%s for more than %ld seconds.', kernels=('7.3',)),
    ReportFormat(r'rcu: INFO: \S+ (?:self-)?detected stalls? ',
                 'rcu: INFO: rcu_preempt self-detected stall on CPU',
                 'kernel/rcu/tree_stall.h print_cpu_stall() (pr_fmt "rcu: ")',
                 'INFO: %s self-detected stall on CPU'),
    ReportFormat(r'kmemleak: \d+ new suspected memory leaks',
                 'kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)',
                 'mm/kmemleak.c kmemleak_scan() (pr_fmt "kmemleak: ")',
                 '%d new suspected memory leaks (see /sys/kernel/debug/kmemleak)'),
)

# One regex of them all, as console.read() applies it.
REPORT = re.compile(r'^\s*(?:' + '|'.join(f'(?:{f.pattern})' for f in REPORT_FORMATS) + ')')
# The reports that end with a rule of `=` of their own: that rule closes them.
CLOSED_REPORT = re.compile(r'^\s*(?:' + '|'.join(f'(?:{f.pattern})' for f in REPORT_FORMATS
                                                  if f.closes) + ')')
# What opens a report, known or not: a crash or report line that is neither
# of the tables above is a report the gate cannot read.
BANNER = re.compile(r'^\s*(?:\[\s*)?(?:BUG|WARNING)\b|^\s*={10,}\s*$')
RULE = re.compile(r'^\s*={10,}\s*$')
# Lines only the kernel's report machinery prints (lib/dump_stack.c
# dump_stack_print_info(): "CPU: %d UID: %u PID: %d Comm: %.20s ..." in
# 6.12 and 7.3, without UID in 6.1; kernel/panic.c __warn(): "---[ end trace",
# include/asm-generic/bug.h CUT_HERE; print_modules(); the stack walkers:
# "Call Trace:" (x86, powerpc, mips, m68k, s390, sparc64), alpha's "Trace:",
# sparc's "Caller[...]", and a frame as "sym+0x1c5/0x1e0", with or without
# its "[<address>]" and x86's "? " of an unreliable one).
STACK_DUMP = re.compile(r'^\s*(?:CPU: \d+ (?:UID: \d+ )?PID: \d+ Comm: |(?:Call )?Trace:|'
                        r'---\[ end trace |-+\[ cut here \]-+$|Modules linked in:|'
                        r'Caller\[[0-9a-f]+\]: |(?:\? )?(?:\[<[0-9a-f]+>\]\s*)?'
                        r'[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+(?:\s|$))')
