"""Validate sent requests against the published OpenAPI documents in ../shared/protocols/specs.

OpenAI's document still marks 111 schemas ``nullable: true``, which JSON Schema
validators ignore; they are rewritten to allow ``null`` first. The Ollama
document is YAML (read with PyYAML when it is installed).
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from functools import cache

import jsonschema
import pytest

from tests.providers.conftest import SPECS

Check = Callable[[dict[str, object]], None]


def _nullable(node: object) -> object:
    if isinstance(node, list):
        return [_nullable(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _nullable(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif kind is None:
            return {"anyOf": [out, {"type": "null"}]}
    return out


def _checker(document: dict[str, object], schema_name: str) -> Check:
    root = {"$ref": f"#/components/schemas/{schema_name}", "components": document["components"]}
    validator = jsonschema.Draft202012Validator(root)

    def check(body: dict[str, object]) -> None:
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, f"{schema_name}: " + "; ".join(
            f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]
        )

    return check


@cache
def openai_checker() -> Check | None:
    path = SPECS / "openai-openapi.json.gz"
    if not path.is_file():
        return None
    document = _nullable(json.loads(gzip.decompress(path.read_bytes())))
    assert isinstance(document, dict)
    return _checker(document, "CreateChatCompletionRequest")


@cache
def ollama_checkers() -> dict[str, Check]:
    path = SPECS / "ollama-openapi.yaml"
    if not path.is_file():
        return {}
    yaml = pytest.importorskip("yaml", reason="PyYAML reads the Ollama OpenAPI document")
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict)
    return {
        "/api/chat": _checker(document, "ChatRequest"),
        "/api/generate": _checker(document, "GenerateRequest"),
    }


def assert_matches_spec(path: str, body: dict[str, object]) -> None:
    """Validate against the published spec when ../shared is present (the SDK types apply regardless)."""
    sent = {k: v for k, v in body.items() if not k.startswith("_")}
    if path == "/v1/chat/completions":
        check = openai_checker()
        if check is not None:
            check(sent)
    elif path in ("/api/chat", "/api/generate"):
        checks = ollama_checkers()
        if path in checks:
            checks[path](sent)
