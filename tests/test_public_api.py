"""Every package's public surface is exactly its sorted ``__all__``, and one public name is one concept."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types
from collections import defaultdict

import pytest

import agentsm_fn
import verification


def _isort_key(name: str) -> tuple[int, str]:
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


def packages() -> list[types.ModuleType]:
    found: list[types.ModuleType] = []
    for root in (agentsm_fn, verification):
        found.append(root)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{root.__name__}."):
            if info.ispkg:
                found.append(importlib.import_module(info.name))
    return [p for p in found if hasattr(p, "__all__")]


def modules() -> list[types.ModuleType]:
    """Every module of agentsm_fn and verification (packages too), except ``__main__`` scripts."""
    found: list[types.ModuleType] = []
    for root in (agentsm_fn, verification):
        found.append(root)
        for info in pkgutil.walk_packages(root.__path__, prefix=f"{root.__name__}."):
            if info.name.rsplit(".", 1)[-1] != "__main__":  # a script: importing it runs the CLI
                found.append(importlib.import_module(info.name))
    return found


MAY_SHARE_A_NAME = frozenset({"State", "Event"})
"""Each built-in agent calls its own state and event enums State and Event (its package says which)."""


def public_names() -> dict[str, dict[int, list[str]]]:
    """Every name in any ``__all__``: the objects it stands for (by id) and the modules exporting each."""
    names: dict[str, dict[int, list[str]]] = defaultdict(lambda: defaultdict(list))
    for module in modules():
        for name in getattr(module, "__all__", ()):
            names[name][id(getattr(module, name))].append(module.__name__)
    return names


def test_one_public_name_stands_for_one_object() -> None:
    clashes = {
        name: sorted(", ".join(where) for where in objects.values())
        for name, objects in public_names().items()
        if len(objects) > 1 and name not in MAY_SHARE_A_NAME
    }
    assert not clashes, f"one name, several objects (rename one; the modules exporting each): {clashes}"


def test_the_allowed_shared_names_really_are_per_agent_enums() -> None:
    names = public_names()
    for name in MAY_SHARE_A_NAME:
        exporters = {tuple(sorted(where)) for where in names[name].values()}
        assert {where[0] for where in exporters} == {
            "agentsm_fn.agents.plan_execute",
            "agentsm_fn.agents.react",
        }


def test_the_clash_check_sees_every_module() -> None:
    seen = {module.__name__ for module in modules()}
    assert {"agentsm_fn.providers.events", "verification.kit._runner", "agentsm_fn.shell.react_agent"} <= seen


@pytest.mark.parametrize("package", packages(), ids=lambda p: p.__name__)
def test_all_is_sorted_and_exact(package: types.ModuleType) -> None:
    exported = list(package.__all__)
    assert exported in (sorted(exported), sorted(exported, key=_isort_key)), "__all__ must be sorted"
    assert len(set(exported)) == len(exported), "__all__ has duplicates"
    for name in exported:
        assert hasattr(package, name), f"{package.__name__}.{name} is in __all__ but missing"
    public = {
        name
        for name, value in vars(package).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    }
    assert public == set(exported), f"public names not in __all__: {sorted(public - set(exported))}"


def test_core_packages_define_all() -> None:
    names = {p.__name__ for p in packages()}
    assert {"agentsm_fn", "agentsm_fn.core", "agentsm_fn.shell", "agentsm_fn.llm"} <= names


def test_importing_the_library_does_not_import_heavy_or_io_dependencies() -> None:
    heavy = "('httpx', 'networkx', 'hypothesis', 'opentelemetry', 'rich', 'mcp', 'mcp_types', 'anyio', "
    heavy += (
        "'temporalio', 'fastapi', 'starlette', 'uvicorn', 'sse_starlette', 'pydantic', 'agentsm_fn.server', "
        "'psycopg', 'psycopg_pool')"
    )
    code = f"import sys, agentsm_fn; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"


def test_importing_the_temporal_integration_does_not_import_opentelemetry() -> None:
    code = "import sys, agentsm_fn.temporal; "
    code += "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
