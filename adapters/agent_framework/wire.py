"""The wire mode's model of the Agent Framework column: its documented OpenAI-compatible chat client aimed at the server.

``agent_framework.openai.OpenAIChatCompletionClient`` (the ``agent-framework-openai`` package, pinned in this column's
lock) is the client the docs teach for Chat Completions endpoints, OpenAI's or any compatible one, with ``base_url``
(https://learn.microsoft.com/en-us/agent-framework/agents/providers/openai). Only the address, a dummy key and a neutral
model name are set: the openai client it builds (its retries and timeout) and its message conversion stay at their
defaults, so the wire measures them. It calls ``POST <base_url>/chat/completions``.
"""

from __future__ import annotations

from agent_framework.openai import OpenAIChatCompletionClient

MODEL_NAME = "scripted-model"  # neutral: no provider's name
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_client(base_url: str) -> OpenAIChatCompletionClient:
    """``OpenAIChatCompletionClient`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``)."""
    return OpenAIChatCompletionClient(model=MODEL_NAME, base_url=base_url, api_key=API_KEY)
