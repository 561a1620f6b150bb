"""Every Python snippet of README.md and docs/*.md runs, in order, as a reader would run it.

Each file's ```python blocks run top to bottom in one fresh namespace (a later block may use
what an earlier one defined), with ``examples/`` importable. A block of ``>>>`` lines runs
as a doctest. A ``test_*`` function a snippet defines without parameters is then
called, so a snippet that is a test is run as one. Two kinds of comment steer a block:

* ``<!-- not run: reason -->`` right before a block skips it; the skipped blocks are counted
  and must be exactly :data:`NOT_RUN` (zero today), so skipping one is a visible decision;
* ``<!-- run by tests/some_test.py: reason -->`` right before a block leaves it to that test
  (a block that must not run in this process, such as one installing OpenTelemetry's global
  tracer provider); the test file must exist and name the document;
* a block inside an HTML comment (hidden from readers) runs too: it sets the scene, such as
  ``doc_script("openai_provider", reply, ...)``, which makes the next call of that provider
  factory return a scripted LLM instead of a network client (no test touches the network).
"""

from __future__ import annotations

import contextlib
import doctest
import inspect
import io
import re
import traceback
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

import agentsm_fn.providers
from agentsm_fn.llm import LlmOutcome
from agentsm_fn.shell.scripted_llm import ScriptedLlm

ROOT = Path(__file__).resolve().parents[1]
FILES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

NOT_RUN = 0
"""How many blocks are deliberately not run (each marked ``<!-- not run: reason -->``)."""

_FENCE = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->\s*$", re.S)
_RUN_BY = re.compile(r"<!--\s*run by\s+(\S+?):\s*(.+?)\s*-->\s*$", re.S)


@attrs.frozen
class Block:
    """One ```python block: where it starts, its code, why it is skipped, which test runs it instead."""

    path: Path
    line: int
    code: str
    skipped: str = ""
    run_by: str = ""

    @property
    def where(self) -> str:
        shown = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{shown}:{self.line}"


def blocks(path: Path) -> tuple[Block, ...]:
    """The ```python blocks of ``path`` in order, hidden ones included."""
    text = path.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(text):
        before = text[: match.start()]
        last = before.rstrip("\n").rsplit("\n", 1)[-1] + "\n"
        marker, elsewhere = _NOT_RUN.search(last), _RUN_BY.search(last)
        skipped = marker.group(1) if marker else ""
        run_by = elsewhere.group(1) if elsewhere else ""
        found.append(Block(path, before.count("\n") + 1, match.group(1), skipped, run_by))
    return tuple(found)


def _script_next(monkeypatch: pytest.MonkeyPatch) -> Callable[..., ScriptedLlm]:
    """``doc_script(factory, *replies)``: the next call of ``agentsm_fn.providers.<factory>`` is scripted."""

    def doc_script(factory: str, *replies: LlmOutcome) -> ScriptedLlm:
        real = getattr(agentsm_fn.providers, factory)
        llm = ScriptedLlm(replies)

        def once(*_args: object, **_kwargs: object) -> ScriptedLlm:
            monkeypatch.setattr(agentsm_fn.providers, factory, real)
            return llm

        monkeypatch.setattr(agentsm_fn.providers, factory, once)
        return llm

    return doc_script


def run_block(block: Block, namespace: dict[str, object]) -> None:
    """Run one block in ``namespace``: as a doctest if it is a ``>>>`` session, else as a script."""
    if block.code.lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(
            block.code, namespace, block.where, str(block.path), block.line
        )
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report = io.StringIO()
        runner.run(test, out=report.write, clear_globs=False)
        assert runner.failures == 0, report.getvalue()
        return
    # dont_inherit: a reader's script does not have this module's ``from __future__ import annotations``
    code = compile("\n" * (block.line) + block.code, str(block.path), "exec", dont_inherit=True)
    exec(code, namespace)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_snippet_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    monkeypatch.syspath_prepend(str(ROOT))
    namespace: dict[str, object] = {"__name__": f"docs_{path.stem}", "doc_script": _script_next(monkeypatch)}
    with contextlib.redirect_stdout(io.StringIO()):
        for block in blocks(path):
            if not (block.skipped or block.run_by):
                run_block(block, namespace)
        for test in snippet_tests(namespace):
            test()


def snippet_tests(namespace: dict[str, object]) -> list[Callable[[], object]]:
    """The ``test_*`` functions the snippets defined that take no argument: a snippet's test is run too."""
    found: list[Callable[[], object]] = []
    for name, value in namespace.items():
        if name.startswith("test_") and inspect.isfunction(value) and not inspect.signature(value).parameters:
            found.append(value)
    return found


def test_the_snippets_are_found_and_only_the_counted_ones_are_skipped() -> None:
    every = [block for path in FILES for block in blocks(path)]
    skipped = [f"{block.where}: {block.skipped}" for block in every if block.skipped]
    assert len(every) >= 13  # README.md and docs/ had 13 when this test was written
    assert len(skipped) == NOT_RUN, "blocks not run:\n" + "\n".join(skipped)


def test_blocks_left_to_another_test_are_run_by_it() -> None:
    elsewhere = [block for path in FILES for block in blocks(path) if block.run_by]
    for block in elsewhere:
        runner = ROOT / block.run_by
        assert runner.is_file(), f"{block.where}: {block.run_by} does not exist"
        assert block.path.name in runner.read_text(encoding="utf-8"), (
            f"{block.run_by} never reads {block.where}"
        )


def test_a_not_run_marker_skips_only_the_block_it_precedes(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(
        "```python\nx = 1\n```\n\n<!-- not run: needs a real key -->\n```python\nx = 2\n```\n\n"
        "<!-- hidden\n```python\nx = 3\n```\n-->\n"
        "<!-- run by tests/x.py: global state -->\n```python\nx = 4\n```\n",
        encoding="utf-8",
    )
    found = blocks(doc)
    assert [(b.code, b.skipped, b.run_by) for b in found] == [
        ("x = 1\n", "", ""),
        ("x = 2\n", "needs a real key", ""),
        ("x = 3\n", "", ""),
        ("x = 4\n", "", "tests/x.py"),
    ]


def test_a_failing_snippet_names_its_file_and_line(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("Intro.\n\n```python\nfrom verification.kit import step_rule\n```\n", encoding="utf-8")
    (block,) = blocks(doc)
    with pytest.raises(ImportError) as raised:
        run_block(block, {})
    frames = traceback.extract_tb(raised.value.__traceback__)
    assert (str(doc), 4) in [(frame.filename, frame.lineno) for frame in frames]


def test_a_doctest_block_runs_as_a_doctest(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("```python\n>>> 1 + 1\n3\n```\n", encoding="utf-8")
    (block,) = blocks(doc)
    with pytest.raises(AssertionError, match="Expected"):
        run_block(block, {})
