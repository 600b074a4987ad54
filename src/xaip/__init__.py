"""xaip: explain planning agents to the people who work with them."""

__version__ = "0.1.0"
