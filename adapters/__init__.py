"""Columns of the comparison besides the hand-written reference: one package per agent runtime."""
