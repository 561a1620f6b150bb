"""What the three provider examples share: a weather tool, the command line, and the run.

Not an example itself: ``openai_agent.py``, ``anthropic_agent.py`` and ``ollama_agent.py``
each say only how to build their provider from the parsed arguments, and which
environment variables reach the real service.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping, Sequence

import attrs
from _common import finish

from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.providers import HttpProvider, StreamEvent, TextDelta, ToolCallStarted
from agentsm_fn.shell.react_agent import AgentBuilder

WEATHER = {"paris": "sunny, 21 C", "rome": "rainy, 17 C"}
CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def get_weather(city: str) -> str:
    """A local stand-in for a weather API."""
    return WEATHER.get(city.lower(), "no data")


def show(event: StreamEvent) -> None:
    """Print streamed text as it arrives, and each tool call as it starts."""
    if isinstance(event, TextDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, ToolCallStarted):
        print(f"\n[calling {event.name}]", flush=True)


def _answer(done: ReactCompleted) -> None:
    print(f"\nanswer: {done.answer}\n\n{done.trace.render()}")


@attrs.frozen(kw_only=True)
class ProviderExample:
    """One provider example: its help text, defaults, and how it builds its provider.

    ``env`` lists the variables of which any one reaches the real service; without any
    of them and without ``--base-url`` the example explains and exits 2.
    """

    doc: str
    default_model: str
    base_url_help: str
    env: tuple[str, ...]
    make: Callable[[argparse.Namespace], HttpProvider]
    options: Callable[[argparse.ArgumentParser], None] = lambda _parser: None

    def parser(self) -> argparse.ArgumentParser:
        """The command line shared by the three examples, plus this one's ``options``."""
        parser = argparse.ArgumentParser(
            description=self.doc, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        parser.add_argument("--base-url", help=self.base_url_help)
        parser.add_argument("--model", default=self.default_model)
        parser.add_argument("--question", default="What is the weather in Paris?")
        parser.add_argument("--no-stream", action="store_true", help="wait for whole replies, do not stream")
        self.options(parser)
        return parser

    def main(self, argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
        """Parse ``argv``, build the provider, run the weather agent, print its answer and trace."""
        args = self.parser().parse_args(argv)
        if not (args.base_url or any(env.get(name) for name in self.env)):
            wanted = " or ".join(self.env)
            print(f"set {wanted}, or pass --base-url (e.g. a local aimock)", file=sys.stderr)
            return 2
        provider = self.make(args)
        agent = (
            AgentBuilder.new(args.question)
            .llm(provider)
            .tool("get_weather", "Current weather for a city", CITY, get_weather)
            .build()
            .unwrap()
        )
        with provider:
            result = agent.run()
        return finish(result, _answer)
