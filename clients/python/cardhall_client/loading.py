"""Loading a bot: ``path/to/file.py:function`` (or ``package.module:function``) to a callable; and asking it."""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
import traceback
from collections.abc import Callable, Mapping
from typing import Any

Choose = Callable[[dict[str, Any]], dict[str, Any]]


class BadBot(ValueError):
    """A bot spec that names no bot: no such file or module, or no such function in it."""


class NoMove(Exception):
    """A bot's answer that is no move: it raised, or returned something other than a move object."""


def ask(choose: Choose, view: dict[str, Any]) -> Mapping[str, Any]:
    """The move ``choose`` makes of ``view``; :class:`NoMove` if it raises or returns no move object (a dict).
    Whoever asks plays the first legal move instead, so that a game never stalls on a bot's bug."""
    try:
        move = choose(view)
    except Exception as error:
        raise NoMove(f"the bot raised {type(error).__name__}: {error}") from error
    if not isinstance(move, Mapping):
        raise NoMove(f"the bot returned {move!r}, which is no move object (a dict such as {view['legal_moves'][0]!r})")
    return move


def load_bot(spec: str) -> Choose:
    """The function ``spec`` names; ``choose`` when no function is named."""
    source, _, function = spec.rpartition(":") if ":" in spec else (spec, ":", "choose")
    module = _load_module(source)
    try:
        found = getattr(module, function or "choose")
    except AttributeError:
        raise BadBot(f"{source} has no function {function!r}") from None
    if not callable(found):
        raise BadBot(f"{spec} is not a function")
    return found


def _load_module(source: str) -> Any:
    path = pathlib.Path(source)
    if source.endswith(".py") or path.exists():
        if not path.is_file():
            raise BadBot(f"no bot file {source}")
        module_spec = importlib.util.spec_from_file_location(f"cardhall_bot_{path.stem}", path)
        assert module_spec is not None and module_spec.loader is not None
        module = importlib.util.module_from_spec(module_spec)
        try:
            module_spec.loader.exec_module(module)
        except Exception as error:
            raise BadBot(_not_loaded(f"the bot file {source}", error)) from error
        return module
    try:
        return importlib.import_module(source)
    except ModuleNotFoundError as error:
        if error.name is None or not f"{source}.".startswith(f"{error.name}."):  # (one the bot's module imports)
            raise BadBot(_not_loaded(f"the bot module {source}", error)) from error
        raise BadBot(f"no bot file or module {source}") from None
    except Exception as error:
        raise BadBot(_not_loaded(f"the bot module {source}", error)) from error


def _not_loaded(what: str, error: Exception) -> str:
    """Why ``what`` did not load: the error and the lines of the bot's own code it came from (a syntax error's
    line and caret), without the frames of the loading machinery before them."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if not frame.filename.startswith("<frozen ") and pathlib.Path(frame.filename).resolve() != _HERE]
    said = "".join(traceback.format_list(frames) + traceback.format_exception_only(error)).rstrip()
    return f"{what} does not load:\n{said}"


_HERE = pathlib.Path(__file__).resolve()
