"""Derandomized checks draw the same runs whatever modules a process has loaded.

Hypothesis mixes into its draws constants read from every local module loaded so far (its
"local constants" pool). A derandomized check then explores other runs when a test suite loads
one more module, or runs alone instead of in the whole suite: a fixed-seed coverage check that
passed in one passed by luck in the other. :func:`fixed_constants` empties that pool for the
length of one check, so a derandomized check depends only on its seed, its machine and its
settings. The pool is private to Hypothesis: where a version has none, this does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis.internal.conjecture import providers

__all__ = ["fixed_constants"]


@contextmanager
def fixed_constants() -> Iterator[None]:
    """Within this block, Hypothesis draws no constants from the loaded modules.

    Example:
        >>> with fixed_constants():
        ...     pass
    """
    local = getattr(providers, "_get_local_constants", None)
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    constants = getattr(providers, "Constants", None)
    if local is None or cache is None or constants is None:
        yield
        return
    empty = constants()
    providers._get_local_constants = lambda: empty  # the pool has no public switch
    providers.CONSTANTS_CACHE = type(cache)(1024)  # drawn constants are cached: our own cache
    try:
        yield
    finally:
        providers._get_local_constants = local
        providers.CONSTANTS_CACHE = cache
