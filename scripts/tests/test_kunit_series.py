"""kunit-tests/ as commits (kunit_series.py): each builds alone, the posted ones first."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Dict

import pytest

from rxalign import kernels, kunit_series, series
from rxalign.exitcodes import Exit, HarnessError
from rxalign.paths import SERIES_DIR, TESTS_DIR

MSG = 'Files: {files}\nPosted: {posted}\nFrom: A <a@kernel.org>\n\nsubject\n\nbody\n'


def make_tests_dir(tmp_path: Path, commits: Dict[str, str]) -> Path:
    d = tmp_path / 'kunit-tests'
    (d / 'commits').mkdir(parents=True)
    for name in ('a.h', 'a.c', 'b.c', '.kunitconfig'):
        (d / name).write_text(name + '\n')
    (d / 'Makefile').write_text('# SPDX\n\nobj-$(CONFIG_A) += a.o\nobj-$(CONFIG_B) += b.o\n')
    (d / 'Kconfig').write_text('# SPDX\n\nconfig A\n\ttristate\n\nconfig B\n\ttristate "b"\n'
                               '\tselect A\n')
    for name, (files, posted) in ((n, v.split('|')) for n, v in commits.items()):
        (d / 'commits' / name).write_text(MSG.format(files=files, posted=posted))
    return d


def test_the_projects_commits_cover_every_file_posted_first() -> None:
    commits = kunit_series.read(TESTS_DIR)
    posted = [c.posted for c in commits]
    assert posted[0] is kunit_series.Posted.NET_NEXT
    assert posted == sorted(posted, key=lambda p: p is kunit_series.Posted.LOCAL)
    # the helpers first: what every suite includes and links against
    assert set(commits[0].files) == {'rx_align.h', 'rx_align_kunit_helpers.c'}
    # the rig and the cases that need unmerged fixes are not posted
    local = {f for c in commits if c.posted is kunit_series.Posted.LOCAL for f in c.files}
    assert {'rx_align_drivers_kunit.c', 'rx_align_xdp_copy_kunit.c'} <= local
    for c in commits:
        assert re.search(r'^Signed-off-by: .+ <.+>$', c.message, re.M), c.path.name
        assert len(c.subject) <= 75 and c.subject.startswith('net: '), c.subject


def test_each_commit_builds_what_it_adds_and_nothing_else(tmp_path: Path) -> None:
    d = make_tests_dir(tmp_path, {'01.msg': 'a.h a.c|net-next', '02.msg': 'b.c .kunitconfig|local'})
    commits = kunit_series.read(d)
    first = kunit_series.files_at(d, commits, 0)
    assert set(first) == {'a.h', 'a.c', 'Makefile', 'Kconfig'}
    assert 'b.o' not in first['Makefile'] and 'a.o' in first['Makefile']
    assert 'config B' not in first['Kconfig'] and 'config A' in first['Kconfig']
    second = kunit_series.files_at(d, commits, 1)
    assert second['Makefile'] == (d / 'Makefile').read_text()
    assert 'config B' in second['Kconfig'] and second['.kunitconfig'] == '.kunitconfig\n'


@pytest.mark.parametrize('commits, says', [
    ({'01.msg': 'a.h a.c b.c|net-next', '02.msg': 'b.c .kunitconfig|local'}, "twice ['b.c']"),
    ({'01.msg': 'a.h a.c|net-next'}, "in none ['.kunitconfig', 'b.c']"),
    ({'01.msg': 'a.h a.c x.c b.c .kunitconfig|net-next'}, "not there ['x.c']"),
    ({'01.msg': 'a.h a.c|local', '02.msg': 'b.c .kunitconfig|net-next'}, 'local commits go after'),
    ({'01.msg': 'a.h a.c b.c .kunitconfig|stable'}, "Posted: 'stable'"),
])
def test_a_broken_description_is_refused(tmp_path: Path, commits: Dict[str, str],
                                        says: str) -> None:
    d = make_tests_dir(tmp_path, commits)
    with pytest.raises(HarnessError) as err:
        kunit_series.read(d)
    assert err.value.status == Exit.USAGE and says in err.value.message


def test_a_message_without_its_header_is_refused(tmp_path: Path) -> None:
    d = make_tests_dir(tmp_path, {'01.msg': 'a.h a.c b.c .kunitconfig|net-next'})
    (d / 'commits' / '01.msg').write_text('net: subject\n\nbody\n')
    with pytest.raises(HarnessError, match='header line'):
        kunit_series.read(d)


def _added(patch: str) -> Dict[str, str]:
    """The new files a format-patch mail adds under net/core/tests/, as text."""
    out = {}
    for m in re.finditer(r'^\+\+\+ b/net/core/tests/(\S+)\n@@ -0,0 [^\n]*\n((?:\+[^\n]*\n)*)',
                         patch, re.M):
        out[m.group(1)] = ''.join(ln[1:] + '\n' for ln in m.group(2).splitlines())
    return out


def test_the_stored_series_is_kunit_tests_as_committed() -> None:
    """kernel-patches/net-next/ is for reading and mailing: each patch adds the
    files its commit adds, as kunit-tests/ has them, under its subject.
    (scripts/export-series --refresh net-next writes it; upstream-check
    compares it whole with a fresh one.)"""
    commits = [c for c in kunit_series.read(TESTS_DIR)
               if c.posted is kunit_series.Posted.NET_NEXT]
    stored = series.BY_NAME["net-next"].patches(kernels.NEWEST, SERIES_DIR)
    assert len(stored) == len(commits)
    for i, (c, p) in enumerate(zip(commits, stored)):
        text = p.read_text()
        assert f'] {c.subject}\n' in text.replace('\n ', ' '), p.name
        added = _added(text)
        whole = kunit_series.files_at(TESTS_DIR, commits, i)
        for name in c.files:
            assert added.get(name) == whole[name], (p.name, name)


def test_the_cover_letter_is_written(tmp_path: Path) -> None:
    letter = kunit_series.cover_letter(TESTS_DIR).read_text()
    subject, _, body = letter.partition('\n\n')
    assert subject.startswith('net: ') and body.strip()
    assert 'PLACEHOLDER' not in letter
    shutil.rmtree(tmp_path)
