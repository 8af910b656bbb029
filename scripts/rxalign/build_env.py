"""The environment every kernel build runs in: ccache in the cache, fixed build
stamps, no ARCH or CROSS_COMPILE of the caller's."""

from __future__ import annotations

import os
from typing import Dict

from .cache import Cache

CCACHE_SIZE = '5G'


def build_env(cache: Cache, first_build: bool = False) -> Dict[str, str]:
    """The environment of kunit.py and make: ccache in @cache, fixed build stamps.

    @first_build: nothing is built in the build dir yet, so make compiles every
    object once and ccache's preprocessor pass and hashing are pure cost (a full
    x86_64 build: 297 s through ccache, 209 s without); ccache serves the
    builds after it, where a tree that changes back (a mutation run, a series
    edited and restored) meets objects it has seen.  CCACHE_DISABLE rather than
    another CC: make's command lines stay those of every later build, so
    nothing is rebuilt because the compiler's spelling changed.  Not in CI
    (run-kunit --ci): there the first build's objects are what the next
    pipeline's job finds in the ccache it restores.
    """
    env = dict(os.environ)
    if first_build:
        env['CCACHE_DISABLE'] = '1'
    # Not depend mode (CCACHE_DEPEND), although it made cold misses cheaper
    # (a full x86_64 build: 297 s in the default mode, 209 s without ccache):
    # under it, a mutation-test run once booted the skbuff.o of an earlier
    # mutation of the same file.
    env.update(CCACHE_DIR=str(cache.ccache), CCACHE_BASEDIR=str(cache.root),
               CCACHE_NOHASHDIR='1', CCACHE_MAXSIZE=CCACHE_SIZE,
               KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2000',
               KBUILD_BUILD_USER='rx-align', KBUILD_BUILD_HOST='qemu')
    env.pop('ARCH', None)
    env.pop('CROSS_COMPILE', None)
    return env
