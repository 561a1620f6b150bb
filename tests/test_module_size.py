"""Modules stay small: under 300 lines, or their docstring says why the module is one idea.

The convention: every module of ``agentsm_fn`` and ``verification`` (every subpackage, also
``agentsm_fn.temporal``) has at most :data:`LIMIT` lines, or its module docstring contains
the phrase "one idea" (any case) in a line saying why it is one idea that splitting would
scatter, e.g. ``One idea over 300 lines: the one hot loop, kept in one function on purpose``.
A module that grows past the limit is split into modules of one idea each (private
``_name`` modules, the public import paths unchanged), or earns that line.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOTS = ("agentsm_fn", "verification")
LIMIT = 300
PHRASE = "one idea"


def breaks_the_rule(source: str) -> bool:
    """True if ``source`` is over :data:`LIMIT` lines and its docstring does not say it is one idea."""
    if len(source.splitlines()) <= LIMIT:
        return False
    docstring = ast.get_docstring(ast.parse(source)) or ""
    return PHRASE not in docstring.lower()


def modules() -> list[Path]:
    """Every Python module under the package roots, sorted."""
    return sorted(path for root in ROOTS for path in (ROOT / root).rglob("*.py"))


def test_every_module_is_small_or_says_it_is_one_idea() -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {len(path.read_text(encoding='utf-8').splitlines())} lines"
        for path in modules()
        if breaks_the_rule(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], (
        f"over {LIMIT} lines without a docstring line saying why the module is {PHRASE!r}: {offenders}"
    )


def test_the_walk_covers_every_package() -> None:
    found = {path.relative_to(ROOT).parts[:2] for path in modules()}
    for package in ("core", "durable", "shell", "otel"):
        assert ("agentsm_fn", package) in found
    assert any(parts[0] == "verification" for parts in found)


def test_the_rule_judges_length_and_docstring() -> None:
    body = "x = 1\n" * LIMIT
    assert not breaks_the_rule('"""Short."""\n' + "x = 1\n" * (LIMIT - 1))
    assert breaks_the_rule('"""Long."""\n' + body)
    assert breaks_the_rule(body + '"""One idea, but not the docstring."""\n')
    assert not breaks_the_rule('"""Long.\n\nOne idea over 300 lines: why.\n"""\n' + body)
    assert not breaks_the_rule('"""Long, and one idea: why."""\n' + body)
