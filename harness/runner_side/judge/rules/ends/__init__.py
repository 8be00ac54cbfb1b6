"""Rules about how a run ends: in an exception (``run_ends``) or by a stop the contract asks for, or fails to
(``stops``: the step bound, a kill point, a resume, an uncertain outcome)."""
