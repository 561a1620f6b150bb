"""Real python-statemachine and transitions machines for the verifier's tests: sound ones and defects.

python-statemachine refuses some defects when a class is created; the defective
classes switch that validation off (``validate_* = False``), as a user may, so the
verifier is what finds them.
"""

from __future__ import annotations

from statemachine import State, StateMachine
from transitions import Machine


class Order(StateMachine):
    """Sound: every state can reach a final state."""

    placed = State(initial=True)
    paid = State()
    shipped = State(final=True)
    cancelled = State(final=True)

    pay = placed.to(paid)
    ship = paid.to(shipped)
    cancel = placed.to(cancelled) | paid.to(cancelled)


class OrderWithLostState(StateMachine):
    """SM002: refunded has no transition into it."""

    validate_disconnected_states = False

    placed = State(initial=True)
    shipped = State(final=True)
    refunded = State(final=True)

    ship = placed.to(shipped)


class OrderStuckInReview(StateMachine):
    """SM004: review has no way out and is not final."""

    validate_trap_states = False
    validate_final_reachability = False

    placed = State(initial=True)
    review = State()
    shipped = State(final=True)

    ship = placed.to(shipped)
    check = placed.to(review)


class OrderRetryingForever(StateMachine):
    """SM005: once payment fails, failing and retrying alternate forever."""

    validate_final_reachability = False

    placed = State(initial=True)
    failing = State()
    retrying = State()
    shipped = State(final=True)

    ship = placed.to(shipped)
    fail = placed.to(failing) | retrying.to(failing)
    retry = failing.to(retrying)


class TrafficLight(StateMachine):
    """SM005 (python-statemachine does not check it when no state is final): it cycles for ever."""

    green = State(initial=True)
    yellow = State()
    red = State()

    cycle = green.to(yellow) | yellow.to(red) | red.to(green)


STATES = ["solid", "liquid", "gas", {"name": "plasma", "final": True}]

MATTER = Machine(
    states=STATES,
    initial="solid",
    transitions=[
        ["melt", "solid", "liquid"],
        ["evaporate", "liquid", "gas"],
        ["ionize", "gas", "plasma"],
        ["freeze", "liquid", "solid"],
    ],
)
"""Sound: every state can reach plasma (and the automatic to_<state> triggers are not routes)."""

MATTER_WITH_LOST_STATE = Machine(
    states=[*STATES, "crystal"],
    initial="solid",
    transitions=[["melt", "solid", "liquid"], ["evaporate", "liquid", "gas"], ["ionize", "gas", "plasma"]],
)
"""SM002: nothing leads to crystal."""

MATTER_STUCK = Machine(
    states=STATES,
    initial="solid",
    transitions=[
        ["melt", "solid", "liquid"],
        ["evaporate", "liquid", "gas"],
        ["condense", "solid", "plasma"],
    ],
)
"""SM004: gas has no way out and is not final (plasma is)."""

MATTER_LOOPING = Machine(
    states=STATES,
    initial="solid",
    transitions=[
        ["melt", "solid", "liquid"],
        ["boil", "liquid", "gas"],
        ["condense", "gas", "liquid"],
        ["zap", "solid", "plasma"],
    ],
)
"""SM005: liquid and gas alternate forever; only solid reaches plasma."""
