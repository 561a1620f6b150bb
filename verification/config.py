"""The ``[tool.agentsm_fn]`` table of pyproject.toml: machines, diagrams, format, ignores, policies.

Example table::

    [tool.agentsm_fn]
    machines = ["mypkg.agent:MACHINE"]      # MODULE:ATTRIBUTE, checked in this order
    format = "text"                         # text | json | sarif
    diagrams = "docs/diagrams"              # optional: write diagrams here
    diagram_formats = ["mermaid"]           # mermaid | dot | markdown

    [[tool.agentsm_fn.ignore]]              # per-property ignores; a reason is required
    code = "SM009"
    machine = "mypkg.agent:MACHINE"         # optional: every machine when omitted
    reason = "the loop is bounded by the provider's rate limit"

    [[tool.agentsm_fn.policy]]              # optional policy checks
    machine = "mypkg.agent:MACHINE"
    from = "Planning"
    to = "Acting"
    through = "WaitingForHuman"             # or: never = "DeleteEverything"

    [[tool.agentsm_fn.explore]]             # agentsm-verify --explore (verification.explore_settings)
    machine = "mypkg.agent:MACHINE"
    starts = "mypkg.explore:STARTS"

Every problem is collected into one :class:`ConfigError` value.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

import attrs
from returns.result import Failure, Result, Success

from verification.explore_settings import ExploreSettings, parse_explore
from verification.findings import property_for
from verification.policies import NeverReachable, PassesThrough, PathPolicy
from verification.verify import Ignore

__all__ = ["Config", "ConfigError", "DiagramFormat", "Format", "read_config"]

Format = Literal["text", "json", "sarif"]
"""A report format."""
DiagramFormat = Literal["mermaid", "dot", "markdown"]
"""A diagram format."""

FORMATS: tuple[Format, ...] = ("text", "json", "sarif")
DIAGRAM_FORMATS: tuple[DiagramFormat, ...] = ("mermaid", "dot", "markdown")


@attrs.frozen(kw_only=True)
class Config:
    """What ``[tool.agentsm_fn]`` says (defaults when a key is absent).

    Example:
        >>> Config().format, Config().diagram_formats
        ('text', ('mermaid',))
    """

    machines: tuple[str, ...] = ()
    format: Format = "text"
    diagrams: str | None = None
    diagram_formats: tuple[DiagramFormat, ...] = ("mermaid",)
    ignores: tuple[tuple[str | None, Ignore], ...] = ()
    """``(machine spec or None for all, ignore)`` pairs."""
    policies: tuple[tuple[str, PathPolicy], ...] = ()
    explorations: tuple[ExploreSettings, ...] = ()

    def ignores_for(self, spec: str) -> tuple[Ignore, ...]:
        """The ignores that apply to the machine ``spec``."""
        return tuple(i for m, i in self.ignores if m in (None, spec))

    def policies_for(self, spec: str) -> tuple[PathPolicy, ...]:
        """The policies declared for the machine ``spec``."""
        return tuple(p for m, p in self.policies if m == spec)


@attrs.frozen
class ConfigError:
    """The configuration file is unreadable or wrong; ``problems`` lists each problem.

    Example:
        >>> str(ConfigError("pyproject.toml", ("format must be one of text, json, sarif",)))
        'pyproject.toml: format must be one of text, json, sarif'
    """

    path: str
    problems: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.path}: " + "; ".join(self.problems)


def _strings(value: object, key: str, problems: list[str]) -> tuple[str, ...]:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(str(v) for v in value)
    problems.append(f"{key} must be a list of strings")
    return ()


def _ignores(value: object, problems: list[str]) -> tuple[tuple[str | None, Ignore], ...]:
    if not isinstance(value, list):
        problems.append("ignore must be an array of tables ([[tool.agentsm_fn.ignore]])")
        return ()
    found: list[tuple[str | None, Ignore]] = []
    for n, item in enumerate(value, start=1):
        where = f"ignore #{n}"
        if not isinstance(item, dict):
            problems.append(f"{where} must be a table")
            continue
        code, reason, machine = item.get("code"), item.get("reason"), item.get("machine")
        if not isinstance(code, str):
            problems.append(f'{where} needs code = "SM0.."')
            continue
        try:
            property_for(code)
        except KeyError as exc:
            problems.append(f"{where}: {exc.args[0]}")
            continue
        if not isinstance(reason, str) or not reason.strip():
            problems.append(f"{where} ({code}) needs a non-empty reason")
            continue
        if machine is not None and not isinstance(machine, str):
            problems.append(f"{where}: machine must be a MODULE:ATTRIBUTE string")
            continue
        found.append((machine, Ignore(code, reason)))
    return tuple(found)


def _policies(value: object, problems: list[str]) -> tuple[tuple[str, PathPolicy], ...]:
    if not isinstance(value, list):
        problems.append("policy must be an array of tables ([[tool.agentsm_fn.policy]])")
        return ()
    found: list[tuple[str, PathPolicy]] = []
    for n, item in enumerate(value, start=1):
        where = f"policy #{n}"
        if not isinstance(item, dict) or not isinstance(item.get("machine"), str):
            problems.append(f'{where} must be a table with machine = "MODULE:ATTRIBUTE"')
            continue
        machine = str(item["machine"])
        path = [item.get(k) for k in ("from", "to", "through")]
        never = item.get("never")
        if all(isinstance(p, str) for p in path) and never is None:
            found.append((machine, PassesThrough(str(path[0]), str(path[1]), str(path[2]))))
        elif isinstance(never, str) and all(p is None for p in path):
            found.append((machine, NeverReachable(never)))
        else:
            problems.append(f"{where} needs either from, to and through, or never (state names)")
    return tuple(found)


def parse_config(table: dict[str, object], path: str = "pyproject.toml") -> Result[Config, ConfigError]:
    """Read a ``[tool.agentsm_fn]`` table already parsed from TOML.

    Example:
        >>> parse_config({"machines": ["m:M"], "format": "json"}).unwrap().format
        'json'
        >>> str(parse_config({"format": "xml", "colour": 1}).failure())
        'pyproject.toml: unknown key colour; format must be one of text, json, sarif'
    """
    problems: list[str] = []
    known = {"machines", "format", "diagrams", "diagram_formats", "ignore", "policy", "explore"}
    problems.extend(f"unknown key {k}" for k in table if k not in known)
    machines = _strings(table.get("machines", []), "machines", problems)
    fmt = table.get("format", "text")
    if fmt not in FORMATS:
        problems.append(f"format must be one of {', '.join(FORMATS)}")
    diagrams = table.get("diagrams")
    if diagrams is not None and not isinstance(diagrams, str):
        problems.append("diagrams must be a directory path")
    kinds = _strings(table.get("diagram_formats", ["mermaid"]), "diagram_formats", problems)
    problems.extend(
        f"diagram format {k} is not one of {', '.join(DIAGRAM_FORMATS)}"
        for k in kinds
        if k not in DIAGRAM_FORMATS
    )
    ignores = _ignores(table.get("ignore", []), problems)
    policies = _policies(table.get("policy", []), problems)
    explorations = parse_explore(table.get("explore", []), problems)
    if problems:
        return Failure(ConfigError(path, tuple(problems)))
    return Success(
        Config(
            machines=machines,
            format=next(f for f in FORMATS if f == fmt),
            diagrams=diagrams if isinstance(diagrams, str) else None,
            diagram_formats=tuple(d for d in DIAGRAM_FORMATS if d in kinds),
            ignores=ignores,
            policies=policies,
            explorations=explorations,
        )
    )


def read_config(path: Path) -> Result[Config, ConfigError]:
    """Read ``[tool.agentsm_fn]`` from the TOML file at ``path`` (defaults when the table is absent).

    Example:
        >>> read_config(Path("/no/such/pyproject.toml")).failure().problems[0][:14]
        'cannot read it'
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return Failure(ConfigError(str(path), (f"cannot read it ({type(exc).__name__}: {exc})",)))
    except tomllib.TOMLDecodeError as exc:
        return Failure(ConfigError(str(path), (f"invalid TOML ({exc})",)))
    tool = data.get("tool", {})
    table = tool.get("agentsm_fn", {}) if isinstance(tool, dict) else {}
    if not isinstance(table, dict):
        return Failure(ConfigError(str(path), ("[tool.agentsm_fn] must be a table",)))
    return parse_config(table, str(path))
