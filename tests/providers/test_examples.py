"""The provider examples run a whole ReAct agent against aimock when given --base-url."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import pytest

from tests.providers.conftest import ROOT, Aimock

PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OLLAMA_HOST",
)


@pytest.fixture(autouse=True)
def _examples_on_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """As ``python examples/<name>.py`` does, put the examples folder (and its shared helpers) on the path."""
    monkeypatch.syspath_prepend(str(ROOT / "examples"))


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
    for var in PROVIDER_VARIABLES:
        monkeypatch.delenv(var, raising=False)
    assert _main(name)([]) == 2
    assert variable in capsys.readouterr().err


@pytest.mark.parametrize(
    ("name", "variable", "suffix"),
    [
        ("openai_agent", "OPENAI_BASE_URL", "/v1"),
        ("anthropic_agent", "ANTHROPIC_BASE_URL", ""),
        ("ollama_agent", "OLLAMA_HOST", ""),
    ],
)
def test_example_script_finds_the_service_in_the_environment_from_any_folder(
    name: str, variable: str, suffix: str, aimock: Aimock, tmp_path: Path
) -> None:
    """Run as a user does (``python path/to/example.py``, another working folder, no --base-url)."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_VARIABLES}
    env[variable] = aimock.base + suffix
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / f"{name}.py"),
            "--question",
            "Please compare Paris and Rome",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "answer: Paris is sunny and Rome is rainy." in done.stdout
