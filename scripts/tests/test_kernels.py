"""Which kernel's series variants a --tree takes, by its Makefile's version
(issue 42 item 1). On the old code there was no kernels.for_version: every
--tree took the default kernel's (6.12) variants, so each test below failed."""

from __future__ import annotations

import pytest

from rxalign import kernels


@pytest.mark.parametrize('version, kernel', [
    ('6.1', '6.1'),
    ('6.9', '6.1'),     # numerically below 6.12, though "6.9" > "6.12" as text
    ('6.12', '6.12'),
    ('7.2', '6.12'),
    ('7.3', '7.3'),
    ('7.10', '7.3'),    # above 7.3, though "7.10" < "7.3" as text
    ('7.4', '7.3'),     # a net-next newer than the newest: the newest's
    ('8.0', '7.3'),
])
def test_a_tree_takes_the_newest_kernel_not_newer_than_it(version: str, kernel: str) -> None:
    assert kernels.for_version(version).name == kernel


@pytest.mark.parametrize('version', ['5.15', '6.0'])
def test_a_tree_older_than_every_kernel_is_refused_naming_them(version: str) -> None:
    with pytest.raises(ValueError) as err:
        kernels.for_version(version)
    assert version in str(err.value)
    assert all(k.name in str(err.value) for k in kernels.KERNELS)


@pytest.mark.parametrize('version', ['', '6', 'six.12', '6.12.1'])
def test_no_version_is_no_kernel(version: str) -> None:
    with pytest.raises(ValueError):
        kernels.for_version(version)
