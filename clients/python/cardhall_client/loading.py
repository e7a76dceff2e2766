"""Loading a bot: ``path/to/file.py:function`` (or ``package.module:function``) to a callable."""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
from collections.abc import Callable
from typing import Any

Choose = Callable[[dict[str, Any]], dict[str, Any]]


def load_bot(spec: str) -> Choose:
    """The function ``spec`` names; ``choose`` when no function is named."""
    source, _, function = spec.rpartition(":") if ":" in spec else (spec, ":", "choose")
    module = _load_module(source)
    try:
        found = getattr(module, function or "choose")
    except AttributeError:
        raise ValueError(f"{source} has no function {function!r}") from None
    if not callable(found):
        raise TypeError(f"{spec} is not a function")
    return found


def _load_module(source: str) -> Any:
    path = pathlib.Path(source)
    if source.endswith(".py") or path.exists():
        if not path.is_file():
            raise ValueError(f"no bot file {source}")
        module_spec = importlib.util.spec_from_file_location(f"cardhall_bot_{path.stem}", path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        return module
    return importlib.import_module(source)
