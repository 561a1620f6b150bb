"""The pre-commit hook, end to end with the real pre-commit tool (``pre-commit try-repo`` and ``run``).

try-repo clones this repository (with uncommitted changes), builds the hook's
virtualenv with ``pip install .`` (build backend and dependencies come from PyPI)
and runs ``agentsm-verify`` in a throwaway git repository whose pyproject lists
one machine. A LangGraph graph needs LangGraph in the hook's environment, which
try-repo cannot add: that test writes the user's ``.pre-commit-config.yaml`` with
``additional_dependencies`` instead and runs ``pre-commit run``. Slow (they build
environments), so marked; CI still runs them.
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


GRAPH = """
from typing import Literal, TypedDict

from langgraph.graph import END, START, StateGraph


class Chat(TypedDict):
    turns: int


def agent(state: Chat) -> Chat:
    return {"turns": state["turns"] + 1}


def tools(state: Chat) -> Chat:
    return state


def route(state: Chat) -> Literal["tools", "__end__"]:
    return "tools" if state["turns"] < 3 else "__end__"


GRAPH = StateGraph(Chat)
GRAPH.add_node("agent", agent)
GRAPH.add_node("tools", tools)
GRAPH.add_edge(START, "agent")
GRAPH.add_conditional_edges("agent", route)
TOOLS_EDGE
"""

GRAPH_PYPROJECT = """
[tool.agentsm_fn]
machines = ["graph:GRAPH"]
"""

GRAPH_CONFIG = """
repos:
  - repo: REPO
    rev: REV
    hooks:
      - id: agentsm-verify
        additional_dependencies: ["langgraph>=1.0"]
"""


def _git(repo: Path, *args: str, env: dict[str, str]) -> str:
    done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _user_repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A throwaway git repository and the environment to run pre-commit in (its own PRE_COMMIT_HOME)."""
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
    return repo, env


def _snapshot(tmp_path: Path, env: dict[str, str]) -> tuple[Path, str]:
    """This checkout as a commit of a clone, uncommitted and new files included (what try-repo does)."""
    shadow = tmp_path / "shadow"
    _git(tmp_path, "clone", "-q", str(ROOT), str(shadow), env=env)
    changed = _git(ROOT, "ls-files", "--modified", "--others", "--exclude-standard", env=env).splitlines()
    for name in changed:
        source = ROOT / name
        if source.is_file():
            (shadow / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, shadow / name)
    _git(shadow, "add", "-A", env=env)
    _git(shadow, "commit", "-q", "--allow-empty", "-m", "snapshot", env=env)
    return shadow, _git(shadow, "rev-parse", "HEAD", env=env)


def _passes_then_fails(
    repo: Path, env: dict[str, str], command: list[str], module: str, sound: str, broken: str
) -> str:
    """Run the hook on ``sound`` (it must pass), then on ``broken`` (it must fail); the failing output."""
    for text, code in ((sound, 0), (broken, 1)):
        (repo / module).write_text(text, encoding="utf-8")
        _git(repo, "add", ".", env=env)
        done = subprocess.run(
            command, cwd=repo, env=env, capture_output=True, text=True, timeout=900, check=False
        )
        assert done.returncode == code, done.stdout + done.stderr
        assert ("Passed" if code == 0 else "Failed") in done.stdout
    return done.stdout


NEEDS_GIT = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a checkout"
)


@pytest.mark.slow
@NEEDS_GIT
def test_hook_passes_a_sound_machine_and_fails_a_looping_one(tmp_path: Path) -> None:
    repo, env = _user_repo(tmp_path)
    (repo / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "agentsm-verify", "--all-files"]
    sound, looping = AGENT.replace("BUDGETED", "{S.WORK}"), AGENT.replace("BUDGETED", "()")
    failed = _passes_then_fails(repo, env, command, "agent.py", sound, looping)
    assert "SM009 termination" in failed
    assert "WORK --AGAIN--> WORK" in failed


@pytest.mark.slow
@NEEDS_GIT
def test_hook_verifies_a_langgraph_graph_with_the_framework_as_an_additional_dependency(
    tmp_path: Path,
) -> None:
    # try-repo cannot add dependencies to the hook's environment, so this is the user's own config
    # (.pre-commit-config.yaml with additional_dependencies), pointing at a snapshot of this checkout.
    repo, env = _user_repo(tmp_path)
    shadow, rev = _snapshot(tmp_path, env)
    config = GRAPH_CONFIG.replace("REPO", str(shadow)).replace("REV", rev)
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    (repo / "pyproject.toml").write_text(GRAPH_PYPROJECT, encoding="utf-8")
    command = [sys.executable, "-m", "pre_commit", "run", "agentsm-verify", "--all-files"]
    sound, dead_end = (
        GRAPH.replace("TOOLS_EDGE", 'GRAPH.add_edge("tools", "agent")'),
        GRAPH.replace("TOOLS_EDGE", ""),
    )
    failed = _passes_then_fails(repo, env, command, "graph.py", sound, dead_end)
    assert "graph:GRAPH (langgraph)" in failed
    assert "SM004 no-deadlock: non-terminal state tools has no outgoing row" in failed
    tools_line = GRAPH.splitlines().index("def tools(state: Chat) -> Chat:") + 1
    assert f"at graph.py:{tools_line}" in failed
