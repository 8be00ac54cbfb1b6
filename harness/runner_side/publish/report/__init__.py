"""``evidence/report.html`` and ``evidence/scorecard.svg``: the teaching views, written from the evidence documents.

``scorecard`` sorts the measured facts into the scorecard's rows (the rule table's findings and the contract's stages)
and draws it as SVG; ``views`` extracts what each scenario's page and the loop's replay show; ``page`` writes the one
self-contained HTML file (styles and script inline, no request leaves the file); ``budget`` states what each part of
the page may take. Everything is derived from the evidence by rule, so two runs of the same code on the same evidence
give the same bytes.
"""
