"""``cardhall accounts create``: an operator makes an account (an admin one too) on the database itself."""

from __future__ import annotations

import argparse
import sys

from cardhall_cli import command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["create"], help="create: a new account; its first key is printed once")
    parser.add_argument("name", help="1-32 letters, digits, '-' or '_' (unique without regard to case)")
    parser.add_argument("--kind", choices=["bot", "person"], default="bot", help="bot (the default) or person")
    parser.add_argument("--description", default="", help="a line about the account")
    parser.add_argument("--admin", action="store_true",
                        help="its key may also create accounts over HTTP where sign-up is closed (serve --accounts closed)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")


@command("accounts", _arguments)
def accounts(args: argparse.Namespace) -> int:
    """Manage accounts (``cardhall accounts create NAME``): prints the new account's key, once."""
    from cardhall_cli.server import database_of
    from domain.errors import DomainError
    from service.accounts import ADMIN, SCOPES
    from service.bootstrap import open_service

    games = open_service(database_of(args.database))
    try:
        created = games.accounts.create_account(args.name, args.kind, args.description,
                                                scopes=(*SCOPES, ADMIN) if args.admin else SCOPES, operator=True)
    except DomainError as error:
        print(f"cardhall: {error.message}", file=sys.stderr)
        return 1
    finally:
        games.close()
    print(created["key"])
    print(f"cardhall: account {created['name']} ({created['kind']}) created with scopes "
          f"{' '.join(created['scopes'])}; the key above is shown only now", file=sys.stderr)
    return 0
