"""The mutation score of the rule table: a mutation changes one fact of a recorded run (``mutations``); ``score``
re-judges the mutant and asks whether a rule noticed (``scripts/check_reasons.py``)."""
