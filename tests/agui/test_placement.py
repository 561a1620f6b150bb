"""Where an AG-UI request meets its stored thread, as properties: a new turn, an edit, or a refusal."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentsm_fn.llm import (
    AssistantMessage,
    Conversation,
    ConversationMessage,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from agentsm_fn.server.agui.placement import Continue, Edit, place, snapshot_messages, turn_named
from agentsm_fn.shell.credentials import redact_credentials

texts = st.text(min_size=1, max_size=30).filter(lambda text: text.strip() != "")
threads = st.lists(texts, max_size=8)


def ours(turns: list[str], run: str = "r1") -> list[tuple[str, str]]:
    """The user messages of a page that shows the snapshot of ``turns``: our ids, the stored texts."""
    return [(f"{run}:turn-{n}", text) for n, text in enumerate(turns)]


def _differs(text: str, stored: str) -> bool:
    return text.strip() not in (stored.strip(), redact_credentials(stored).strip())


@given(threads, texts, st.booleans())
def test_a_new_message_after_the_stored_turns_is_the_next_turn(
    turns: list[str], text: str, named: bool
) -> None:
    held = ours(turns) if named else [(f"u{n}", said) for n, said in enumerate(turns)]
    assert place([*held, ("typed", text)], turns).unwrap() == Continue(len(turns), text.strip())


@given(st.data(), threads.filter(bool), texts, st.booleans())
def test_an_edited_last_message_is_an_edit_of_its_turn(
    data: st.DataObject, turns: list[str], text: str, same_id: bool
) -> None:
    turn = data.draw(st.integers(0, len(turns) - 1))
    if not _differs(text, turns[turn]):
        return
    held = ours(turns)[:turn]  # the page drops what came after the edited message
    message_id = f"r1:turn-{turn}" if same_id else "retyped"
    assert place([*held, (message_id, text)], turns).unwrap() == Edit(turn, text.strip())


@given(st.data(), threads.filter(lambda turns: len(turns) > 1), texts)
def test_an_edit_followed_by_more_messages_is_refused_naming_the_message(
    data: st.DataObject, turns: list[str], text: str
) -> None:
    turn = data.draw(st.integers(0, len(turns) - 2))
    if not _differs(text, turns[turn]):
        return
    held = ours(turns)
    held[turn] = (held[turn][0], text)
    problem = place(held, turns).failure()
    assert (
        problem.field == f"messages (user message {turn})" and "only the last user message" in problem.detail
    )


@given(threads)
def test_nothing_new_is_refused(turns: list[str]) -> None:
    problem = place(ours(turns), turns).failure()
    assert problem.field == "messages"


@given(threads, st.integers(1, 5))
def test_a_message_naming_a_turn_the_thread_does_not_have_is_refused(turns: list[str], beyond: int) -> None:
    problem = place([(f"r1:turn-{len(turns) + beyond}", "hello")], turns).failure()
    assert f"names turn {len(turns) + beyond}" in problem.detail


def test_a_stored_message_matches_its_redacted_form_and_surrounding_whitespace() -> None:
    stored = "my key is sk-live0123456789abcdefXYZ"
    assert place([("r:turn-0", redact_credentials(stored)), ("n", " hi ")], [stored]).unwrap() == Continue(
        1, "hi"
    )


@given(st.lists(st.tuples(texts, st.booleans()), min_size=1, max_size=6))
def test_a_snapshots_user_messages_name_their_turns_and_no_other_message_does(
    turns: list[tuple[str, bool]],
) -> None:
    conversation = Conversation()
    for n, (text, tools) in enumerate(turns):
        work: list[ConversationMessage] = [
            AssistantMessage("", (ToolCall(f"c{n}", "look", {}),)),
            ToolResultMessage(f"c{n}", "look", "x"),
        ]
        conversation = conversation.then(
            [UserMessage(text), *(work if tools else []), AssistantMessage("ok")]
        )
    shown = snapshot_messages("run-9", conversation)
    named = [(turn_named(m.id), m.role) for m in shown]
    assert [turn for turn, role in named if role == "user"] == list(range(len(turns)))
    assert all(turn is None for turn, role in named if role != "user")
    assert len({m.id for m in shown}) == len(shown)  # unique in the thread
