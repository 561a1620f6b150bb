"""A performer's exception that carries a secret: the secret reaches neither the store nor the machine."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.core import SUSPEND, EffectFailure
from agentsm_fn.durable import Durable, RunStatus, RunStore, is_postgres, open_store
from agentsm_fn.shell import Performers, Shell, StepClock, redact_credentials, run
from tests.durable.machines import ORDERS, ORDERS_V2, AskApproval, Charge, Lookup, Order
from tests.durable.stores import execute

KEY = "pay-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
TOKEN = "sk-live-51HqLyjWDarjtT1zdp7dc0123456789"


def _refuse(effect: Charge) -> str:
    raise RuntimeError(f"card API said 401 for key {KEY} (Authorization: Bearer {TOKEN})")


def _shell() -> Shell:
    performers = Performers().on(Lookup, lambda e: 10).on(Charge, _refuse).on(AskApproval, lambda e: SUSPEND)
    return Shell(performers, StepClock(start=1.0))


LEAKY = Durable(name="tests.durable.test_no_secrets_stored:LEAKY", machine=ORDERS, shell=_shell)


def _stored_bytes(db: str) -> bytes:
    """Every byte the store keeps: the SQLite files (log included), or every table's rows in PostgreSQL."""
    if not is_postgres(db):
        return b"".join(p.read_bytes() for p in Path(db).parent.iterdir() if p.name.startswith("runs.db"))
    tables = (
        "runs",
        "journal",
        "checkpoints",
        "trace_contexts",
        "experiments",
        "experiment_runs",
        "threads",
        "thread_turns",
        "turn_holders",
        "children",
    )
    rows = [row for table in tables for row in execute(db, f"SELECT * FROM {table}")]
    return b"".join(v if isinstance(v, bytes) else str(v).encode() for row in rows for v in row)


def test_a_raising_performer_stores_no_secret_from_the_environment_or_its_message(
    store_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    store = open_store(store_db).unwrap()
    done = LEAKY.start(store, Order(items=1), run_id="o-1").unwrap()
    assert done.finished  # the charge failed: the machine took its failure route
    rows = store.journal("o-1").unwrap()
    store.close()
    stored = _stored_bytes(store_db)
    assert KEY.encode() not in stored and TOKEN.encode() not in stored
    assert b"RuntimeError: card API said 401" in stored  # the failure itself is kept
    assert rows[-1].outcome is not None


def test_a_run_stopped_by_a_raising_performer_keeps_no_secret_in_its_reason(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENTS_TOKEN", KEY)
    no_route = Durable(name=LEAKY.name, machine=ORDERS_V2, shell=_shell)  # no failure route
    no_route.start(store, Order(items=1), run_id="o-1")
    record = store.get("o-1").unwrap()
    assert record.status is RunStatus.FAILED
    reason = record.reason
    assert "RuntimeError" in reason
    assert KEY not in reason and TOKEN not in reason


@given(st.text(max_size=60))
def test_redacting_removes_every_occurrence_of_a_known_token(text: str) -> None:
    out = redact_credentials(f"{text} Bearer {TOKEN} {text}")
    assert TOKEN not in out
    assert redact_credentials(out) == out


def test_a_durable_and_an_in_memory_run_deliver_the_identical_failure(
    store: RunStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PAYMENTS_API_KEY", KEY)
    in_memory = run(ORDERS, Order(items=1), _shell()).unwrap()
    durable = LEAKY.start(store, Order(items=1), run_id="o-1").unwrap().snapshot
    failure = in_memory.journal.outcomes[-1]
    assert isinstance(failure, EffectFailure) and KEY not in failure.detail and TOKEN not in failure.detail
    assert durable.journal.outcomes[-1] == failure
    assert (durable.state, durable.memory) == (in_memory.state, in_memory.memory)
