"""Runnable examples: ``python -m nbgrad.examples.quickstart``."""
