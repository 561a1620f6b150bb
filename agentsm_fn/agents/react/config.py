"""The agent's configuration: step and retry limits, reflection, models, token budgets (a turn's, a thread's).

Defaults are the seed's: ``max_steps`` 15, ``max_retries`` 3, ``confidence_threshold``
0.4, ``reflect_every_n_steps`` 5 (0 = never), ``min_answer_length`` 20; and
``max_output_retries`` 3 (how many times a reply that is not a valid typed result is sent
back to the model before the run fails).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
from pyrsistent import PMap, pmap

from agentsm_fn.llm.conversation import ThreadBudget
from agentsm_fn.llm.replies import Usage

__all__ = ["AgentConfig", "TokenBudget", "select_model"]


def _models(value: Mapping[str, str]) -> PMap[str, str]:
    return value if isinstance(value, PMap) else pmap(dict(value))


@attrs.frozen(kw_only=True)
class TokenBudget:
    """Token limits for a whole run; ``None`` means no limit on that count.

    Example:
        >>> TokenBudget(total=100).exhausted_by(Usage(input_tokens=60, output_tokens=40))
        'total tokens 100 >= budget 100'
        >>> TokenBudget(total=100).exhausted_by(Usage(input_tokens=1)) is None
        True
    """

    input: int | None = None
    output: int | None = None
    total: int | None = None

    def exhausted_by(self, usage: Usage) -> str | None:
        """Say which limit ``usage`` has reached, or None if there is room for another call."""
        checks = (
            ("input tokens", usage.input_tokens, self.input),
            ("output tokens", usage.output_tokens, self.output),
            ("total tokens", usage.total_tokens, self.total),
        )
        for label, spent, limit in checks:
            if limit is not None and spent >= limit:
                return f"{label} {spent} >= budget {limit}"
        return None


@attrs.frozen(kw_only=True)
class AgentConfig:
    """Limits and knobs of one agent run (all defaults from the seed).

    ``models`` maps a task type to a model name ("default" is the fallback);
    ``approve_all_tools`` routes every tool call through WaitingForHuman;
    ``budget`` is copied into ``AgentMemory.budget`` when a memory is created;
    ``request_confidence`` asks the provider for logprobs, from which a reply's
    confidence is derived (otherwise replies carry confidence 1.0);
    ``max_output_retries`` bounds the corrections of a typed result (Correcting's budget).
    In a thread, ``budget`` limits each turn (a run) and ``thread`` the thread: the
    earlier turns a request carries (more are compressed when a turn starts) and the
    tokens every turn together may spend.

    Example:
        >>> c = AgentConfig()
        >>> c.max_steps, c.max_retries, c.confidence_threshold, c.reflect_every_n_steps, c.min_answer_length
        (15, 3, 0.4, 5, 20)
    """

    max_steps: int = 15
    max_retries: int = 3
    confidence_threshold: float = 0.4
    reflect_every_n_steps: int = 5
    min_answer_length: int = 20
    parallel_tools: bool = True
    models: PMap[str, str] = attrs.field(factory=pmap, converter=_models)
    approve_all_tools: bool = False
    budget: TokenBudget | None = None
    request_confidence: bool = False
    max_output_retries: int = 3
    thread: ThreadBudget = attrs.field(factory=ThreadBudget)

    def problems(self) -> list[str]:
        """Every limit out of range (a negative count, a threshold outside [0, 1]); empty when none is.

        Example:
            >>> AgentConfig(max_steps=-1, confidence_threshold=2.0).problems()[1]
            'config.confidence_threshold must be in [0, 1], got 2.0'
        """
        problems = []
        for name in ("max_steps", "max_retries", "reflect_every_n_steps", "min_answer_length"):
            if getattr(self, name) < 0:
                problems.append(f"config.{name} must be >= 0, got {getattr(self, name)}")
        if self.max_output_retries < 0:
            problems.append(f"config.max_output_retries must be >= 0, got {self.max_output_retries}")
        if not 0.0 <= self.confidence_threshold <= 1.0:
            problems.append(f"config.confidence_threshold must be in [0, 1], got {self.confidence_threshold}")
        return problems

    def with_model(self, task_type: str, model: str) -> AgentConfig:
        """A config that routes ``task_type`` to ``model``.

        Example:
            >>> AgentConfig().with_model("default", "gpt-4o").models["default"]
            'gpt-4o'
        """
        return attrs.evolve(self, models=self.models.set(task_type, model))


def select_model(config: AgentConfig, task_type: str) -> str:
    """The model for ``task_type``: exact match, then "default", then "" (provider default).

    Example:
        >>> c = AgentConfig(models={"default": "big", "calculation": "small"})
        >>> select_model(c, "calculation"), select_model(c, "research"), select_model(AgentConfig(), "x")
        ('small', 'big', '')
    """
    models = config.models
    if not models:  # the usual case: let the provider use its own default
        return ""
    return models.get(task_type) or models.get("default") or ""
