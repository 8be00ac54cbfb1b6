"""The wire mode's model of the Pydantic AI column: ``OpenAIChatModel`` with an ``OpenAIProvider`` aimed at the server.

Follows Pydantic AI's documentation for an OpenAI-compatible endpoint it has no provider of its own for
(https://ai.pydantic.dev/models/compatible-apis/#other-endpoints, linked from the "OpenAI-compatible Models" section of
https://ai.pydantic.dev/models/openai/): ``OpenAIChatModel(model_name, provider=OpenAIProvider(base_url=..., api_key=...))``
for a Chat Completions endpoint, which needs the ``pydantic-ai-slim[openai]`` extra pinned in this column's lock. Only the address, a dummy key and a neutral model name
are set: the provider's client (its retries and timeout), the model's profile and its strict-schema handling stay at
their defaults, so the wire measures them. It calls ``POST <base_url>/chat/completions``.
"""

from __future__ import annotations

from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

MODEL_NAME = "scripted-model"  # neutral: no provider's name, so the generic OpenAI profile applies
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_model(base_url: str) -> OpenAIChatModel:
    """``OpenAIChatModel`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``), defaults untouched."""
    return OpenAIChatModel(MODEL_NAME, provider=OpenAIProvider(base_url=base_url, api_key=API_KEY))
