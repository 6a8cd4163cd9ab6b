"""nbgrad's version (``nbgrad.__version__``; keep in step with pyproject.toml)."""

__version__ = "0.1.0"
