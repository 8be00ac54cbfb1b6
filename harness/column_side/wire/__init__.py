"""The wire mode inside a column process: the kill fault of a wire run (``kill``) and its warm-up (``warmup``)."""
