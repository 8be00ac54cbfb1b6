"""The wire mode's model of the OpenAI Agents SDK column: the SDK's default model class over an ``AsyncOpenAI`` client.

The SDK's models page (https://openai.github.io/openai-agents-python/models/) teaches giving an ``Agent`` a ``Model``
instance built on your own ``AsyncOpenAI(base_url=..., api_key=...)`` for any OpenAI-compatible provider. The model
class is the one the SDK uses by default, ``OpenAIResponsesModel``
(https://openai.github.io/openai-agents-python/ref/models/openai_responses/), so the column calls
``POST <base_url>/responses`` as an application on the SDK's defaults would (``OpenAIChatCompletionsModel`` would
measure another API). Only the address, a dummy key and a neutral model name are set: the client's retries and timeout
and the SDK's strict tool schemas stay at their defaults, so the wire measures them. The model is passed to the agent
explicitly rather than installed with ``set_default_openai_client``: a process-wide default would outlive the step.
"""

from __future__ import annotations

from agents import OpenAIResponsesModel
from openai import AsyncOpenAI

MODEL_NAME = "scripted-model"  # neutral: no OpenAI model's name, so no model-specific default settings apply
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_model(base_url: str) -> OpenAIResponsesModel:
    """``OpenAIResponsesModel`` on an ``AsyncOpenAI`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``)."""
    return OpenAIResponsesModel(model=MODEL_NAME, openai_client=AsyncOpenAI(base_url=base_url, api_key=API_KEY))
