"""Stage 4, publish: the evidence documents, FINDINGS.md, the printed table and summaries, the costs, the drift of
``--check``, the probes behind the findings, the walkthrough and ``report/`` (report.html, the scorecard).

Reads every stage before it (``run``'s results, ``observe``'s observables, ``judge``'s reasons); none of them imports it."""
