"""The ``cardhall`` command: ``serve``, ``db upgrade`` and the bot authors' tools."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

#: Subcommands register here: name -> (add its arguments, run it).
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, add_arguments: Callable[[argparse.ArgumentParser], None]):  # type: ignore[no-untyped-def]
    """Register a subcommand."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (add_arguments, run)
        return run

    return decorate


def parser() -> argparse.ArgumentParser:
    """The command line parser with every registered subcommand."""
    from cardhall_cli import (
        accounts,  # noqa: F401  (registers accounts)
        bots,  # noqa: F401  (registers bot and arena)
        ratings,  # noqa: F401  (registers ratings)
        records,  # noqa: F401  (registers record)
        server,  # noqa: F401  (registers serve and db)
        simulate,  # noqa: F401  (registers simulate)
    )
    top = argparse.ArgumentParser(prog="cardhall", description="Cardhall: card games as a service.")
    sub = top.add_subparsers(dest="command", required=True)
    for name, (add_arguments, run) in COMMANDS.items():
        sub_parser = sub.add_parser(name, help=(run.__doc__ or "").strip().splitlines()[0])
        add_arguments(sub_parser)
        sub_parser.set_defaults(run=run)
    return top


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cardhall`` command."""
    from cardhall_client.loading import BadBot

    args = parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except BadBot as error:  # (a mistyped bot path or function: said in a line, as every other mistake)
        print(f"cardhall {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # (whoever read the output stopped, as `| head` does: no traceback for it)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (Python's own advice: the exit's flush)
        return 1


if __name__ == "__main__":
    sys.exit(main())
