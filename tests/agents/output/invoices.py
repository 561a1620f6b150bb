"""Result classes the typed-result tests share: a flat one, one nested three levels deep, a TypedDict."""

from __future__ import annotations

from typing import NotRequired, TypedDict

import attrs
from returns.result import Failure, Result, Success


@attrs.frozen(kw_only=True)
class Verdict:
    """Whether a claim holds (a flat result).

    Attributes:
        holds: True when the claim is right.
        reason: Why, in one sentence.
    """

    holds: bool
    reason: str
    confidence: float = 1.0


@attrs.frozen(kw_only=True)
class Money:
    """An amount in a currency."""

    amount: float
    currency: str


@attrs.frozen(kw_only=True)
class Line:
    """One invoice line."""

    sku: str
    quantity: int
    price: Money


@attrs.frozen(kw_only=True)
class Invoice:
    """An invoice: three levels deep (Invoice, Line, Money).

    Attributes:
        number: The invoice number.
        lines: Every line of the invoice.
        total: The sum of the lines.
    """

    number: str
    lines: tuple[Line, ...]
    total: Money
    note: str | None = None


class Ticket(TypedDict):
    """A support ticket's triage."""

    category: str
    urgent: bool
    tags: NotRequired[list[str]]


def totals_match(invoice: Invoice) -> Result[Invoice, str]:
    """An output validator: the total is the sum of the lines."""
    lines = sum(line.quantity * line.price.amount for line in invoice.lines)
    if abs(lines - invoice.total.amount) > 0.005:
        return Failure(f"total {invoice.total.amount} is not the sum of the lines ({lines})")
    return Success(invoice)


INVOICE_JSON = (
    '{"number": "INV-7", "lines": [{"sku": "pen", "quantity": 2, '
    '"price": {"amount": 1.5, "currency": "EUR"}}], "total": {"amount": 3.0, "currency": "EUR"}}'
)
"""A valid invoice (its totals match)."""

INVOICE = Invoice(
    number="INV-7",
    lines=(Line(sku="pen", quantity=2, price=Money(amount=1.5, currency="EUR")),),
    total=Money(amount=3.0, currency="EUR"),
)
""":data:`INVOICE_JSON` as the value."""
