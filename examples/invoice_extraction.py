"""Invoice extraction: a ReAct agent whose result is an attrs ``Invoice``, checked by an output validator.

The agent looks the order up with a tool, then answers with the invoice as JSON (asked of the
provider the way it does best: docs/results.md). Its value is an ``Invoice`` for ``mypy --strict``
(``assert_type`` below, no cast). An output validator checks that the total is the sum of the
lines: the scripted model first gets the total wrong, the problem goes back to it, and its second
reply is the run's result. An input guardrail refuses a request for another customer's invoices
(a pure check of the task, a row of the machine's table: no model is asked, the run ends in
Refused with the guardrail's message). Runs offline with a scripted LLM by default; with
OPENAI_API_KEY, ANTHROPIC_API_KEY or OLLAMA_HOST in the environment it asks that provider
(``--offline`` forces the script).

    python examples/invoice_extraction.py
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from typing import assert_type

import attrs
from _common import choose_llm
from returns.result import Failure, Result, Success

from agentsm_fn.agents.guardrails import Guardrail, guardrail
from agentsm_fn.agents.react import GuardrailTripped, ReactCompleted
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool

TASK = "Extract the invoice of order 7 for customer ada@example.com."
SIGNED_IN = "ada@example.com"
"""The customer asking (an application would take it from its session)."""
OTHERS = "Extract the invoice of order 9 for customer bob@example.com."

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


@attrs.frozen(kw_only=True)
class Line:
    """One line of an invoice.

    Attributes:
        item: What was bought.
        quantity: How many.
        unit_price: The price of one, in the invoice's currency.
    """

    item: str
    quantity: int
    unit_price: float


@attrs.frozen(kw_only=True)
class Invoice:
    """An invoice, as the order system keeps it.

    Attributes:
        number: The invoice number.
        customer: The customer's email address.
        currency: ISO 4217 code.
        lines: Every line of the invoice.
        total: The sum of the lines.
    """

    number: str
    customer: str
    currency: str
    lines: tuple[Line, ...]
    total: float


def totals_match(invoice: Invoice) -> Result[Invoice, str]:
    """The output validator: the total must be the sum of the lines (pure: value -> Result)."""
    lines = round(sum(line.quantity * line.unit_price for line in invoice.lines), 2)
    if abs(lines - invoice.total) > 0.005:
        return Failure(f"the total {invoice.total} is not the sum of the lines ({lines})")
    return Success(invoice)


def only_your_own(task: str) -> str | None:
    """The input guardrail's check: every customer the request names is the one signed in (pure)."""
    others = sorted({email for email in _EMAIL.findall(task) if email.lower() != SIGNED_IN})
    return f"asks for the invoices of {', '.join(others)}" if others else None


OWN_INVOICES: Guardrail[str] = guardrail(
    "own-invoices", only_your_own, message="I can only show you your own invoices."
)


@tool
def order_lookup(order: str) -> str:
    """Look an order up in the order system.

    Args:
        order: The order number.
    """
    return (
        f"order {order}: invoice INV-2024-07, ada@example.com, 2 x pen at 1.50 EUR, 1 x notebook at 4.20 EUR"
    )


def _invoice(total: float) -> str:
    lines = [
        {"item": "pen", "quantity": 2, "unit_price": 1.5},
        {"item": "notebook", "quantity": 1, "unit_price": 4.2},
    ]
    number, customer = "INV-2024-07", "ada@example.com"
    return json.dumps(
        {"number": number, "customer": customer, "currency": "EUR", "lines": lines, "total": total}
    )


def scripted() -> ScriptedLlm:
    """What a model would answer: a lookup, an invoice whose total is wrong, then the right one."""
    return ScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall("call_1", "order_lookup", {"order": "7"}),)),
            LlmReply(content=_invoice(total=7.5)),
            LlmReply(content=_invoice(total=7.2)),
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    llm = choose_llm("--offline" in args, scripted)
    builder = (
        AgentBuilder.new(TASK)
        .result_type(Invoice)
        .validate_result(totals_match)
        .guard_input(OWN_INVOICES)
        .tools(order_lookup)
        .llm(llm.provider)
    )
    print(f"LLM: {llm.name}")
    refused = builder.task(OTHERS).build().unwrap().run().failure()  # no model is asked
    if isinstance(refused, GuardrailTripped):
        print(f"{OTHERS!r} -> refused: {refused.message} ({refused.trip.reason})")
    agent = builder.build().unwrap()
    result = agent.run()
    done = result.value_or(None)  # ReactCompleted[Invoice] | Suspended | None
    if isinstance(done, ReactCompleted):
        invoice = done.result
        assert_type(invoice, Invoice)  # mypy --strict knows it: no cast, no parsing
        print(f"invoice {invoice.number} for {invoice.customer}: {invoice.total:.2f} {invoice.currency}")
        for line in invoice.lines:
            print(f"  {line.quantity} x {line.item} at {line.unit_price:.2f}")
        print(f"corrections sent back: {done.memory.output_retries}")
        for rejected in done.memory.rejected_outputs:
            print(f"  step {rejected.step}: {rejected.describe()}")
        print(done.trace.render(width=140))
        return 0
    if done is not None:
        print(f"the run paused unexpectedly: {done!r}", file=sys.stderr)
    else:
        print(f"the run failed: {result.failure().describe()}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
