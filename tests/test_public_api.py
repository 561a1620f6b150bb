"""Every package's public surface is exactly its sorted ``__all__``."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
import types

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
    heavy = "('httpx', 'networkx', 'hypothesis')"
    code = f"import sys, agentsm_fn; print(sorted(m for m in {heavy} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert out.strip() == "[]"
