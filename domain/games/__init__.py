"""The built-in games, Craits and Scat: each registers through its entry point (``pyproject.toml``)."""
