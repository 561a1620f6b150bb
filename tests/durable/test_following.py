"""Following a stored run replays only what changed: the events equal a whole replay's, at a bounded cost.

A run's journal is grown row by row in a second store (each row started, then completed, its
last row sometimes forgotten as a failed effect's is), as a run in another process writes it;
a :class:`StoredFollow` looks at some of those moments. Whenever it looks, its events are
exactly what ``stored_events`` derives from the whole journal, and it reads at most the last
settled row and what came after it, however long the run.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentsm_fn.durable import SqliteStore, stored_events
from agentsm_fn.durable.operations.following import StoredFollow
from agentsm_fn.stream.events import RunEvent
from tests.durable.stores import execute
from tests.inspector.machines import COUNTER, Count

_JOURNAL = "run_id, seq, digest, ticks, outcome, at, waiting, summary, effect"


class Growing:
    """Run ``c`` of a finished store, written again into ``path`` a row at a time."""

    def __init__(self, source: str, path: Path) -> None:
        self.store = SqliteStore.open(path).unwrap()
        self.path = str(path)
        self.rows = execute(source, f"SELECT {_JOURNAL} FROM journal WHERE run_id = 'c' ORDER BY seq")
        self.run = execute(source, "SELECT * FROM runs WHERE id = 'c'")[0]
        marks = ", ".join("?" for _ in self.run)
        execute(self.path, f"INSERT INTO runs VALUES ({marks})", self.run)
        execute(
            self.path, "UPDATE runs SET status = 'running', tail = NULL, state = '', steps = 0, effects = 0"
        )

    def start(self, seq: int) -> None:
        execute(
            self.path,
            f"INSERT INTO journal({_JOURNAL}) VALUES (?, ?, ?, ?, NULL, NULL, ?, ?, ?)",
            (*self.rows[seq][:4], *self.rows[seq][6:]),
        )

    def complete(self, seq: int) -> None:
        execute(
            self.path, "UPDATE journal SET outcome = ?, at = ? WHERE seq = ?", (*self.rows[seq][4:6], seq)
        )

    def forget(self, seq: int) -> None:
        execute(self.path, "UPDATE journal SET outcome = NULL, at = NULL WHERE seq = ?", (seq,))

    def stop(self) -> None:
        columns = execute(self.path, "SELECT name FROM pragma_table_info('runs')")
        sets = ", ".join(f"{column[0]} = ?" for column in columns)
        execute(self.path, f"UPDATE runs SET {sets}", self.run)

    def close(self) -> None:
        self.store.close()


def _finished(path: Path, target: int) -> str:
    """The path of a new store holding run ``c``, finished after ``target`` counts."""
    with closing(SqliteStore.open(path).unwrap()) as store:
        COUNTER.start(store, Count(target=target), run_id="c").unwrap()
    return str(path)


class Follow:
    """A follower's looks, kept as a client keeps them: the history by position, then the standing events."""

    def __init__(self, store: SqliteStore) -> None:
        self.follow = StoredFollow(store, COUNTER, "c")
        self.history: list[RunEvent] = []
        self.costs: list[int] = []

    def look(self) -> list[RunEvent]:
        before = self.follow.rows_read
        derived = self.follow.look().unwrap()
        self.costs.append(self.follow.rows_read - before)
        assert derived.first <= len(self.history)
        self.history = self.history[: derived.first] + list(derived.history)
        return self.history + list(derived.standing)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    target=st.integers(min_value=1, max_value=12),
    moves=st.lists(st.sampled_from(["look", "skip", "forget"]), min_size=40, max_size=40),
)
def test_whenever_a_follower_looks_its_events_are_the_whole_replays(
    tmp_path_factory: pytest.TempPathFactory, target: int, moves: list[str]
) -> None:
    folder = tmp_path_factory.mktemp("follow")
    with closing(Growing(_finished(folder / "source.db", target), folder / "runs.db")) as grown:
        follow = Follow(grown.store)
        move = iter(moves * 4)

        def moment() -> None:
            if next(move) == "look":
                assert follow.look() == list(stored_events(grown.store, COUNTER, "c").unwrap())

        moment()
        for seq in range(len(grown.rows)):
            grown.start(seq)
            moment()
            grown.complete(seq)
            moment()
            if next(move) == "forget":  # the last row's outcome undone, then written again
                grown.forget(seq)
                moment()
                grown.complete(seq)
                moment()
        grown.stop()
        assert follow.look() == list(stored_events(grown.store, COUNTER, "c").unwrap())


def test_a_followers_cost_per_change_does_not_grow_with_the_runs_length(tmp_path: Path) -> None:
    costs: dict[int, list[int]] = {}
    for target in (10, 200):
        source = _finished(tmp_path / f"source-{target}.db", target)
        with closing(Growing(source, tmp_path / f"runs-{target}.db")) as grown:
            follow = Follow(grown.store)
            for seq in range(len(grown.rows)):
                grown.start(seq)
                follow.look()
                grown.complete(seq)
                follow.look()
            grown.stop()
            assert follow.look() == list(stored_events(grown.store, COUNTER, "c").unwrap())
            costs[target] = follow.costs
    assert len(costs[200]) > 10 * len(costs[10])
    assert max(costs[200]) == max(costs[10]) == 2  # the last settled row's successor and the row after it
