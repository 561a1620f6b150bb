"""``agentsm-runs thread ...``: threads from the command line, on each real store (SQLite and PostgreSQL)."""

from __future__ import annotations

from contextlib import closing

import pytest

from agentsm_fn.commands.runs._support import Exit
from agentsm_fn.durable import open_store
from agentsm_fn.durable.operations.answers import answer, pending
from tests.durable.machines import DURABLE_ORDERS
from tests.durable.test_cli import cli
from tests.threads.chatter import CHATTY

NAME = CHATTY.name


@pytest.fixture
def db(store_db: str) -> str:
    open_store(store_db).unwrap().close()
    return store_db


def test_a_conversation_from_the_command_line(db: str) -> None:
    code, _, err = cli("--db", db, "thread", "send", "t1", "hello")
    assert code == int(Exit.USAGE) and "thread t1 is new: name the Durable" in err
    code, out, _ = cli("--db", db, "thread", "send", "t1", "hello", "--machine", NAME)
    assert code == 0 and out.startswith("t1 turn 0 (run ") and "finished" in out
    assert "[turn 0] assistant: hello (after 0)" in out
    code, out, _ = cli("--db", db, "thread", "send", "t1", "again")
    assert code == 0 and "[turn 1] assistant: again (after 2)" in out  # the turn saw the earlier two messages
    code, out, _ = cli("--db", db, "thread", "messages", "t1")
    assert out.splitlines() == [
        "[turn 0] user: hello",
        "[turn 0] assistant: hello (after 0)",
        "[turn 1] user: again",
        "[turn 1] assistant: again (after 2)",
    ]
    code, out, _ = cli("--db", db, "thread", "messages", "t1", "--turn", "0")
    assert len(out.splitlines()) == 2
    code, out, _ = cli("--db", db, "thread", "show", "t1")
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [["0", "finished"], ["1", "finished"]]
    code, out, _ = cli("--db", db, "thread", "list", "--machine", NAME)
    assert code == 0 and out.splitlines()[1].split()[:3] == ["t1", NAME, "2"]


def test_a_message_to_a_waiting_turn_is_refused_naming_it_until_it_is_answered(db: str) -> None:
    cli("--db", db, "thread", "send", "t1", "ask: may I?", "--machine", NAME)
    code, _, err = cli("--db", db, "thread", "send", "t1", "hello?")
    assert code == int(Exit.REFUSED) and "thread t1 is busy: turn 0 (run " in err and "is waiting" in err
    with closing(open_store(db).unwrap()) as store:
        (asked,) = pending(store).unwrap()
        answer(store, asked.run_id, asked.seq, "yes").unwrap()
        CHATTY.resume(store, asked.run_id).unwrap()
    code, out, _ = cli("--db", db, "thread", "send", "t1", "hello?")
    assert code == 0 and "t1 turn 1" in out


def test_fork_edits_a_turn_in_a_new_thread_and_delete_removes_only_its_own_runs(db: str) -> None:
    for message in ("one", "two"):
        cli("--db", db, "thread", "send", "t1", message, "--machine", NAME)
    code, out, _ = cli("--db", db, "thread", "fork", "t1", "1", "TWO", "--as", "t2")
    assert code == 0 and "[turn 1] assistant: TWO (after 2)" in out
    code, out, _ = cli("--db", db, "thread", "list", "--parent", "t1")
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["t2"]
    code, out, _ = cli("--db", db, "thread", "delete", "t2")
    assert (code, out.strip()) == (0, "t2: deleted, with 1 run(s)")  # turn 0's run is t1's too
    code, out, _ = cli("--db", db, "thread", "messages", "t1")
    assert len(out.splitlines()) == 4


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (("thread", "show", "nope"), Exit.NOT_FOUND, "no stored thread nope"),
        (("thread", "fork", "t1", "7", "x"), Exit.NOT_FOUND, "thread t1 has no turn 7"),
        (
            ("thread", "send", "t1", "x", "--machine", DURABLE_ORDERS.name),
            Exit.REFUSED,
            "declares no turn start",
        ),
        (
            ("thread", "send", "sk-" + "abcdefghij" * 3, "x", "--machine", NAME),
            Exit.USAGE,
            "looks like a credential",
        ),
        (
            ("thread", "send", "t9", "x", "--machine", "no.such:THING"),
            Exit.NOT_FOUND,
            "cannot load no.such:THING",
        ),
    ],
)
def test_refusals_have_their_exit_codes(db: str, args: tuple[str, ...], code: Exit, said: str) -> None:
    cli("--db", db, "thread", "send", "t1", "hello", "--machine", NAME)
    got, _, err = cli("--db", db, *args)
    assert got == int(code) and said in err, err
