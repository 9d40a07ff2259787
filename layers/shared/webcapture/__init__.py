"""webcapture: the shared core of the capture API (rules, models, AWS access)."""

__version__ = "1.0.0"
