"""The command-line loader (agentsm-verify, agentsm-runs): a file path names that file, or says why not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentsm_fn.shell.targets import import_target


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> None:
    """``sys.path`` and ``sys.modules`` are copies: the files imported here leave no trace."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))


def test_two_files_with_the_same_name_are_never_mixed_up(tmp_path: Path, isolated: None) -> None:
    for folder in ("v1", "v2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "rv_agent_file.py").write_text(f"MACHINE = {folder!r}\n", encoding="utf-8")
    assert import_target(f"{tmp_path / 'v1' / 'rv_agent_file.py'}:MACHINE").unwrap().value == "v1"
    second = import_target(f"{tmp_path / 'v2' / 'rv_agent_file.py'}:MACHINE")
    assert second.failure().startswith(f"{tmp_path / 'v2' / 'rv_agent_file.py'} cannot be imported")
    assert str(tmp_path / "v1" / "rv_agent_file.py") in second.failure()


def test_a_file_named_like_a_loaded_module_is_not_that_module(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "enum.py").write_text("MACHINE = 1\n", encoding="utf-8")
    found = import_target(f"{tmp_path / 'enum.py'}:MACHINE")
    assert "cannot be imported as enum" in found.failure() and "rename the file" in found.failure()


def test_the_same_file_twice_is_the_same_module(tmp_path: Path, isolated: None) -> None:
    (tmp_path / "rv_once.py").write_text("MACHINE = object()\n", encoding="utf-8")
    first = import_target(f"{tmp_path / 'rv_once.py'}:MACHINE").unwrap()
    again = import_target(f"{tmp_path}/./rv_once.py:MACHINE").unwrap()
    assert again.value is first.value
