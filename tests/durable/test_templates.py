"""A Durable's template is a memory of its machine, or the Durable is refused where it is made."""

from __future__ import annotations

import attrs
import pytest

from agentsm_fn.agents.react import REACT_MACHINE, AgentMemory
from agentsm_fn.durable import Durable, TemplateMismatch
from agentsm_fn.durable.running.templates import memory_type, template_mismatch
from tests.durable.machines import DURABLE_ORDERS, ORDERS, Order


def test_a_template_of_another_class_is_refused_naming_both_classes() -> None:
    with pytest.raises(TemplateMismatch) as raised:
        Durable(name="app:ORDERS", machine=ORDERS, template=AgentMemory.new("hi"))  # type: ignore[misc]  # mypy sees it too; checked at run time here
    error = raised.value
    assert isinstance(error, TypeError)
    assert (error.name, error.expected, error.given) == ("app:ORDERS", Order, AgentMemory)
    assert "tests.durable.machines:Order" in str(error)
    assert "agentsm_fn.agents.react.memory:AgentMemory" in str(error)


def test_a_changed_durable_is_checked_again() -> None:
    with pytest.raises(TemplateMismatch):
        attrs.evolve(DURABLE_ORDERS, template={"items": 2})  # type: ignore[arg-type]  # as above


def test_a_template_of_the_machines_memory_class_or_none_is_taken() -> None:
    template = Order(items=2)
    assert Durable(name="app:ORDERS", machine=ORDERS, template=template).template is template
    assert Durable(name="app:ORDERS", machine=ORDERS).template is None
    agent = AgentMemory.new("hi")
    assert Durable(name="app:AGENT", machine=REACT_MACHINE, template=agent).template is agent


def test_the_check_reads_the_memory_class_the_server_converts_json_by() -> None:
    assert memory_type(ORDERS) is Order
    mismatch = template_mismatch("app:ORDERS", ORDERS, "an order")
    assert mismatch is not None and (mismatch.expected, mismatch.given) == (Order, str)
