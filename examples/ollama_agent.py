"""A ReAct agent on Ollama's native /api/chat (tool arguments as objects, NDJSON streaming).

Real server:    OLLAMA_HOST=http://127.0.0.1:11434 python examples/ollama_agent.py [--model llama3.2]
Local aimock:   python examples/ollama_agent.py --base-url http://127.0.0.1:4010
                (start it with: node "$(bash scripts/aimock.sh)" --port 4010 -f tests/fixtures/aimock)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from returns.result import Failure, Success

from agentsm_fn.agents.react.builder import AgentBuilder
from agentsm_fn.agents.react.result import Completed
from agentsm_fn.providers import StreamEvent, TextDelta, ToolCallStarted, ollama_provider

WEATHER = {"paris": "sunny, 21 C", "rome": "rainy, 17 C"}


def get_weather(city: str) -> str:
    """A local stand-in for a weather API."""
    return WEATHER.get(city.lower(), "no data")


def show(event: StreamEvent) -> None:
    if isinstance(event, TextDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, ToolCallStarted):
        print(f"\n[calling {event.name}]", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", help="Ollama URL (default: OLLAMA_HOST)")
    parser.add_argument("--model", default="llama3.2")
    parser.add_argument("--question", default="What is the weather in Paris?")
    parser.add_argument("--no-stream", action="store_true", help="wait for whole replies, do not stream")
    args = parser.parse_args(argv)
    if not (args.base_url or os.environ.get("OLLAMA_HOST")):
        print("set OLLAMA_HOST, or pass --base-url (a local Ollama or aimock)", file=sys.stderr)
        return 2
    provider = ollama_provider(args.model, base_url=args.base_url, stream=not args.no_stream, on_event=show)
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    agent = (
        AgentBuilder.new(args.question)
        .llm(provider)
        .tool("get_weather", "Current weather for a city", schema, get_weather)
        .build()
        .unwrap()
    )
    with provider:
        result = agent.run()
    match result:
        case Success(Completed() as done):
            print(f"\nanswer: {done.answer}\n\n{done.trace.render()}")
            return 0
        case Success(other):
            print(f"\nthe run paused: {other}", file=sys.stderr)
            return 1
        case Failure(error):
            print(f"\nthe run failed: {error}", file=sys.stderr)
            return 1
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
