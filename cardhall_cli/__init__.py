"""The ``cardhall`` command: ``serve``, ``db upgrade`` and the bot authors' tools."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

#: Subcommands register here: name -> (add its arguments, run it).
COMMANDS: dict[str, tuple[Callable[[argparse.ArgumentParser], None], Callable[[argparse.Namespace], int]]] = {}


def command(name: str, add_arguments: Callable[[argparse.ArgumentParser], None]):  # type: ignore[no-untyped-def]
    """Register a subcommand."""

    def decorate(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS[name] = (add_arguments, run)
        return run

    return decorate


class _Intermixed(argparse.ArgumentParser):
    """A subcommand's parser that takes its options and positionals in any order, as its usage line shows them
    (options first): plain argparse takes a positional list that may be empty (``cardhall bot run [BOT]``) as
    empty where an option follows the subcommand, and then refuses the positional given after the options."""

    _intermixing = False

    def parse_known_args(self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None,
                         ) -> tuple[argparse.Namespace, list[str]]:
        if self._intermixing:  # (parse_known_intermixed_args reads the arguments with this, twice)
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False


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
    sub = top.add_subparsers(dest="command", required=True, parser_class=_Intermixed)
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
