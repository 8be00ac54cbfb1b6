"""The wire mode's model of the AgentScope column: ``agentscope.model.OpenAIChatModel`` with an ``OpenAICredential``.

AgentScope 2.x separates a provider's credential from its chat model (https://docs.agentscope.io/latest/en/building-blocks/model/overview);
``OpenAICredential.base_url`` is documented in 2.0.11's source as "Can be used for OpenAI-compatible endpoints", and
``OpenAIChatModel`` hands ``api_key`` and ``base_url`` to the ``openai.AsyncClient`` it builds. (The 1.x tutorial,
https://doc.agentscope.io/tutorial/task_model.html, taught ``client_kwargs={"base_url": ...}``; 2.x keeps
``client_kwargs`` for other client options and takes the address from the credential.) Only the address, a dummy key
and a neutral model name are set: streaming (on by default), AgentScope's own retries around the client's and the
client's timeout stay at their defaults, so the wire measures them. It calls ``POST <base_url>/chat/completions``.
"""

from __future__ import annotations

from agentscope.credential import OpenAICredential
from agentscope.model import OpenAIChatModel
from pydantic import SecretStr

MODEL_NAME = "scripted-model"  # neutral: no provider's name
API_KEY = "wire-dummy-key"  # the scripted server ignores it; the client refuses to start without one


def wire_model(base_url: str) -> OpenAIChatModel:
    """``OpenAIChatModel`` aimed at ``base_url`` (``http://127.0.0.1:<port>/<token>/<run>/<step>/v1``), defaults untouched."""
    return OpenAIChatModel(credential=OpenAICredential(api_key=SecretStr(API_KEY), base_url=base_url), model=MODEL_NAME)
