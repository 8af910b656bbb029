"""rx-align: run the NET_IP_ALIGN/NET_SKB_PAD KUnit suite under QEMU, per arch.

Entry points and libraries, apart: an entry point is a module a script of
scripts/ runs as `python3 -m rxalign.NAME` (run_kunit, report_main, bench,
compile_test, docgen, export_series, mutations, pad_sites, refresh_compat,
repeat, series_check, and deps_main, debian_archive_main, debian_root_main
for the shell scripts); it has a main(), and a command's has the parser()
its main() parses with (scripts/docs tabulates it). No module imports an
entry point: what two commands share is in a library module (NAME_main is
the entry point of the library NAME). tests/test_entry_points.py holds the
code to this.
"""
