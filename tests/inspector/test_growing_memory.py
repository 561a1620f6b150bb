"""A run whose memory grows as it goes: its view costs what each step changed, and its page shows every step.

The view turns into data only what changed at each step (``memory_changes`` over the stored
memories), which must say exactly what comparing the whole memories says; the work and the
bytes per step stay the same however long the run and its memory grow (counted, not timed);
the page rebuilds every step's memory from shared lists, and shows a long list's last items,
and all of them when asked.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PVector, pmap, pvector
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from agentsm_fn.durable import SqliteStore
from agentsm_fn.durable.running.replay import replay_stored
from agentsm_fn.inspector import apply_changes, changes, memory_changes, plain, run_view
from agentsm_fn.inspector.compare import memories
from agentsm_fn.llm.json import JsonValue
from tests.inspector.machines import TRANSFERS, Receipt, Transfers
from tests.inspector.pages import memory_field, text_of, until_text, visit
from tests.inspector.serving import Served

PLAIN = importlib.import_module("agentsm_fn.inspector.plain")  # the package's ``plain`` is the function
SECRET = "Authorization: Bearer abcdefgh12345678"


def _copy(text: str) -> str:
    """An equal string that is another object (an item rebuilt, not kept)."""
    return text.encode().decode()


@attrs.frozen(kw_only=True)
class Ledger:
    receipts: PVector[Receipt] = attrs.field(factory=pvector)
    notes: tuple[str, ...] = ()
    checked: int = 0


Step = Callable[[Ledger], Ledger]

STEPS: st.SearchStrategy[Step] = st.one_of(
    st.integers(0, 9).map(
        lambda n: (
            lambda m: attrs.evolve(m, receipts=m.receipts.append(Receipt(transfer=n, amount=n, bank_id="b")))
        )
    ),
    st.sampled_from(["a", "b", SECRET]).map(lambda s: lambda m: attrs.evolve(m, notes=(*m.notes, s))),
    st.integers(0, 3).map(lambda n: lambda m: attrs.evolve(m, checked=n)),
    st.just(attrs.evolve),  # nothing changed: every field the same object
    st.just(lambda m: attrs.evolve(m, notes=tuple(_copy(s) for s in m.notes))),  # equal, not the same objects
    st.just(lambda m: attrs.evolve(m, notes=(*(_copy(s) for s in m.notes), "c"))),  # and grown
    st.integers(0, 3).map(lambda k: lambda m: attrs.evolve(m, notes=m.notes[:k])),  # cut
    st.just(
        lambda m: (
            attrs.evolve(m, receipts=m.receipts.set(0, Receipt(transfer=-1, amount=0, bank_id="x")))
            if m.receipts
            else m
        )
    ),  # an early item replaced
)


def _check(before: object, after: object) -> None:
    found = memory_changes(before, after)
    assert found == changes(plain(before), plain(after))  # what comparing the whole memories says
    assert apply_changes(plain(before), found) == plain(after)


@given(st.lists(STEPS, max_size=12))
def test_the_changes_of_stored_memories_are_those_of_their_data(steps: list[Step]) -> None:
    memory = Ledger()
    for step in steps:
        after = step(memory)
        _check(memory, after)
        memory = after


KEYS = st.sampled_from(["a", "b", "1", SECRET])
MAPS: st.SearchStrategy[dict[Any, Any]] = st.dictionaries(
    st.one_of(KEYS, st.integers(0, 2)), st.one_of(st.integers(0, 2), st.tuples(st.integers(0, 2))), max_size=4
)


@given(MAPS, MAPS, st.booleans())
def test_mappings_and_other_memories_are_compared_as_their_data(
    one: dict[Any, Any], two: dict[Any, Any], persistent: bool
) -> None:
    merged = {**one, **{k: (*v, 9) if isinstance(v, tuple) else v for k, v in one.items()}, **two}
    for before, after in ((one, merged), (one, two), (merged, one)):
        _check(pmap(before) if persistent else before, pmap(after) if persistent else after)
    _check(3, 4)
    _check((1, 2), (1, 2, 3))  # a memory that is itself a list
    _check(Ledger(), {"notes": []})  # another kind of memory


def test_every_step_of_a_growing_run_is_its_replayed_memory(store: SqliteStore) -> None:
    TRANSFERS.start(store, Transfers(count=15), run_id="t").unwrap()
    view = run_view(store, TRANSFERS, store.get("t").unwrap())
    rebuilt = memories(view["steps"])  # type: ignore[arg-type]  # the view is JSON data
    assert sorted(rebuilt) == list(range(32))
    steps: Any = view["steps"]  # JSON data
    appended = [s for s in steps[1:] if s["changes"] and "append" in s["changes"][0]]
    assert len(appended) == 15  # a receipt (and a note) every other step, sent as what was appended
    for step in (0, 1, 2, 17, 31):
        snap = replay_stored(store, TRANSFERS.machine, "t", step).unwrap()
        assert rebuilt[step][2] == plain(snap.memory)


def _per_step(store: SqliteStore, count: int, monkeypatch: pytest.MonkeyPatch) -> tuple[float, float]:
    """For a run of ``count`` transfers: the values turned into data, and the bytes of the steps, per step."""
    run_id = f"t{count}"
    TRANSFERS.start(store, Transfers(count=count), run_id=run_id).unwrap()
    record = store.get(run_id).unwrap()
    made = [0]
    real: Callable[[object, Callable[[str], str]], JsonValue] = PLAIN._plain

    def counted(value: object, redact: Callable[[str], str]) -> JsonValue:
        made[0] += 1
        return real(value, redact)

    with monkeypatch.context() as patched:
        patched.setattr(PLAIN, "_plain", counted)
        view = run_view(store, TRANSFERS, record)
    return made[0] / record.steps, len(json.dumps(view["steps"])) / record.steps


def test_the_work_and_the_bytes_per_step_do_not_grow_with_the_run(
    store: SqliteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    short_work, short_bytes = _per_step(store, 50, monkeypatch)
    long_work, long_bytes = _per_step(store, 400, monkeypatch)  # 8 times the steps, 8 times the memory
    assert long_work <= 1.05 * short_work, (short_work, long_work)  # every step's whole memory: 8 times
    assert long_bytes <= 1.1 * short_bytes, (short_bytes, long_bytes)  # a step number's digits grow


def test_a_long_list_shows_its_last_items_and_all_of_them_when_asked_at_every_step(
    browser: WebDriver, store: SqliteStore
) -> None:
    TRANSFERS.start(store, Transfers(count=60), run_id="t").unwrap()  # 121 steps, 60 receipts at the end
    with Served(store, [TRANSFERS]) as base:
        visit(browser, f"{base}/#/runs/t", "run")
        receipts = text_of(browser, 'table.memory tr[data-field="receipts"] td')
        assert "60 items; the last 20 (from item 41)" in receipts
        assert "bank-000059" in receipts and "bank-000040" in receipts and "bank-000039" not in receipts
        browser.find_element(By.CSS_SELECTOR, 'tr[data-field="receipts"] button.show-all').click()
        receipts = until_text(browser, 'table.memory tr[data-field="receipts"] td', "bank-000000").text
        assert "items;" not in receipts and "bank-000059" in receipts
        slider = browser.find_element(By.ID, "step")
        slider.send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT, Keys.ARROW_LEFT)  # step 118: still shown whole
        receipts = memory_field(browser, "receipts")
        assert "bank-000000" in receipts and "bank-000058" in receipts and "bank-000059" not in receipts
        slider.send_keys(Keys.HOME)  # back to the start, then forward: every step's memory is its own
        assert memory_field(browser, "receipts") == "[]"
        slider.send_keys(*[Keys.ARROW_RIGHT] * 9)  # step 9: four transfers sent
        notes = json.loads(memory_field(browser, "notes"))
        assert notes == [f"transfer {n} sent: bank-{n:06d}" for n in range(4)]
        visit(browser, f"{base}/#/runs/t?step=100", "run")  # 50 receipts: the last 20 again (a new page)
        assert "50 items; the last 20 (from item 31)" in text_of(browser, 'tr[data-field="receipts"] td')
        assert "appended 1 item" in text_of(browser, ".changes-box")
