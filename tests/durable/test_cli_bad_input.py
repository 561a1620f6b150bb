"""``agentsm-runs`` on bad input: a clear message, the exit code the docs give, nothing changed or lost."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from contextlib import closing
from pathlib import Path

import pytest

from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.commands.runs._support import BadField, Exit, changed
from agentsm_fn.durable import RunRecord, RunStatus, SqliteStore, StoreFailure, open_store
from tests.durable.machines import DURABLE_ORDERS, Order
from tests.durable.stores import execute
from tests.durable.test_cli import cli

CORRUPT = bytes.fromhex("deadbeef00")
"""Not msgpack: an outcome that does not decode."""


@pytest.fixture
def db(store_db: str) -> str:
    """A store of each kind with a finished run (done-1) and one waiting for an approval (wait-1)."""
    store = open_store(store_db).unwrap()
    DURABLE_ORDERS.start(store, Order(items=2), run_id="done-1").unwrap()
    DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id="wait-1").unwrap()
    store.close()
    return store_db


def _record(db: str, run_id: str) -> RunRecord:
    store = open_store(db).unwrap()
    try:
        return store.get(run_id).unwrap()
    finally:
        store.close()


def _runs(db: str) -> tuple[RunRecord, ...]:
    store = open_store(db).unwrap()
    try:
        return store.runs().unwrap()
    finally:
        store.close()


def _tables(path: Path) -> list[str]:
    with closing(sqlite3.connect(path)) as db:  # sqlite3's own `with` commits, never closes
        return sorted(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))


def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    other = tmp_path / "app.db"
    with closing(sqlite3.connect(other)) as db, db:
        db.execute("CREATE TABLE users (id INTEGER, name TEXT)")
    mode = _journal_mode(other)
    code, out, err = cli("--db", str(other), "list")
    assert (code, out) == (int(Exit.STORE), "")
    assert "not a run store" in err and "users" in err
    opened = SqliteStore.open(other)
    assert isinstance(opened.failure(), StoreFailure)
    assert _tables(other) == ["users"]
    assert _journal_mode(other) == mode


def _journal_mode(path: Path) -> object:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("PRAGMA journal_mode").fetchone()


@pytest.mark.parametrize(
    "tables",
    [
        ["CREATE TABLE meta (name TEXT, value TEXT)"],  # a meta table of another shape
        # a meta table like the store's, with no schema row
        ["CREATE TABLE meta (key TEXT, value TEXT)", "INSERT INTO meta VALUES ('owner', 'app')"],
    ],
)
def test_another_programs_meta_table_does_not_make_a_store(tmp_path: Path, tables: list[str]) -> None:
    other = tmp_path / "app.db"
    with closing(sqlite3.connect(other)) as db, db:
        for statement in tables:
            db.execute(statement)
    code, out, err = cli("--db", str(other), "list")
    assert (code, out) == (int(Exit.STORE), "")
    assert "not a run store" in err and "meta" in err
    assert _tables(other) == ["meta"]


def test_an_empty_file_is_not_a_store_for_the_command_line(tmp_path: Path) -> None:
    empty = tmp_path / "runs.db"
    empty.touch()
    code, out, err = cli("--db", str(empty), "pending")
    assert (code, out) == (int(Exit.STORE), "")
    assert "not a run store" in err
    assert empty.stat().st_size == 0


def test_export_of_a_run_with_a_corrupt_outcome_exits_5_and_still_exports_the_journal(db: str) -> None:
    execute(db, "UPDATE journal SET outcome = ? WHERE run_id = 'done-1' AND seq = 1", (CORRUPT,))
    code, out, err = cli("--db", db, "export", "done-1")
    assert code == int(Exit.STORE)
    assert "run done-1, journal[1].outcome: corrupt" in err
    exported = json.loads(out)
    assert len(exported["journal"]) == 4 and exported["journal"][1]["outcome"] == "<undecodable>"
    assert cli("--db", db, "list", "--all")[1].count("done-1") == 1  # still there, still listed


def test_corrupt_clock_readings_are_stored_data_that_failed_and_the_run_is_kept(db: str) -> None:
    execute(db, "UPDATE journal SET ticks = ? WHERE run_id = 'wait-1' AND seq = 1", (b"\x02",))
    before = _record(db, "wait-1")
    for command in (["show", "wait-1"], ["replay", "wait-1"], ["replay", "wait-1", "--step", "3"]):
        code, _, err = cli("--db", db, *command)
        assert code == int(Exit.STORE), (command, err)
        assert "journal[1].ticks" in err and "corrupt" in err
    assert cli("--db", db, "resume", "wait-1")[0] == int(Exit.OK)  # from its checkpoint: it still waits
    after = _record(db, "wait-1")
    assert after.status is RunStatus.WAITING and after.steps == before.steps
    assert "wait-1" in cli("--db", db, "list")[1]


def test_reject_says_rejected(db: str) -> None:
    code, out, _ = cli("--db", db, "reject", "wait-1", "4")
    assert code == int(Exit.OK)
    assert "wait-1: entry 4 rejected" in out


def test_a_machine_given_with_machine_is_the_one_named_in_the_error(db: str) -> None:
    code, _, err = cli("--db", db, "resume", "wait-1", "--machine", "tests.durable.machines:ORDERS")
    assert code == int(Exit.NOT_FOUND)
    assert "tests.durable.machines:ORDERS is a Machine" in err


@pytest.mark.parametrize("command", [["replay", "done-1", "--step", "-1"], ["fork", "done-1", "-2"]])
def test_a_negative_step_is_a_usage_error(db: str, command: list[str]) -> None:
    code, out, err = cli("--db", db, *command)
    assert (code, out) == (int(Exit.USAGE), "")
    assert "not a step" in err


def test_check_reports_an_unreadable_run_as_stored_data_that_failed_not_as_a_divergence(db: str) -> None:
    execute(db, "UPDATE journal SET outcome = ? WHERE run_id = 'wait-1' AND seq = 1", (CORRUPT,))
    code, out, err = cli("--db", db, "check", "tests.durable.machines:DURABLE_ORDERS")
    assert code == int(Exit.STORE), (out, err)
    assert "wait-1 (waiting): UNREADABLE: " in out and "journal[1].outcome" in out
    assert "DIVERGES" not in out
    assert "1 unfinished run(s) of tests.durable.machines:DURABLE_ORDERS, 0 would diverge, 1 could not" in out
    assert "wait-1" in cli("--db", db, "list")[1]  # still stored, still listed


def test_a_corrupt_waiting_entry_names_its_run_when_pending_is_listed(db: str) -> None:
    execute(db, "UPDATE journal SET ticks = ? WHERE run_id = 'wait-1' AND seq = 4", (b"\x02",))  # it waits
    code, out, err = cli("--db", db, "pending")
    assert (code, out) == (int(Exit.STORE), "")
    assert "run wait-1, journal[" in err and "].ticks: corrupt" in err


def test_list_marks_a_running_run_whose_process_is_gone(db: str) -> None:
    host = socket.gethostname()
    future = time.time() + 3600
    alive, gone = f"{host}:{os.getpid()}", f"{host}:{2**22 + 12345}"  # above any Linux pid_max
    execute(db, "UPDATE runs SET status = 'running', owner = ?, lease_until = ?", (alive, future))
    code, out, _ = cli("--db", db, "list")
    assert code == 0 and "running*" not in out and "stopped mid-way" not in out  # this process holds them
    execute(db, "UPDATE runs SET owner = ? WHERE id = 'wait-1'", (gone,))
    code, out, _ = cli("--db", db, "list")
    marked = [line.split()[0] for line in out.splitlines() if "running*" in line]
    assert code == 0 and marked == ["wait-1"]
    assert "* 1 run(s) stopped mid-way" in out and "recover MACHINE" in out


def test_fork_set_on_a_field_whose_nested_annotations_cannot_be_resolved_is_no_crash() -> None:
    """A ReAct memory's ToolCall names a type only for type checking: the value goes in as given."""
    memory = AgentMemory(task="t")
    forked = changed(memory, {"pending_tool_calls": [], "refused_tools": ["web"], "step": 3})
    assert (forked.pending_tool_calls, forked.refused_tools, forked.step) == ((), ("web",), 3)
    with pytest.raises(BadField, match=r"--set step: Expected `int`, got `str`"):
        changed(memory, {"pending_tool_calls": [], "step": "3"})
    # the items' class cannot be checked, the outer shape still is: an array for a tuple or a vector
    with pytest.raises(BadField, match=r"--set pending_tool_calls: Expected `array`, got `str`"):
        changed(memory, {"pending_tool_calls": "none"})
    with pytest.raises(BadField, match=r"--set history: Expected `array`, got `object`"):
        changed(memory, {"history": {}})


def test_replay_past_the_last_step_says_where_the_run_ends(db: str) -> None:
    code, out, _ = cli("--db", db, "replay", "done-1", "--step", "99")
    steps = _record(db, "done-1").steps
    assert code == int(Exit.OK)
    assert f"after {steps} steps (there is no step 99: the stored run reaches step {steps})" in out
    code, out, _ = cli("--db", db, "replay", "done-1", "--step", str(steps))
    assert code == int(Exit.OK) and "there is no step" not in out


def test_fork_past_the_last_step_is_not_found_and_starts_nothing(db: str) -> None:
    before = _runs(db)
    steps = _record(db, "done-1").steps
    code, out, err = cli("--db", db, "fork", "done-1", "99")
    assert (code, out) == (int(Exit.NOT_FOUND), "")
    assert f"run done-1 has no step 99: its journal reaches step {steps}" in err
    assert _runs(db) == before
