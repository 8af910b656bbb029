"""How a kernel says it crashed, per arch: the one table the console walk reads.

Each entry is a line the kernel prints when it dies, oopses or hits a BUG(),
as linux-source-6.12 formats it (the file and function are in `source`);
`pattern` is matched at the start of a console line (printk timestamps
stripped, leading blanks allowed), never inside it, so a test's own message
that quotes these words is no crash.  `example` is a line as the kernel
prints it: tests/test_verdict.py checks that each pattern matches its
example, and that a run going on after any of them is no pass.

Only the first line of each report needs to be here: what follows it
(registers, a backtrace) belongs to the same crash.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Tuple


@dataclasses.dataclass(frozen=True)
class CrashFormat:
    arches: str             # who prints it ("all": generic code)
    pattern: str            # a regex, matched at the start of a line
    example: str            # a line as 6.12 prints it
    source: str             # where 6.12 prints it


CRASH_FORMATS: Tuple[CrashFormat, ...] = (
    CrashFormat('all', r'Kernel panic - not syncing',
                'Kernel panic - not syncing: Fatal exception in interrupt',
                'kernel/panic.c panic()'),
    CrashFormat('all', r'kernel BUG at \S+:\d+!', 'kernel BUG at net/core/skbuff.c:210!',
                'lib/bug.c report_bug(); arch/sparc/kernel/traps_{32,64}.c do_BUG()'),
    CrashFormat('all', r'Kernel BUG at ',
                'Kernel BUG at skb_panic+0x4c/0x50 [verbose debug info unavailable]',
                'lib/bug.c report_bug(), a BUG() without file information'),
    CrashFormat('all', r'Oops(?::| -)', 'Oops: Oops: 0002 [#1] PREEMPT NOPTI',
                'die() of x86 (arch/x86/kernel/dumpstack.c __die_header()), powerpc, '
                'sh, s390, m68k ("Oops: ..."), riscv ("Oops - illegal instruction")'),
    CrashFormat('x86_64, i386', r'BUG: kernel NULL pointer dereference',
                'BUG: kernel NULL pointer dereference, address: 0000000000000008',
                'arch/x86/mm/fault.c show_fault_oops()'),
    CrashFormat('x86_64, i386', r'BUG: unable to handle page fault',
                'BUG: unable to handle page fault for address: ffffffffff600000',
                'arch/x86/mm/fault.c show_fault_oops()'),
    CrashFormat('x86_64, i386', r'general protection fault',
                'general protection fault, probably for non-canonical address '
                '0xdead000000000100: 0000 [#1] PREEMPT NOPTI',
                'arch/x86/kernel/traps.c exc_general_protection() (GPFSTR)'),
    CrashFormat('arm, arm64', r'Internal error: ',
                'Internal error: Oops - BUG: 00000000f2000800 [#1] PREEMPT SMP',
                'arch/arm64/kernel/traps.c die(), arch/arm/kernel/traps.c die()'),
    CrashFormat('arm, arm64, riscv, sparc, sparc64, alpha, m68k, s390',
                r'Unable to handle kernel ',
                'Unable to handle kernel NULL pointer dereference at virtual address '
                '0000000000000008',
                'arm64/arm/riscv mm/fault.c die_kernel_fault()/__do_kernel_fault(), '
                'sparc mm/fault_{32,64}.c unhandled_fault(), alpha and m68k mm/fault.c, '
                's390 mm/fault.c handle_fault_error_nolock()'),
    CrashFormat('riscv', r'\S.* \[#\d+\]$', 'Oops [#1]',
                'arch/riscv/kernel/traps.c die(): "%s [#%d]"'),
    CrashFormat('powerpc, powerpc32, powerpcle',
                r'BUG: (?:Kernel NULL pointer dereference|Unable to handle kernel|'
                r'Unable to handle unknown paging fault)',
                'BUG: Kernel NULL pointer dereference on read at 0x00000008',
                'arch/powerpc/mm/fault.c __bad_page_fault()'),
    CrashFormat('mips, mipsel, mips64, mips64el', r'CPU \d+ Unable to handle kernel ',
                'CPU 0 Unable to handle kernel paging request at virtual address 00000008, '
                'epc == 80512f10, ra == 80512ef4',
                'arch/mips/mm/fault.c __do_page_fault()'),
    CrashFormat('mips, mipsel, mips64, mips64el', r'\S.*\[#\d+\]:$', 'Oops[#1]:',
                'arch/mips/kernel/traps.c die(): "%s[#%d]:"'),
    CrashFormat('parisc', r'.+: Code=\d+ \(.*\) at addr ',
                'Kernel Fault: Code=26 (Data memory access rights trap) at addr 0000000c',
                'arch/parisc/kernel/traps.c parisc_terminate()'),
    CrashFormat('parisc', r'.+ \(pid \d+\): .+ \(code \d+\)$',
                'kunit_try_catch (pid 97): Unaligned data reference (code 28)',
                'arch/parisc/kernel/traps.c die_if_kernel(), kernel mode'),
    CrashFormat('parisc', r'< Your System ate a SPARC! Gah! >',
                '     < Your System ate a SPARC! Gah! >',
                'arch/parisc/kernel/traps.c die_if_kernel(), the banner'),
    CrashFormat('sparc, sparc64', r'\\\|/ ____ \\\|/', r'              \|/ ____ \|/',
                'arch/sparc/kernel/traps_{32,64}.c die_if_kernel(), the banner'),
    CrashFormat('sparc, sparc64', r'\S+\(\d+\): .+ \[#\d+\]$',
                'kunit_try_catch(97): Oops [#1]',
                'arch/sparc/kernel/traps_{32,64}.c die_if_kernel(): "%s(%d): %s [#%d]"'),
    CrashFormat('alpha', r'Kernel bug at \S+:\d+$', 'Kernel bug at net/core/skbuff.c:210',
                'arch/alpha/kernel/traps.c do_entIF()'),
    CrashFormat('alpha', r'(?:CPU \d+ )?\S+\(\d+\): (?:Oops|Arithmetic fault|Kernel Bug|'
                r'Instruction fault) -?\d+$',
                'kunit_try_catch(97): Oops 0',
                'arch/alpha/kernel/traps.c die_if_kernel(): "%s(%d): %s %ld"'),
    CrashFormat('sh', r'BUG: unable to handle kernel ',
                'BUG: unable to handle kernel NULL pointer dereference at 00000008',
                'arch/sh/mm/fault.c show_fault_oops()'),
    CrashFormat('sh', r'\S.*: [0-9a-f]{4} \[#\d+\]$', 'Kernel BUG: 003e [#1]',
                'arch/sh/kernel/traps.c die(): "%s: %04lx [#%d]"'),
    CrashFormat('m68k', r'(?:Oops|BAD KERNEL TRAP|bad frame format): [0-9a-f]{8}$',
                'BAD KERNEL TRAP: 00000000',
                'arch/m68k/kernel/traps.c die_if_kernel(): "%s: %08x"'),
    CrashFormat('m68k', r'\*\*\* .+ \*\*\*   FORMAT=[0-9A-F]+$', '*** Bus Error ***   FORMAT=7',
                'arch/m68k/kernel/traps.c bad_super_trap(): a trap in supervisor mode'),
    CrashFormat('m68k', r'BAD KERNEL BUSERR', 'BAD KERNEL BUSERR',
                'arch/m68k/kernel/traps.c bus_error030()'),
    CrashFormat('s390', r'Kernel stack overflow\.', 'Kernel stack overflow.',
                'arch/s390/kernel/traps.c kernel_stack_overflow()'),
    CrashFormat('s390', r'\S.*: [0-9a-f]{4} ilc:\d \[#\d+\]',
                'illegal operation: 0001 ilc:1 [#1] SMP',
                'arch/s390/kernel/dumpstack.c die(): "%s: %04x ilc:%d [#%d] "'),
)

# One regex of them all, as console.read() applies it.
CRASH = re.compile(r'^\s*(?:' + '|'.join(f'(?:{f.pattern})' for f in CRASH_FORMATS) + ')')
