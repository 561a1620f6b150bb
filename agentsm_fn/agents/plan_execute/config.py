"""Configuration as data: everything the handlers need, stored in memory so they stay pure.

The planner must have a JSON Schema and a prompt template (the seed's guard
"planner must have schema and prompt_builder"); both are checked when the config
is built, and every problem is reported in one :class:`PlanExecuteConfigError`.
"""

from __future__ import annotations

import enum
import string
from collections.abc import Iterable

import attrs
import jsonschema
from jsonschema.exceptions import SchemaError

from agentsm_fn.agents.plan_execute.policy import PlanExecutePolicy
from agentsm_fn.agents.plan_execute.step_values import StepAgent, step_agent_problems, step_agents
from agentsm_fn.llm.conversation import ThreadBudget
from agentsm_fn.llm.json import JsonObject, freeze_object, thaw
from agentsm_fn.llm.messages import ToolSpec

__all__ = [
    "DECISION_SCHEMA",
    "DEFAULT_DECIDE_PROMPT",
    "DEFAULT_EXECUTOR_PROMPT",
    "DEFAULT_PLAN_PROMPT",
    "DEFAULT_PLAN_SCHEMA",
    "DEFAULT_SUMMARY_PROMPT",
    "DecideMode",
    "DeciderConfig",
    "ExecutorConfig",
    "FinalizerConfig",
    "PlanExecuteConfig",
    "PlanExecuteConfigError",
    "PlannerConfig",
    "template_fields",
]

DEFAULT_PLAN_SCHEMA: JsonObject = freeze_object(
    {
        "type": "object",
        "required": ["goal"],
        "properties": {
            "goal": {"type": "string"},
            "required_capabilities": {"type": "array", "items": {"type": "string"}},
            "initial_steps": {"type": "array", "items": {"type": "string"}},
        },
        "additionalProperties": False,
    }
)
"""The seed's planner schema."""

DEFAULT_PLAN_PROMPT = (
    "Create a plan for: {input}\n"
    "Context: {state}\n"
    "Answer with one JSON object with the keys goal, required_capabilities and initial_steps."
)
"""The seed's prompt builder as a template: ``{input}`` and ``{state}`` (JSON) are filled in."""

DECISION_SCHEMA: JsonObject = freeze_object(
    {
        "type": "object",
        "required": ["continue", "reason"],
        "properties": {"continue": {"type": "boolean"}, "reason": {"type": "string", "minLength": 1}},
        "additionalProperties": False,
    }
)
"""The structured output of an LLM-based DECIDE (the seed's ``{continue, reason}``)."""

DEFAULT_DECIDE_PROMPT = (
    "Task: {input}\n"
    "Plan: {plan}\n"
    "Should the agent execute this plan with its tools (continue: true), or is there nothing "
    "to do (continue: false)? Answer with one JSON object with the keys continue and reason."
)
"""Template for an LLM-based DECIDE: ``{input}`` and ``{plan}`` (JSON) are filled in."""

DEFAULT_EXECUTOR_PROMPT = (
    "You carry out a plan step by step. Goal: {goal}\n"
    "Plan steps:\n{steps}\n"
    "Call tools when you need facts or actions; when you have everything, answer the user "
    "directly without calling a tool."
)
"""The system prompt of EXECUTE: ``{goal}`` and ``{steps}`` (one per line) are filled in."""

DEFAULT_SUMMARY_PROMPT = "Summarize the result of the work above for the user in a few sentences."
"""The instruction FINALIZE's optional summary call ends with."""


class PlanExecuteConfigError(ValueError):
    """A configuration that cannot work; lists every problem (a programmer error at construction)."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        listing = "\n".join(f"  - {p}" for p in self.problems)
        super().__init__(f"invalid plan-and-execute configuration:\n{listing}")


def template_fields(template: str) -> frozenset[str]:
    """The ``{field}`` names a template uses; raises ``ValueError`` for unbalanced braces.

    Example:
        >>> sorted(template_fields("Plan {input} with {state}; {{literal}}"))
        ['input', 'state']
    """
    return frozenset(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def _template_problems(label: str, template: str, allowed: frozenset[str], required: str) -> list[str]:
    try:
        fields = template_fields(template)
    except ValueError as exc:
        return [f"{label}: {exc} (write literal braces as {{{{ and }}}})"]
    problems = []
    unknown = sorted(fields - allowed)
    if unknown:
        problems.append(f"{label}: unknown placeholders {unknown}; use only {sorted(allowed)}")
    if required and required not in fields:
        problems.append(f"{label}: must contain the {{{required}}} placeholder")
    return problems


def _schema_problems(label: str, schema: JsonObject) -> list[str]:
    plain = thaw(schema)
    if not isinstance(plain, dict) or not plain:
        return [f"{label}: the planner must have a non-empty JSON Schema"]
    try:
        jsonschema.validators.validator_for(plain).check_schema(plain)
    except SchemaError as exc:
        return [f"{label}: not a valid JSON Schema: {exc.message}"]
    return []


def _object(value: object) -> JsonObject:
    return freeze_object(value)


@attrs.frozen(kw_only=True)
class PlannerConfig:
    r"""PLAN's single structured call: the JSON Schema of a plan and the prompt template.

    Example:
        >>> PlannerConfig().schema["required"][0]
        'goal'
        >>> try:
        ...     PlannerConfig(prompt_template="Plan {goal}")
        ... except PlanExecuteConfigError as exc:
        ...     print(*exc.problems, sep="\n")
        planner prompt_template: unknown placeholders ['goal']; use only ['input', 'state']
        planner prompt_template: must contain the {input} placeholder
    """

    schema: JsonObject = attrs.field(default=DEFAULT_PLAN_SCHEMA, converter=_object)
    prompt_template: str = DEFAULT_PLAN_PROMPT
    model: str = ""
    """"" uses ``PlanExecuteConfig.model``."""
    temperature: float | None = None

    def __attrs_post_init__(self) -> None:
        problems = _schema_problems("planner schema", self.schema)
        problems += _template_problems(
            "planner prompt_template", self.prompt_template, frozenset({"input", "state"}), "input"
        )
        if problems:
            raise PlanExecuteConfigError(problems)


class DecideMode(enum.Enum):
    """How DECIDE decides: by rules in code (the default) or with one structured LLM call.

    Example:
        >>> DecideMode("llm")
        <DecideMode.LLM: 'llm'>
    """

    RULES = "rules"
    LLM = "llm"


@attrs.frozen(kw_only=True)
class DeciderConfig:
    """DECIDE: rule-based (plan has steps -> continue, empty plan -> stop) or LLM-based.

    Example:
        >>> DeciderConfig().mode
        <DecideMode.RULES: 'rules'>
    """

    mode: DecideMode = DecideMode.RULES
    prompt_template: str = DEFAULT_DECIDE_PROMPT
    model: str = ""

    def __attrs_post_init__(self) -> None:
        problems = _template_problems(
            "decider prompt_template", self.prompt_template, frozenset({"input", "plan"}), ""
        )
        if problems:
            raise PlanExecuteConfigError(problems)


@attrs.frozen(kw_only=True)
class ExecutorConfig:
    """EXECUTE's chat call: system prompt template (``{goal}``, ``{steps}``) and sampling.

    Example:
        >>> ExecutorConfig(max_tokens=512).max_tokens
        512
    """

    system_prompt: str = DEFAULT_EXECUTOR_PROMPT
    model: str = ""
    temperature: float | None = None
    max_tokens: int | None = None

    def __attrs_post_init__(self) -> None:
        problems = _template_problems(
            "executor system_prompt", self.system_prompt, frozenset({"goal", "steps"}), ""
        )
        if problems:
            raise PlanExecuteConfigError(problems)


@attrs.frozen(kw_only=True)
class FinalizerConfig:
    """FINALIZE's optional summary call (no tools, no retries); off by default.

    Example:
        >>> FinalizerConfig(summarize=True).prompt == DEFAULT_SUMMARY_PROMPT
        True
    """

    summarize: bool = False
    prompt: str = DEFAULT_SUMMARY_PROMPT
    model: str = ""
    max_output_retries: int = 3
    """With a typed result: how many times CORRECTING sends an invalid final answer back."""


def _specs(value: Iterable[ToolSpec]) -> tuple[ToolSpec, ...]:
    return tuple(value)


def _names(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


@attrs.frozen(kw_only=True)
class PlanExecuteConfig:
    """Everything the handlers read: stage configs, policy, tool specs, finish tools.

    ``finish_tools`` name tools whose call ends the loop (LOOP_CHECK -> stop) with
    the tool's result as the final content. ``retry_safe_tools`` name tools that are
    harmless to call twice (``ToolDef.retry_safe``): a batch of only those is retry-safe.

    Example:
        >>> PlanExecuteConfig(model="llama3.1").model_for("")
        'llama3.1'
    """

    planner: PlannerConfig = attrs.field(factory=PlannerConfig)
    decider: DeciderConfig = attrs.field(factory=DeciderConfig)
    executor: ExecutorConfig = attrs.field(factory=ExecutorConfig)
    finalizer: FinalizerConfig = attrs.field(factory=FinalizerConfig)
    policy: PlanExecutePolicy = attrs.field(factory=PlanExecutePolicy)
    tools: tuple[ToolSpec, ...] = attrs.field(default=(), converter=_specs)
    finish_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    model: str = ""
    """The default model of every stage ("" lets the provider choose)."""
    retry_safe_tools: frozenset[str] = attrs.field(default=frozenset(), converter=_names)
    thread: ThreadBudget = attrs.field(factory=ThreadBudget)
    """In a thread: the earlier turns the planner is sent (more are compressed at INTAKE); the total."""
    step_agents: tuple[StepAgent, ...] = attrs.field(default=(), converter=step_agents)
    """Durable agents a plan step may name, each run as a child run (docs/plan-execute.md)."""

    def __attrs_post_init__(self) -> None:
        names = [spec.name for spec in self.tools]
        problems = [f"tool {n!r} is declared twice" for n in sorted({n for n in names if names.count(n) > 1})]
        problems += [
            f"finish tool {n!r} is not a declared tool" for n in sorted(self.finish_tools - set(names))
        ]
        problems += step_agent_problems(self.step_agents, names)
        if problems:
            raise PlanExecuteConfigError(problems)

    def model_for(self, stage_model: str) -> str:
        """The stage's model, or the default one."""
        return stage_model or self.model

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The declared tools' names, in order."""
        return tuple(spec.name for spec in self.tools)

    @property
    def visible_tools(self) -> tuple[ToolSpec, ...]:
        """The tools the policy lets the model see (forbidden ones are never offered)."""
        return tuple(spec for spec in self.tools if self.policy.permits(spec.name))
