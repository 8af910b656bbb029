"""Durations and columns, written one way everywhere."""

from __future__ import annotations

import pytest

from rxalign import arches, fmt, run_kunit


def test_list_arches_prints_aligned_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """The policy column started wherever the arch name and `default` ended,
    and the NICs right after the policy, so no column could be read down."""
    assert run_kunit.main(['--list-arches']) == 0
    lines = capsys.readouterr().out.splitlines()
    head = lines[0]
    assert head.split() == ['arch', 'default', 'policy', '--drivers', 'NICs:', 'driver',
                            '(QEMU', 'device)']
    policy, nics = head.index('policy'), head.index('--drivers')
    assert len(lines) == len(arches.ARCHES) + 1
    for a, line in zip(arches.ARCHES, lines[1:]):
        assert line.startswith(a.name + ' ') and line[policy:].startswith(a.policy), line
        if a.nics:
            assert line[nics:].startswith(a.nics[0].driver), line


def test_seconds_rounds_to_the_nearest() -> None:
    assert [fmt.seconds(s) for s in (0.4, 2.6, 94.2, 3600)] == ['0s', '3s', '1m34s', '60m00s']
