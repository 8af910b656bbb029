"""rx-align: run the NET_IP_ALIGN/NET_SKB_PAD KUnit suite under QEMU, per arch.

Entry points and libraries, apart: an entry point is a module a script of
scripts/ runs as `python3 -m rxalign.NAME` (run_kunit, report_main, bench,
audit, compile_test, export_series, mutations, repeat, series_check, and
deps_main, debian_archive_main for the shell scripts); it parses its
arguments and has a main(). No module imports an entry point: what two
commands share is in a library module (NAME_main is the entry point of
the library NAME). tests/test_entry_points.py holds the code to this.
"""
