"""Hypothesis profiles for the kit: ``ci`` (fast, deterministic) and ``deep`` (nightly).

Registering is a side effect of importing this module; *loading* is never done
for you (a global profile would change every other Hypothesis test of a suite).
:func:`kit_settings` returns the settings of the profile selected by its argument,
else by the ``HYPOTHESIS_PROFILE`` environment variable, else ``ci``:

* ``ci``: 200 examples, no deadline, derandomized (the same runs on every machine and Python:
  a check seeds its search with :data:`CI_SEED`);
* ``deep``: 2,000 examples of up to 100 steps, random, for nightly or manual runs.

Any other registered Hypothesis profile name is accepted too.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings
from hypothesis.errors import InvalidArgument

__all__ = ["CI_PROFILE", "CI_SEED", "DEEP_PROFILE", "kit_settings"]

CI_PROFILE = "agentsm-kit-ci"
"""The registered name of the ``ci`` profile."""
DEEP_PROFILE = "agentsm-kit-deep"
"""The registered name of the ``deep`` profile."""

CI_SEED = 0xDA74909B1D91CF0623E27CACF1A7A38E817CF5DA2FD5641FF48EE283E422DB3C49787E6713EB99F293E355C02DD7259D
"""The seed of every derandomized :func:`~verification.kit.check_machine` search.

Derandomized Hypothesis seeds a state machine's search from a digest of the class's source,
which Python 3.11 cannot read for a class made in a function and 3.13 can: the same check
explored other runs (and missed or shrank worse) on 3.13. This is the seed 3.11 derived, so
runs stay what they were and are now the same on every Python and Hypothesis version."""

_SLOW_OK = (HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much)
# No "explain" phase: on a long stateful run it costs several times the shrink itself,
# and the kit's own counterexample (states, events, outcomes) already says what happened.
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink)

settings.register_profile(
    CI_PROFILE,
    max_examples=200,
    stateful_step_count=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=_SLOW_OK,
    print_blob=False,
    phases=_PHASES,
)
settings.register_profile(
    DEEP_PROFILE,
    max_examples=2000,
    stateful_step_count=100,
    deadline=None,
    phases=_PHASES,
    suppress_health_check=_SLOW_OK,
)

_ALIASES = {"ci": CI_PROFILE, "deep": DEEP_PROFILE}


def kit_settings(
    profile: str | None = None,
    *,
    max_examples: int | None = None,
    stateful_step_count: int | None = None,
) -> settings:
    """The settings of ``profile`` (or ``$HYPOTHESIS_PROFILE``, or ``ci``), with overrides.

    Raises ``ValueError`` for a profile name nobody registered.

    Example:
        >>> kit_settings("ci").max_examples, kit_settings("deep").max_examples
        (200, 2000)
        >>> kit_settings("ci", max_examples=10).max_examples
        10
    """
    name = profile or os.environ.get("HYPOTHESIS_PROFILE", "") or "ci"
    try:
        chosen = settings.get_profile(_ALIASES.get(name, name))
    except InvalidArgument as exc:
        raise ValueError(
            f"unknown Hypothesis profile {name!r}; use 'ci', 'deep' or a registered one"
        ) from exc
    if max_examples is not None:
        chosen = settings(chosen, max_examples=max_examples)
    if stateful_step_count is not None:
        chosen = settings(chosen, stateful_step_count=stateful_step_count)
    return chosen
