"""The provider examples run a whole ReAct agent against aimock when given --base-url."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from typing import cast

import pytest

from tests.providers.conftest import ROOT, Aimock


def _main(name: str) -> Callable[[Sequence[str] | None], int]:
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return cast(Callable[[Sequence[str] | None], int], module.main)


@pytest.mark.parametrize("stream", [[], ["--no-stream"]], ids=["stream", "whole"])
@pytest.mark.parametrize(
    ("name", "suffix"), [("openai_agent", "/v1"), ("anthropic_agent", ""), ("ollama_agent", "")]
)
def test_example_answers_through_aimock(
    name: str, suffix: str, stream: list[str], aimock: Aimock, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _main(name)(
        ["--base-url", aimock.base + suffix, "--question", "Please compare Paris and Rome", *stream]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "answer: Paris is sunny and Rome is rainy." in out
    assert out.count("request LlmCall") == 2


@pytest.mark.parametrize(
    ("name", "variable"),
    [
        ("openai_agent", "OPENAI_API_KEY"),
        ("anthropic_agent", "ANTHROPIC_API_KEY"),
        ("ollama_agent", "OLLAMA_HOST"),
    ],
)
def test_example_without_key_or_url_explains_and_exits_2(
    name: str, variable: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "OLLAMA_HOST"):
        monkeypatch.delenv(var, raising=False)
    assert _main(name)([]) == 2
    assert variable in capsys.readouterr().err
