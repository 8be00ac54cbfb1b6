"""The judge: why a framework's cell differs from the engine's, and whether the reasons explain it.

Each rule (``judge/rules``, registered by ``judge.registry``) reads the two runs of a case: the observables and the
facts they come from (what each driver step added to the ledger, killed, left pending, granted, delivered, resumed; the
model's requests; the wire's records). When its condition holds it says what happened, with the call ids, steps and
counts inline, and claims the differing leaves it accounts for, each with the value its facts imply there. A framework
contributes nothing but the names of its mechanisms (``module:qualname``) and the constants read from its pinned
environment.

The public face (docs/findings.md):

- ``reasons(case)``: every reason the rules derive for a case, in the rules' order;
- ``explain(name, engine_value, framework_value, found)``: a not-equal cell's text, the rules behind it, and whether
  every differing leaf holds the value a claim derives (``found``: what ``reasons(case)`` returned);
- ``Case`` (``engine`` and ``framework``, each a ``Run``) and ``Run`` (``observables``: the observable name to its value,
  and the facts);
- ``case_from_record(evidence_dir, column, mode, key)``: the case of one stored record, built from the evidence and
  the scenario files exactly as the comparison builds it (``case_of``, the one builder).
"""

from __future__ import annotations

import harness.runner_side.judge.rules  # noqa: F401  (registers every rule, in order)
from harness.runner_side.judge.case import Case, StoredEvidence, case_from_record, case_of, engine_of
from harness.runner_side.judge.explain import UNEXPLAINED, differing_paths, explain, value_at
from harness.runner_side.judge.registry import UndeclaredRule, consequences, declared, functions, mcp_rules, rules, stage_rules, titles, wire_rules
from harness.runner_side.judge.values import ABSENT, Claim, Reason, Run, reason_record, run_of

__all__ = [
    "ABSENT", "UNEXPLAINED", "Case", "Claim", "Reason", "Run", "StoredEvidence", "case_from_record", "case_of", "consequences", "differing_paths",
    "engine_of", "explain", "mcp_rules", "reason_record", "reasons", "rules", "run_of", "stage_rules", "titles", "value_at", "wire_rules",
]


def reasons(case: Case) -> list[Reason]:
    """Every reason the rules derive for this case, in the rules' order; a reason whose id its function did not
    declare is refused (``UndeclaredRule``)."""
    found = []
    for function in functions():
        ids = declared(function)
        for reason in function(case):
            if reason.rule not in ids:
                raise UndeclaredRule(f"{function.__module__}:{function.__qualname__} yielded rule {reason.rule!r}, which it does not declare with @rule")
            found.append(reason)
    return found
