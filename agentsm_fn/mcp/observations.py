"""A tool call's result as the text the model reads (pure).

Text blocks are kept as they are; everything else is described in one bracketed line:
``[image image/png, 1,234 bytes]``, ``[audio audio/wav, ...]``,
``[resource link 'README' file:///README.md (text/markdown): the project readme]``,
an embedded text resource as its header line followed by its text, a binary one by its
size. Structured content is added as JSON only when the result has no text block: servers
are asked to send its serialized form as text too (the SDK's servers do, and wrap a plain
value as ``{"result": value}``), and the model reads that text. An ``isError`` result is a
``Failure`` with the same text, so the model reads what went wrong.
"""

from __future__ import annotations

import json

import mcp_types as types
from returns.result import Failure, Result, Success

__all__ = ["describe_block", "result_outcome", "result_text"]


def _decoded_size(data: str) -> int:
    """The number of bytes the base64 text ``data`` decodes to (without decoding it)."""
    stripped = data.strip()
    return max(0, len(stripped) * 3 // 4 - stripped[-2:].count("="))


def _mime(value: str | None) -> str:
    return value or "unknown type"


def describe_block(block: types.ContentBlock) -> str:
    """One content block as text.

    Example:
        >>> describe_block(types.TextContent(text="4"))
        '4'
        >>> describe_block(types.ImageContent(data="iVBORw0KGgo=", mime_type="image/png"))
        '[image image/png, 8 bytes]'
        >>> describe_block(types.ResourceLink(name="notes", uri="file:///notes.txt", mime_type="text/plain"))
        "[resource link 'notes' file:///notes.txt (text/plain)]"
    """
    match block:
        case types.TextContent():
            return block.text
        case types.ImageContent():
            return f"[image {_mime(block.mime_type)}, {_decoded_size(block.data):,} bytes]"
        case types.AudioContent():
            return f"[audio {_mime(block.mime_type)}, {_decoded_size(block.data):,} bytes]"
        case types.ResourceLink():
            about = f": {block.description}" if block.description else ""
            return f"[resource link {block.name!r} {block.uri} ({_mime(block.mime_type)}){about}]"
        case types.EmbeddedResource():
            resource = block.resource
            if isinstance(resource, types.TextResourceContents):
                return f"[resource {resource.uri} ({_mime(resource.mime_type)})]\n{resource.text}"
            size = _decoded_size(resource.blob)
            return f"[resource {resource.uri} ({_mime(resource.mime_type)}), {size:,} bytes]"
    kind = getattr(block, "type", type(block).__name__)  # pragma: no cover - a block type of a later protocol
    return f"[{kind} content]"  # pragma: no cover


def result_text(result: types.CallToolResult) -> str:
    """The whole result as text: every block in order; the structured content if no block is text.

    Example:
        >>> result_text(types.CallToolResult(content=[types.TextContent(text="5")],
        ...                                  structured_content={"result": 5}))
        '5'
        >>> result_text(types.CallToolResult(content=[], structured_content={"sky": "clear"}))
        '{"sky": "clear"}'
    """
    parts = [describe_block(block) for block in result.content]
    structured = result.structured_content
    if structured is not None and not any(isinstance(block, types.TextContent) for block in result.content):
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


def result_outcome(result: types.CallToolResult) -> Result[str, str]:
    """``Success(text)``, or ``Failure(text)`` for an ``isError`` result (a tool failure, not a crash).

    Example:
        >>> result_outcome(types.CallToolResult(content=[types.TextContent(text="no such file")],
        ...                                     is_error=True))
        <Failure: no such file>
    """
    text = result_text(result)
    return Failure(text or "the tool reported an error") if result.is_error else Success(text)
