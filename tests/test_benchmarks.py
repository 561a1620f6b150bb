"""The engine benchmark compares like with like: every variant does the baseline's work.

No timing here (speed is measured by running ``benchmarks/engine.py``); these tests
keep the benchmark honest as the code changes: the same transitions, the same history.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark(script: str) -> ModuleType:
    """Load ``benchmarks/<script>.py`` as running it does: its directory on the path (for ``_workload``)."""
    if str(ROOT / "benchmarks") not in sys.path:
        sys.path.append(str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(f"{script}_benchmark", ROOT / "benchmarks" / f"{script}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # attrs resolves the module's annotations through sys.modules
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_benchmark("engine")


@pytest.mark.parametrize("k", [0, 1, 3, 50])
def test_every_variant_takes_the_baselines_transitions(bench: ModuleType, k: int) -> None:
    assert bench.engine_run(k) == bench.engine_pure_run(k) == bench.baseline_run(k) == 3 * k + 2


def test_the_variants_end_with_the_baselines_memory(bench: ModuleType) -> None:
    bench.LLM.reset(3)
    effects = bench.run(bench.MACHINE, bench.Mem(), bench.SHELL).unwrap().memory
    bench.LLM.reset(3)
    reference = bench.run(bench.PURE_MACHINE, bench.Mem(), bench.SHELL).unwrap().memory
    assert effects == reference
    assert (effects.step, effects.answer, tuple(effects.history)) == (
        4,
        "done",
        ("calculator: calculator says 42",) * 3,
    )


def test_the_quick_run_prints_every_target(
    bench: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "MIN_ROUNDS", 1)
    bench.main(["--quick", "--budget", "0"])
    out = capsys.readouterr().out
    assert (
        out.count("target <= 1.5") == 2 and out.count("target <= 1.2") == 2 and out.count("target <= 5") == 2
    )
    assert "tracing installed but disabled: worst ratio" in out and "(target <= 1.03)" in out
    assert "tracing on: up to" in out


@pytest.mark.parametrize("k", [0, 3])
def test_the_traced_variants_take_the_same_transitions(bench: ModuleType, k: int) -> None:
    variants = bench.tracing_variants()
    assert variants is not None  # the otel extra is part of dev
    assert [fn(k) for fn in variants.values()] == [bench.engine_run(k)] * 2


@pytest.fixture(scope="module")
def floor() -> ModuleType:
    return load_benchmark("effects_floor")


@pytest.fixture(scope="module")
def floors_engine(floor: ModuleType) -> ModuleType:
    """The ``engine`` module the floor script imported (running it imports it under that name)."""
    return sys.modules["engine"]


@pytest.mark.parametrize("k", [0, 1, 3, 50])
def test_the_floor_loops_do_the_effects_variants_work(
    floor: ModuleType, floors_engine: ModuleType, k: int
) -> None:
    kept: list[object] = []
    loops = (floor.floor_run, floor.floor_with_journal_run, floor.bare_with_journal_run)
    assert [loop(k, kept) for loop in loops] == [floors_engine.engine_run(k)] * 3
    floors_engine.LLM.reset(k)
    done = floors_engine.run(floors_engine.MACHINE, floors_engine.Mem(), floors_engine.SHELL).unwrap()
    assert kept == [done.memory] * 3
    assert done.memory.step == k + 1 and len(done.memory.history) == k


def test_the_floor_calls_the_machines_own_handlers_and_performers(
    floor: ModuleType, floors_engine: ModuleType
) -> None:
    engine = floors_engine
    called: set[object] = set()
    for entry in floor.FLOOR_STATES.values():
        called.update(entry if isinstance(entry, tuple) else (entry,))
    assert called == {engine.idle, engine.plan, engine.planned, engine.act, engine.acted, engine.observe}
    shell_performers = {
        engine.Consult: engine.SHELL.performers.find(engine.Consult()),
        engine.UseTool: engine.SHELL.performers.find(engine.UseTool("calculator")),
    }
    assert shell_performers == floor.FLOOR_PERFORMERS
    memory = engine.Mem(step=1, pending="calculator")
    for state, bare_request in ((engine.S.PLANNING, floor.plan_bare), (engine.S.ACTING, floor.act_bare)):
        request, receive = floor.FLOOR_STATES[id(state)]
        assert tuple(request(memory).unwrap()) == bare_request(memory)
        assert floor.BARE_STATES[id(state)] == (bare_request, receive)
    assert len(floor.FLOOR_TABLE) == len(engine.MACHINE.table)


def test_the_floors_quick_run_prints_its_worst_ratios(
    floor: ModuleType,
    floors_engine: ModuleType,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(floors_engine, "MIN_ROUNDS", 1)
    floor.main(["--quick", "--budget", "0"])
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines()[4:7]] == ["3", "100", "1000"]
    assert "worst ratio of the floor " in out and "of the bare+journal " in out
    assert "engine over the floor+journal: at most" in out


@pytest.fixture(scope="module")
def history() -> ModuleType:
    return load_benchmark("history")


@pytest.mark.parametrize("copied", [False, True])
def test_the_history_benchmark_carries_the_history_in_its_effects(history: ModuleType, copied: bool) -> None:
    seen: list[int] = []

    def consult(effect: object) -> str:
        seen.append(len(effect.history))  # type: ignore[attr-defined]  # a Consult of the loaded module
        return str(history.LLM())

    performers = history.SHELL.performers.on(history.Consult, consult)
    history.LLM.reset(3)
    done = history.run(history.MACHINE, history.Mem(copied=copied), history.Shell(performers)).unwrap()
    assert done.steps == 3 * 3 + 2 and seen == [0, 1, 2, 3]
    assert [e.data for e in done.trace if e.event == "request Consult"][-1] == "Consult messages=3"


def test_the_history_benchmark_prints_both_targets(
    history: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    history.main(["--quick", "--budget", "0"])
    out = capsys.readouterr().out
    assert out.count("target <= 1.2") == 1 and out.count("linear in K") == 2


@pytest.fixture(scope="module")
def server() -> ModuleType:
    return load_benchmark("server")


@pytest.mark.parametrize("llm", ["scripted", "streaming"])
async def test_the_stream_benchmark_runs_the_same_run_every_way(server: ModuleType, llm: str) -> None:
    scripted, streaming = server.agents().values()
    agent = scripted if llm == "scripted" else streaming
    steps = {
        await server.through_arun(agent),
        await server.through_astream(agent),
        await server.through_frame(agent),
        await server.hooked(agent, server._nothing),
    }
    assert len(steps) == 1 and steps.pop() > 2 * server.TOOL_CALLS
    answers = [event async for event in agent.astream() if type(event).__name__ == "LlmTextDelta"]
    assert ("".join(delta.text for delta in answers) == server.ANSWER) is (llm == "streaming")


def test_the_stream_benchmark_swaps_the_hook_and_puts_it_back(server: ModuleType) -> None:
    hook = getattr(server.provider_module, server.HOOK)
    with server.stream_hook(server._nothing):
        assert getattr(server.provider_module, server.HOOK) is server._nothing
    assert getattr(server.provider_module, server.HOOK) is hook


def test_the_stream_section_prints_its_targets(
    server: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server, "MIN_ROUNDS", 1)
    server.measure_stream(0.0, batch=1)  # the serving sections: tests/test_benchmark_serving.py
    out = capsys.readouterr().out
    assert "a run consumed through astream (streaming provider): ratio" in out and "(target <= 1.3)" in out
    assert "the same with no IO at all (scripted LLM, the worst case): ratio" in out
    assert "of which the stream's frame (its task and buffer, no history event):" in out
    assert "1.3x with this frame leaves" in out and "one history event built and buffered alone:" in out
    assert "a run with no consumer (stream hook vs none): worst ratio" in out and "(target <= 1.03)" in out


def test_the_results_benchmark_prints_the_validation_cost_of_both_classes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = load_benchmark("results")
    assert results.main(["--no-stream", "--quick"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("scripted LLM (no IO), validation per result in µs")
    assert "flat (Verdict, 3 fields)" in lines[1] and "nested 3 levels (Invoice, 5 lines)" in lines[2]
    assert results.result_type(results.Invoice).check(results.INVOICE_JSON).unwrap().number == "INV-7"
