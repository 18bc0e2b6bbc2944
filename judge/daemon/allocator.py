"""Large blocks kept out of the C heap, so that a long-running judge gives them back.

glibc's malloc serves a block of at least its *mmap threshold* (128 KiB at first) with a
mapping of its own, unmapped when freed.  But each time such a block is freed it raises
the threshold to that block's size (up to 32 MiB), and the heap's trim threshold to twice
that.  Every SIGNON scrypt needs one 16 MiB block (``judge.store.passwords``): after the
first, the next ones come from the heap of the thread that runs them, and that memory,
freed, stays with the process for good (16-17 MiB for each thread that ever verified a
password; ``malloc_trim`` does not shrink a thread's heap).  A fixed threshold stops the
raising: blocks of ``LARGE_BLOCK`` or more (scrypt's, a picture's pixels) are always
mapped on their own and returned when freed.  Figures: docs/benchmarks.md, "Memory of
judge serve".
"""

from __future__ import annotations

import ctypes
import os

#: glibc's mallopt parameter (malloc.h).
M_MMAP_THRESHOLD = -3
#: Blocks this large or larger get a mapping of their own: far above what the interpreter
#: allocates and frees all the time, far below scrypt's 16 MiB.
LARGE_BLOCK = 1024 * 1024
#: glibc's own setting for the same (an operator's choice is kept).
ENVIRONMENT_SETTING = "MALLOC_MMAP_THRESHOLD_"


def keep_large_blocks_out_of_the_heap() -> bool:
    """Fix the process's mmap threshold at ``LARGE_BLOCK``; whether it was set (False
    where the C library has no ``mallopt``, e.g. macOS, or ignores it, e.g. musl, or the
    environment sets it already)."""
    if ENVIRONMENT_SETTING in os.environ:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK))
