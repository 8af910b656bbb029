"""The CI templates parse and call the harness the way the README says."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip('yaml')

TEMPLATES = Path(__file__).resolve().parents[2] / 'ci-templates'


def test_github_actions() -> None:
    wf = yaml.safe_load((TEMPLATES / 'github-actions.yml').read_text())
    assert set(wf['jobs']) == {'kunit', 'report'}
    assert wf['jobs']['kunit']['strategy']['matrix']['arch'] == ['x86_64', 'powerpc', 'powerpc32']
    steps = ' '.join(s.get('run', '') for s in wf['jobs']['report']['steps'])
    assert 'scripts/report --out merged' in steps


def test_gitlab() -> None:
    ci = yaml.safe_load((TEMPLATES / 'gitlab-ci.yml').read_text())
    assert ci['kunit']['parallel']['matrix'][0]['ARCH'] == ['x86_64', 'powerpc', 'powerpc32']
    assert ci['report']['artifacts']['reports']['junit'] == 'merged/junit.xml'
    assert any('scripts/run-kunit' in line for line in ci['kunit']['script'])
