"""The server's memory after a large request: give freed heap back to the system (glibc only).

A heatmap of a long text builds autograd graphs of a few hundred MB; once they are freed, glibc keeps the
pages in its arenas, one per thread that allocated, so the server's resident memory stays at its highest
and the next large request, in another worker thread, adds its own on top. Two calls bound that:
- `limit_arenas()` (at launch, before the workers start): at most ARENAS malloc arenas, so a freed graph's
  pages are reused by the next request whatever thread it runs in (glibc's M_ARENA_MAX; the environment's
  MALLOC_ARENA_MAX, when set, wins);
- `trim()` (after a large request): `malloc_trim(0)`, the freed pages returned to the system.
Elsewhere (macOS, Windows, musl) both do nothing and say so by returning False.
bench/abuse.py measures the server's peak with and without them (bench/README.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys

ARENAS = 2  # malloc arenas at most: the worker threads share them (glibc's default is 8 per core)
M_ARENA_MAX = -8  # glibc's mallopt parameter (malloc.h)


@functools.cache
def _libc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # glibc's; musl has none
        libc.mallopt
    except (OSError, AttributeError):
        return None
    return libc


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most `arenas` malloc arenas from now on (call before worker threads start). True if set."""
    libc = _libc()
    if libc is None or os.environ.get("MALLOC_ARENA_MAX"):
        return False
    return bool(libc.mallopt(M_ARENA_MAX, int(arenas)))


def trim() -> bool:
    """Return the heap's free pages to the system. True if glibc released any."""
    libc = _libc()
    return bool(libc.malloc_trim(0)) if libc is not None else False
