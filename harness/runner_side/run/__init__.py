"""Stage 1, run: a sandboxed process per column (runner, processes, users, sandbox), its isolated environment, the
scripted OpenAI-compatible server of the wire mode, the glue count and the line-traced second run that checks it.

The runner turns each raw record into its observation as it arrives (``harness.runner_side.observe``): a race is a
difference of observables between two runs. No module here imports ``judge`` or ``publish``."""
