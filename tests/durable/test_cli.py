"""``agentsm-runs``: every command on each real store, in a subprocess where another process matters."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from pyrsistent import PVector

from agentsm_fn.commands.runs._support import Exit
from agentsm_fn.commands.runs.commands import main
from agentsm_fn.durable import is_postgres, open_store
from agentsm_fn.durable.running.replay import replay_stored
from tests.durable.machines import DURABLE_ORDERS, Order
from tests.durable.stores import execute

ROOT = Path(__file__).resolve().parents[2]
NAME = DURABLE_ORDERS.name


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse: --help, bad usage
            code = int(exit_.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def db(store_db: str) -> str:
    """A new, empty store of each kind (a SQLite file, a PostgreSQL database): what --db is given."""
    open_store(store_db).unwrap().close()
    return store_db


def test_a_store_that_does_not_exist_is_an_error_and_is_not_created(tmp_path: Path) -> None:
    missing = tmp_path / "runs.db"
    code, out, err = cli("--db", str(missing), "list")
    assert (code, out) == (int(Exit.STORE), "")
    assert f"no store at {missing}" in err and f"create it with `agentsm-runs --db {missing} init`" in err
    assert not missing.exists()


def tables(db: str) -> list[str]:
    """The tables of ``db`` (a SQLite file or the PostgreSQL database's current schema), sorted."""
    sql = (
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1"
        if is_postgres(db)
        else "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY 1"
    )
    return [str(name) for (name,) in execute(db, sql)]


def test_init_creates_an_empty_store_and_leaves_a_store_as_it_was(store_db: str) -> None:
    code, out, err = cli("--db", store_db, "init")
    assert (code, err) == (0, "") and out.endswith(": an empty run store created\n")
    assert {"runs", "journal", "meta"} <= set(tables(store_db))
    assert cli("--db", store_db, "list")[0] == 0
    run_id = waiting(store_db)
    code, out, err = cli("--db", store_db, "init")
    assert (code, err) == (0, "") and out.endswith(": a run store already, left as it was\n")
    store = open_store(store_db, create=False).unwrap()
    assert [record.run_id for record in store.runs().unwrap()] == [run_id]
    store.close()


def test_init_names_a_postgresql_database_without_its_password(postgres_url: str) -> None:
    password = urlsplit(postgres_url).password
    assert password
    code, out, err = cli("--db", postgres_url, "init")
    assert code == 0 and "postgresql://" in out and password not in out + err


def test_init_refuses_another_programs_database_and_changes_nothing(store_db: str) -> None:
    execute(store_db, "CREATE TABLE notes (body text)")
    execute(store_db, "INSERT INTO notes VALUES ('keep me')")
    code, out, err = cli("--db", store_db, "init")
    assert (code, out) == (int(Exit.STORE), "")
    assert "is not a run store: it holds the tables notes and no store schema" in err
    assert tables(store_db) == ["notes"] and execute(store_db, "SELECT body FROM notes") == [("keep me",)]


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_serve_and_worker_refuse_a_new_store_and_name_the_init_to_run(store_db: str, command: str) -> None:
    code, out, err = cli("--db", store_db, command, NAME)
    assert (code, out) == (int(Exit.STORE), "")
    if is_postgres(store_db):
        password = urlsplit(store_db).password
        assert password and password not in err
        assert "holds no run store (create it with `agentsm-runs --db URL init`, URL being the same" in err
        assert tables(store_db) == []
    else:
        assert f"no store at {store_db} (create it with `agentsm-runs --db {store_db} init`)" in err
        assert not Path(store_db).exists()
    assert "before the command" not in err  # --db was given: the message does not ask for it


def test_without_db_a_missing_store_names_init_and_db(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTSM_RUNS_DB", str(tmp_path / "runs.db"))
    code, _, err = cli("worker", NAME)
    assert code == int(Exit.STORE)
    assert "create it with `agentsm-runs init`, or name another store with --db DB before the command" in err
    assert cli("init")[0] == 0 and cli("list")[0] == 0


def waiting(db: str) -> str:
    store = open_store(db).unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=2, approval_over=0), run_id="order-1").unwrap().run_id
    store.close()
    return run_id


@pytest.mark.parametrize(
    "command",
    [
        "init",
        "list",
        "show",
        "export",
        "replay",
        "resume",
        "approve",
        "reject",
        "pending",
        "fork",
        "check",
        "recover",
    ],
)
def test_every_command_has_help(command: str) -> None:
    code, out, _ = cli(command, "--help")
    assert code == 0 and "usage: agentsm-runs" in out


def test_list_show_export_and_replay_a_waiting_run(db: str) -> None:
    run_id = waiting(db)
    code, out, _ = cli("--db", db, "list")
    assert code == 0 and run_id in out and "waiting" in out and NAME in out and "APPROVING" in out
    code, out, _ = cli("--db", db, "show", run_id)
    assert code == 0 and "Priced" not in out and "CHARGING" in out and "request" in out
    code, out, _ = cli("--db", db, "export", run_id)
    exported = json.loads(out)
    assert code == 0 and exported["run"]["status"] == "waiting" and len(exported["journal"]) == 5
    assert exported["journal"][4]["waiting"] is True and exported["trace"]
    code, out, _ = cli("--db", db, "replay", run_id, "--step", "3")
    assert code == 0 and "state PRICING (ready) after 3 steps" in out


def test_approve_twice_gives_one_success_and_one_refusal(db: str) -> None:
    run_id = waiting(db)
    code, out, _ = cli("--db", db, "pending")
    assert code == 0 and f"{run_id} 4 AskApproval" in out
    code, out, _ = cli("--db", db, "approve", run_id, "4", "--resume")
    assert code == 0 and "finished" in out
    code, _, err = cli("--db", db, "approve", run_id, "4")
    assert code == 4 and "answered already" in err


def test_unknown_run_and_unknown_machine_exit_3(db: str) -> None:
    waiting(db)
    assert cli("--db", db, "show", "nope")[0] == 3
    code, _, err = cli("--db", db, "check", "tests.durable.machines:NOTHING")
    assert code == 3 and "cannot load tests.durable.machines:NOTHING" in err


def test_check_exits_1_when_a_run_would_diverge(db: str) -> None:
    waiting(db)
    code, out, _ = cli("--db", db, "check", NAME)
    assert code == 0 and f"1 unfinished run(s) of {NAME}, 0 would diverge" in out
    code, out, _ = cli("--db", db, "check", "tests.durable.machines:ORDERS_V2")
    assert code == 0 and "0 unfinished" in out  # runs are matched by the name they were stored under
    assert f"unfinished runs are stored under: {NAME} (choose one with --name)" in out


@pytest.mark.parametrize(
    "args",
    [
        ("tests.durable.machines:DURABLE_ORDERS_V2",),  # a Durable: its runs are those stored under its name
        ("tests.durable.machines:ORDERS_V2", "--name", NAME),  # a Machine: --name says whose runs
    ],
)
def test_check_finds_the_runs_of_a_changed_version_stored_under_another_spelling(
    db: str, args: tuple[str, ...]
) -> None:
    run_id = waiting(db)
    code, out, _ = cli("--db", db, "check", *args)
    assert code == 1 and f"1 unfinished run(s) of {NAME}, 1 would diverge" in out
    assert f"{run_id} (waiting, machine changed): DIVERGES" in out


def test_a_missing_attribute_or_module_is_named(db: str) -> None:
    code, _, err = cli("--db", db, "check", "tests.durable.machines:NOTHING")
    assert code == 3 and "tests.durable.machines has no attribute NOTHING" in err
    code, _, err = cli("--db", db, "check", "no_such_module_here:X")
    assert code == 3 and "No module named 'no_such_module_here'" in err and "PYTHONPATH" in err
    assert "cannot load no_such_module_here:X" in err and "not a Durable" not in err  # unknown, not wrong


def test_a_machine_is_found_by_its_file_as_agentsm_verify_finds_it(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", list(sys.path))  # the file's folder goes first on a copy
    code, out, err = cli("--db", db, "check", str(ROOT / "examples" / "durable_orders.py") + ":ORDERS_V2")
    assert (code, err) == (0, "")
    assert "0 unfinished run(s) of durable_orders:ORDERS" in out
    code, _, err = cli("--db", db, "check", "no/such/file.py:ORDERS")
    assert code == 3 and "no such file: no/such/file.py" in err


def test_fork_with_a_changed_field(db: str) -> None:
    store = open_store(db).unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=2)).unwrap().run_id
    store.close()
    code, out, _ = cli("--db", db, "fork", run_id, "1", "--set", "items=4")
    assert code == 0 and "finished after 9 steps" in out


def test_fork_sets_a_persistent_vector_from_a_json_list(db: str) -> None:
    store = open_store(db).unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=1)).unwrap().run_id
    code, out, err = cli("--db", db, "fork", run_id, "1", "--set", 'receipts=["old"]')
    assert code == 0, err
    fork_id = out.split(":")[0]
    memory = replay_stored(store, DURABLE_ORDERS.machine, fork_id).unwrap().memory
    store.close()
    # PVector: pyrsistent's abstract vector (its C class on 3.11, its Python class where no C build exists)
    assert memory.receipts[0] == "old" and isinstance(memory.receipts, PVector)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ("items", "--set needs FIELD=JSON, got 'items'"),
        ("=4", "--set needs FIELD=JSON, got '=4'"),
        ("items=four", "'four' is not JSON (a string is quoted: items='\"four\"')"),
        ("colour=1", "Order has no field colour (fields: items"),
        ('items="four"', "--set items: Expected `int`, got `str` (Order.items is int)"),
        ("approved=1", "--set approved: Expected `bool | null`, got `int` (Order.approved is bool | None)"),
        (
            "receipts=[1]",
            "--set receipts: Expected `str`, got `int` - at `$[0]` (Order.receipts is PVector[str])",
        ),
    ],
)
def test_fork_with_a_bad_change_is_a_usage_error_and_starts_nothing(db: str, change: str, says: str) -> None:
    store = open_store(db).unwrap()
    run_id = DURABLE_ORDERS.start(store, Order(items=2)).unwrap().run_id
    before = store.runs(unfinished_only=False).unwrap()
    code, out, err = cli("--db", db, "fork", run_id, "1", "--set", change)
    assert (code, out) == (2, "") and says in err and "Traceback" not in err
    assert store.runs(unfinished_only=False).unwrap() == before
    store.close()


def test_a_reader_that_stops_reading_is_no_error(db: str) -> None:
    run_id = waiting(db)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", db, "export", run_id]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()  # as `agentsm-runs export RUN | head -0` does, before anything is written
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and err == b""


def test_two_processes_approving_at_once_give_one_success_and_one_refusal(db: str) -> None:
    run_id = waiting(db)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "agentsm_fn.commands.runs", "--db", db, "approve", run_id, "4"]
    procs = [
        subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for proc in procs:
        proc.communicate(timeout=60)
    codes = sorted(proc.returncode for proc in procs)
    assert codes == [0, 4]


@pytest.mark.parametrize("how", ["approve", "resume", "recover"])
def test_watch_prints_each_transition_and_effect_of_the_run_it_continues(db: str, how: str) -> None:
    run_id = waiting(db)
    if how == "approve":
        code, out, err = cli("--db", db, "approve", run_id, "4", "--resume", "--watch")
    else:
        assert cli("--db", db, "approve", run_id, "4")[0] == 0
        args = ("resume", run_id) if how == "resume" else ("recover", NAME)
        code, out, err = cli("--db", db, *args, "--watch")
    assert code == 0, err
    lines = [line.strip() for line in out.splitlines()]
    assert "▶ orders  started (resumed)" in lines
    assert any(line.endswith("AskApproval  0 ms  bool") or "✓   AskApproval" in line for line in lines), out
    assert any(line.endswith("APPROVING --APPROVED--> DONE") for line in lines), out
    assert any(line.startswith("■ finished in DONE") for line in lines), out


def test_without_watch_nothing_live_is_printed(db: str) -> None:
    code, out, _ = cli("--db", db, "approve", waiting(db), "4", "--resume")
    assert code == 0 and "▶" not in out and "■" not in out
