"""The shared world every column meets: scenarios, fixture tools and their side-effect
ledger, fault points, the scripted model, framework-neutral observables, the
process-supervising driver and the canonical evidence writer.

It stays light (the standard library, jsonschema and the engine's building blocks),
because every framework's isolated environment imports it too.
"""
