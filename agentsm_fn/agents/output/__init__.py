"""Typed results: what an agent gives back, described as a JSON Schema and checked in pure code.

A :class:`ResultType` (made by :func:`result_type` from an attrs class, a TypedDict or a JSON
Schema) carries an :class:`OutputSpec` (name and schema, the data an agent's memory holds and
its requests send) and checks a reply's text into a value or every :class:`OutputProblem`;
a reply that fails is kept as a :class:`RejectedOutput`, whose feedback goes back to the model.
"""

from agentsm_fn.agents.output.check import json_path, parse_reply, schema_problems
from agentsm_fn.agents.output.failure import OutputInvalidError
from agentsm_fn.agents.output.result_type import (
    TEXT,
    OutputCheck,
    ResultKind,
    ResultT,
    ResultType,
    Validator,
    result_type,
)
from agentsm_fn.agents.output.values import OutputProblem, OutputSpec, RejectedOutput

__all__ = [
    "TEXT",
    "OutputCheck",
    "OutputInvalidError",
    "OutputProblem",
    "OutputSpec",
    "RejectedOutput",
    "ResultKind",
    "ResultT",
    "ResultType",
    "Validator",
    "json_path",
    "parse_reply",
    "result_type",
    "schema_problems",
]
