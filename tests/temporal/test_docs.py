"""The README's Temporal section, docs/temporal.md and the demo run as written, on a real server."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
import types
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import cast

import pytest
from temporalio.client import Client

from agentsm_fn import Snapshot
from agentsm_fn.temporal import TemporalMachine, start_run
from tests.teams.programs import CHILD, DELEGATOR, Boss
from tests.temporal.machines import ORDERS, Charge, Ev, Order, Ship, St, order_performers

ROOT = Path(__file__).resolve().parents[2]


def blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def run_block(source: str, path: Path, namespace: dict[str, object]) -> dict[str, object]:
    exec(compile(source, str(path), "exec"), namespace)
    return namespace


async def test_the_readme_section_runs_the_demo_agent_as_printed(
    temporal_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "examples"))  # as when the examples run: their folder on sys.path
    from temporal_agent import demo_agent

    (block,) = [b for b in blocks(ROOT / "README.md") if "react_on_temporal(" in b]
    namespace = run_block(block, ROOT / "README.md", {"__name__": "readme_temporal"})
    scale_out = cast(Callable[..., Awaitable[None]], namespace["scale_out"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        await scale_out(demo_agent(), server=temporal_target)
    assert out.getvalue().startswith("15% of Paris's 2,102,650 inhabitants is about 315,398 people")


@pytest.fixture
def shop(tmp_path: Path) -> Iterator[types.ModuleType]:
    """The ``shop`` module the docs import: the test suite's orders machine and its performers."""
    module = types.ModuleType("shop")
    module.__dict__.update(
        ORDERS=ORDERS, Charge=Charge, Ship=Ship, performers=lambda: order_performers(tmp_path)
    )
    sys.modules["shop"] = module
    yield module
    del sys.modules["shop"]


async def test_the_docs_worker_and_deployment_check_run(
    temporal_target: str, client: Client, shop: types.ModuleType
) -> None:
    serve_block, check_block = [
        b for b in blocks(ROOT / "docs" / "temporal.md") if "tracing_on" not in b and "programs=" not in b
    ]
    finished: list[Snapshot[St, Order]] = []

    async def stop_requested() -> None:  # the worker is up: run one order through it, then stop
        orders = cast(TemporalMachine[St, Ev, Order], namespace["orders"])
        run = await start_run(
            client, orders, Order(order_id="doc-1", amount=3), run_id="doc-1", task_queue="orders"
        )
        finished.append((await run.result()).unwrap())

    namespace = run_block(
        serve_block, ROOT / "docs" / "temporal.md", {"__name__": "docs", "stop_requested": stop_requested}
    )
    await cast(Callable[[str], Awaitable[None]], namespace["serve"])(temporal_target)
    assert [snapshot.state for snapshot in finished] == [St.DONE]

    checks = run_block(check_block, ROOT / "docs" / "temporal.md", {"__name__": "docs_check"})
    before_deploying = cast(Callable[[Client, object], Awaitable[bool]], checks["before_deploying"])
    assert await before_deploying(client, namespace["orders"]) is True  # no open run of orders is left


def test_the_demo_runs_four_runs_on_two_workers() -> None:
    completed = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "temporal_agent.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert len(set(re.findall(r"worker (\d+) polls", out))) == 2
    assert out.count(": Done, 7 activities") == 4
    assert out.count("answer: 15% of Paris's 2,102,650 inhabitants is about 315,398 people") == 4


async def test_the_docs_child_run_runs(temporal_target: str) -> None:
    module = types.ModuleType("team")
    module.__dict__.update(BOSS=DELEGATOR.machine, CHILD=CHILD, Boss=Boss)
    sys.modules["team"] = module
    try:
        (block,) = [b for b in blocks(ROOT / "docs" / "temporal.md") if "programs=" in b]
        namespace = run_block(block, ROOT / "docs" / "temporal.md", {"__name__": "docs_team"})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            await cast(Callable[[str], Awaitable[None]], namespace["delegate_on_temporal"])(temporal_target)
    finally:
        del sys.modules["team"]
    assert out.getvalue() == f"{CHILD.name} boss-1.c0 finished in DONE\n"
