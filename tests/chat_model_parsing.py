"""Contract cells the LangChain and LangGraph columns share: both get the scripted model through a LangChain chat model
that parses a tool call's arguments as ``ChatOpenAI`` does (``adapters/scripted_chat_model.py``), before any glue sees
the call, so no glue can keep the contract there:

- JSON that is not an object makes ``AIMessage`` raise pydantic's ``ValidationError``: the run ends in it, the model
  never corrects the call (``args_not_an_object``, rule ``invalid_args_ended_run``);
- text that is not JSON becomes an invalid tool call, which the agent does not answer: the run ends on that turn, so the
  model's corrected call never comes (``malformed_args_not_json``, ``turns_never_asked`` and ``ran_less_often``);
- empty text and ``null`` become ``{}``, valid for a tool with no required field, so it runs (``args_empty_or_null``,
  ``invalid_args_ran``)."""

PARSED_BEFORE_GLUE = {
    **dict.fromkeys([("args_not_an_object", n) for n in ("status", "step_statuses")], "invalid_args_ended_run"),
    ("args_not_an_object", "model"): "turns_never_asked",
    ("args_not_an_object", "side_effects"): "ran_less_often",
    ("malformed_args_not_json", "model"): "turns_never_asked",
    ("malformed_args_not_json", "side_effects"): "ran_less_often",
    **dict.fromkeys([("args_empty_or_null", n) for n in ("schema_failure_side_effects", "side_effects")], "invalid_args_ran"),
}
"""Cell -> the rule whose reason explains it."""
