"""Two runs of one machine side by side: where their paths part, and how their memories differ at each step.

Built from the two runs' views (:func:`~agentsm_fn.inspector.run_view.run_view`): each
run's memory is rebuilt at every step from its changes, the steps both runs have are
compared field by field, and the first step whose transition differs is where the paths
part (a fork and its parent agree up to the fork's step, by construction).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentsm_fn.inspector.plain import Change, apply_changes
from agentsm_fn.llm.json import JsonValue

__all__ = ["compare_views", "memories"]


def memories(steps: Sequence[JsonValue]) -> dict[int, tuple[str, str, JsonValue]]:
    """Step number -> (state, event that led there, whole memory), from a run view's ``steps``.

    Example:
        >>> steps = [{"step": 0, "state": "A", "memory": {"n": 0}},
        ...          {"step": 1, "state": "B", "event": "GO", "changes": [{"field": "n", "value": 1}]}]
        >>> memories(steps)[1]
        ('B', 'GO', {'n': 1})
    """
    found: dict[int, tuple[str, str, JsonValue]] = {}
    memory: JsonValue = None
    for entry in steps:
        if not isinstance(entry, Mapping):
            continue
        if "memory" in entry:
            memory = entry["memory"]
        else:
            listed = entry.get("changes")
            memory = apply_changes(
                memory, [c for c in listed if isinstance(c, dict)] if isinstance(listed, list) else []
            )
        found[int(str(entry["step"]))] = (str(entry["state"]), str(entry.get("event", "")), memory)
    return found


def _same(one: tuple[str, str, JsonValue] | None, two: tuple[str, str, JsonValue] | None) -> bool:
    """Both runs are in the same state, reached by the same event (a fork's first step names none)."""
    if one is None or two is None:
        return one is two
    return one[0] == two[0] and (not one[1] or not two[1] or one[1] == two[1])


def _differs(a: JsonValue, b: JsonValue) -> list[Change]:
    if not isinstance(a, Mapping) or not isinstance(b, Mapping):
        return [] if a == b else [{"field": "", "a": a, "b": b}]
    return [{"field": k, "a": a.get(k), "b": b.get(k)} for k in sorted({*a, *b}) if a.get(k) != b.get(k)]


def compare_views(a: Mapping[str, JsonValue], b: Mapping[str, JsonValue]) -> dict[str, JsonValue]:
    """Where runs ``a`` and ``b`` (two run views) part, and each common step's memory differences.

    Example:
        >>> def view(event):
        ...     return {"run": {"run_id": event}, "steps": [
        ...         {"step": 0, "state": "A", "memory": {"n": 0}},
        ...         {"step": 1, "state": event, "event": event,
        ...          "changes": [{"field": "n", "value": len(event)}]}]}
        >>> result = compare_views(view("GO"), view("STOP"))
        >>> result["parted_at"], result["steps"][1]["differs"]
        (1, [{'field': 'n', 'a': 2, 'b': 4}])
    """
    left, right = memories(_list(a.get("steps"))), memories(_list(b.get("steps")))
    both = max(min(left, default=0), min(right, default=0))  # a fork starts at its parent's step
    parted: int | None = None
    rows: list[JsonValue] = []
    for step in sorted({*left, *right}):
        one, two = left.get(step), right.get(step)
        if parted is None and step >= both and not _same(one, two):
            parted = step
        rows.append(
            {
                "step": step,
                "a": {"state": one[0], "event": one[1]} if one else None,
                "b": {"state": two[0], "event": two[1]} if two else None,
                "differs": _differs(one[2], two[2]) if one and two else [],
            }
        )
    return {"a": a.get("run"), "b": b.get("run"), "parted_at": parted, "steps": rows}


def _list(value: JsonValue) -> Sequence[JsonValue]:
    return value if isinstance(value, list) else []
