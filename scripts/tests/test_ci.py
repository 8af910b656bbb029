"""Issue 42 item 4: in CI, ccache from a build dir's first build on."""

from __future__ import annotations

from pathlib import Path
from typing import List

import pytest

from rxalign import deps, run_kunit
from rxalign.exitcodes import Exit

import faults


@pytest.fixture(autouse=True)
def no_installs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(deps, 'ensure_packages', lambda pkgs, log: None)
    monkeypatch.setattr(deps, 'check_arch_tools', lambda arch: None)
    (tmp_path / 'no-series').mkdir()
    monkeypatch.setattr(run_kunit, 'SERIES_DIR', tmp_path / 'no-series')
    monkeypatch.setattr(run_kunit, 'TESTS_DIR', faults.FIXTURES / 'kunit-tests')
    monkeypatch.setenv('RXALIGN_FAKE_KTAP', str(faults.path('pass')))


def first_build_ccache(fake_tree: Path, cache_root: Path, out: Path, *extra: str) -> List[str]:
    """What the fake make saw of ccache in a new build dir."""
    assert run_kunit.main(['--tree', str(fake_tree), '--arch', 'x86_64', '--timeout', '1',
                           '--out', str(out), *extra]) == Exit.OK
    return next(cache_root.glob('build/*/x86_64/ccache.log')).read_text().split()


@pytest.mark.parametrize('ci, option, seen', [
    ('', (), ['off']),              # this machine's cold timings: no ccache
    ('false', (), ['off']),
    ('true', (), ['on']),           # GitLab CI and GitHub Actions set CI=true
    ('', ('--ci',), ['on']),
])
def test_ci_uses_ccache_from_the_first_build(
        monkeypatch: pytest.MonkeyPatch, fake_tree: Path, cache_root: Path, tmp_path: Path,
        ci: str, option: List[str], seen: List[str]) -> None:
    """A CI job's build dirs are new in every pipeline that does not restore
    them, and the first build turned ccache off (CCACHE_DISABLE), so the
    ccache the templates cached stayed empty: every pipeline was cold."""
    if ci:
        monkeypatch.setenv('CI', ci)
    assert first_build_ccache(fake_tree, cache_root, tmp_path / 'out', *option) == seen
