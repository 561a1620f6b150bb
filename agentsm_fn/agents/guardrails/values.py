"""What a guardrail check leaves in memory: its action on a trip, the trip, and the check itself.

These are plain frozen values: a machine's memory keeps every :class:`GuardrailCheck` (so a
stored run keeps them and replays them, the inspector and the narrator read them), and a
tripped check carries its :class:`Trip`, whose :class:`OnTrip` says where the run goes.
"""

from __future__ import annotations

import enum

import attrs

__all__ = ["GuardrailCheck", "GuardrailSpec", "OnTrip", "Trip", "VisitOutcome"]


class OnTrip(enum.Enum):
    """What a tripped guardrail does: each is an event of the guarding state, with its own row.

    * ``REFUSE``: refuse with the guardrail's message (a run, or one tool call, is refused);
    * ``ASK_HUMAN``: a human decides (the machine's approval path); approved, the checks go
      on; rejected, it refuses;
    * ``STOP``: stop the run in its failure state.
    """

    REFUSE = "refuse"
    ASK_HUMAN = "ask_human"
    STOP = "stop"


@attrs.frozen(kw_only=True)
class Trip:
    """A tripped guardrail: which, where, what it does, why (``reason``), what the user is told (``message``).

    Example:
        >>> trip = Trip(guardrail="own-invoices", stage="input", on_trip=OnTrip.REFUSE,
        ...             reason="asks for ACME's invoices", message="I can only show your own invoices.")
        >>> trip.describe()
        "guardrail own-invoices (input) tripped: asks for ACME's invoices"
    """

    guardrail: str
    stage: str
    on_trip: OnTrip
    reason: str
    message: str
    subject: int = 0
    """Which of the stage's subjects tripped it (a tool call's index in its turn; 0 when there is one)."""

    def describe(self) -> str:
        """One line: the guardrail, its stage and the reason (for a failure's message and the trace)."""
        return f"guardrail {self.guardrail} ({self.stage}) tripped: {self.reason}"


@attrs.frozen(kw_only=True)
class GuardrailCheck:
    """One guardrail checked on one subject at one visit of a guarding state, and how it went.

    ``at`` names the visit (the ReAct agent's step); ``trip`` is None when it passed;
    ``review`` is a human's decision on an ``ASK_HUMAN`` trip (None until there is one),
    with the reviewer's ``note``.

    Example:
        >>> GuardrailCheck(guardrail="pii", stage="output", at=3).passed
        True
        >>> trip = Trip(guardrail="pii", stage="output", on_trip=OnTrip.ASK_HUMAN,
        ...             reason="an email", message="")
        >>> checked = GuardrailCheck(guardrail="pii", stage="output", at=3, trip=trip)
        >>> checked.passed, attrs.evolve(checked, review=True).passed
        (False, True)
    """

    guardrail: str
    stage: str
    at: int
    subject: int = 0
    trip: Trip | None = None
    review: bool | None = None
    note: str = ""

    @property
    def passed(self) -> bool:
        """It did not trip, or a human approved its trip."""
        return self.trip is None or self.review is True


@attrs.frozen(kw_only=True)
class GuardrailSpec:
    """An LLM guardrail as data: what a memory keeps of one made by ``llm_guardrail`` (its code is fixed).

    ``stage`` names where it checks (the agent's: ``input``, ``output``, ``tool_call``);
    ``instructions`` state the rule the model judges by.

    Example:
        >>> spec = GuardrailSpec(name="polite", stage="input", instructions="Be polite.")
        >>> spec.on_trip.value, spec.model
        ('refuse', '')
    """

    name: str
    stage: str = ""
    instructions: str
    model: str = ""
    on_trip: OnTrip = OnTrip.REFUSE
    message: str = ""


@attrs.frozen(kw_only=True)
class VisitOutcome:
    """What one visit of a guarding state did, as a row leaving it shows: for traces, spans and pages.

    ``outcome`` is ``passed`` or the action taken (``refuse``, ``ask_human``, ``stop``);
    ``checked`` the guardrails checked in the visit, in order; ``tripped`` and ``reason`` the
    trip's, when one tripped.

    Example:
        >>> VisitOutcome(stage="input", outcome="passed", checked=("pii",)).label()
        'guardrails (input) passed: pii'
        >>> VisitOutcome(stage="input", outcome="stop", checked=("pii",), tripped="pii",
        ...              reason="an email").label()
        'guardrail pii (input) tripped: stop (an email)'
    """

    stage: str
    outcome: str
    checked: tuple[str, ...] = ()
    tripped: str | None = None
    reason: str = ""

    def label(self) -> str:
        """One line saying it."""
        if self.tripped is None:
            return f"guardrails ({self.stage}) {self.outcome}: " + ", ".join(self.checked)
        return f"guardrail {self.tripped} ({self.stage}) tripped: {self.outcome} ({self.reason})"
