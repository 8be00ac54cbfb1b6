"""Rules about asking and deciding: whom a framework asks (``asking``), where a decision goes (``decisions``) and
what takes effect while a decision waits (``early_effects``)."""
