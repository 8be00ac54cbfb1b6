"""The ``wire`` mode's runner side: the scripted OpenAI-compatible server and what its records show."""
