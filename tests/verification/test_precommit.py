"""The pre-commit hook, end to end with the real pre-commit tool (``pre-commit try-repo``).

try-repo clones this repository (with uncommitted changes), builds the hook's
virtualenv with ``pip install .`` (build backend and dependencies come from PyPI)
and runs ``agentsm-verify`` in a throwaway git repository whose pyproject lists
one machine. Slow (it builds an environment), so marked; CI still runs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

AGENT = """
import enum
from typing import Literal

from returns.result import Result

from agentsm_fn import Fault, define_machine, emit, pure


class S(enum.Enum):
    IDLE = 1
    WORK = 2
    DONE = 3


class E(enum.Enum):
    GO = 1
    AGAIN = 2
    FINISHED = 3


def idle(n: int) -> Result[tuple[Literal[E.GO], int], Fault]:
    return emit(E.GO, n)


def work(n: int) -> Result[tuple[Literal[E.AGAIN, E.FINISHED], int], Fault]:
    return emit(E.FINISHED if n > 3 else E.AGAIN, n + 1)


MACHINE = define_machine(
    states=S,
    events=E,
    initial=S.IDLE,
    terminals={S.DONE},
    table={(S.IDLE, E.GO): S.WORK, (S.WORK, E.AGAIN): S.WORK, (S.WORK, E.FINISHED): S.DONE},
    handlers={S.IDLE: pure(idle), S.WORK: pure(work)},
    budgeted=BUDGETED,
)
"""

PYPROJECT = """
[tool.agentsm_fn]
machines = ["agent:MACHINE"]
"""


def _git(repo: Path, *args: str, env: dict[str, str]) -> None:
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a checkout"
)
def test_hook_passes_a_sound_machine_and_fails_a_looping_one(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "GIT_AUTHOR_NAME": "test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
    }
    env.pop("PYTHONPATH", None)
    repo = tmp_path / "user-repo"
    repo.mkdir()
    _git(repo, "init", "-q", env=env)
    (repo / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (repo / "agent.py").write_text(AGENT.replace("BUDGETED", "{S.WORK}"), encoding="utf-8")
    _git(repo, "add", ".", env=env)
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "agentsm-verify", "--all-files"]

    passed = subprocess.run(
        command, cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout

    (repo / "agent.py").write_text(AGENT.replace("BUDGETED", "()"), encoding="utf-8")
    _git(repo, "add", ".", env=env)
    failed = subprocess.run(
        command, cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "SM009 termination" in failed.stdout
    assert "WORK --AGAIN--> WORK" in failed.stdout
