"""AgentScope's ``OpenAIChatModel`` at its defaults stacks its own retries (``max_retries=3``) around the openai client's
(2 each): when every request of turn 1 gets HTTP 500, one model call makes 4 x 3 = 12 requests, 8 of them the client's
own retries (``x-stainless-retry-count`` above 0), then ``reply_stream`` raises ``openai.InternalServerError`` (the
contract: 3 attempts in all, no client retries, then ``model_unavailable`` with the checkpoint at the last completed
turn). The note (turn 0) asks for confirmation (default mode) and is confirmed as the driver answers a question the
contract would not have asked. The scenario's resume (driver step 1) makes no request in the column's run (it ends
``refused``), so the run here is the scenario's every request.

Documented API only (https://docs.agentscope.io/v2/building-blocks/model, .../agent, .../tool, .../permission-system),
through ``_kit.py`` (``wire_step``): ``OpenAIChatModel(credential=OpenAICredential(api_key=..., base_url=...),
model=...)`` with its default ``max_retries``
(https://github.com/agentscope-ai/agentscope/blob/main/src/agentscope/model/_base.py), ``Agent``, ``reply_stream``, a
``UserConfirmResultEvent``, the openai client's retries and errors (https://github.com/openai/openai-python#retries).
"""

from _kit import fixture_tools, wire_step

from harness.column_side.probes.kit import report, world
from harness.column_side.probes.wire import LoopbackModel, wire_counts

SCENARIO = "wire_http_500_always"
MODE = "wire"
SHOWS = ("wire.client_retries", "step_statuses.0")
SCRIPT = [{"tool_calls": [{"id": "c1", "name": "put_note", "arguments": {"key": "followup", "text": "Call the customer back on Monday."}}]},
          {"text": "The note is saved."}]

server = LoopbackModel(SCRIPT, always={1: 500})  # every request of turn 1: HTTP 500
status = wire_step(server, fixture_tools(world(), "put_note"), "Save a follow-up note.")
print("requests of turn 1 (x-stainless-retry-count):", [r["retry_count"] for r in server.requests if r["turn"] == 1])
report(SCENARIO, {k: v for k, v in {**wire_counts(server.requests, ["put_note"]), "step_statuses.0": status}.items() if k in SHOWS})
