"""``cardhall serve`` and ``cardhall db upgrade``."""

from __future__ import annotations

import argparse
import os
import sys

from cardhall_cli import command


def _serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")
    parser.add_argument("--workers", type=int, default=1, help="gunicorn worker processes (default 1)")
    parser.add_argument("--threads", type=int, default=32,
                        help="threads per worker: long-polls and streams each hold one (default 32)")
    parser.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                        help="let scripts of this site (e.g. https://example.org) call the API and its "
                             "streams; repeatable (default: none)")


@command("serve", _serve_arguments)
def serve(args: argparse.Namespace) -> int:
    """Start the HTTP server (gunicorn), migrating the database first."""
    from service.bootstrap import database_url, open_service

    url = database_url(args.database)
    open_service(url, migrate=True).store.close()
    os.environ["CARDHALL_DATABASE_URL"] = url
    os.environ["CARDHALL_SKIP_MIGRATIONS"] = "1"
    os.environ["CARDHALL_CORS_ORIGINS"] = " ".join(args.cors_origin)
    argv = [
        "gunicorn",
        "--bind", f"{args.host}:{args.port}",
        "--workers", str(args.workers),
        "--worker-class", "gthread",
        "--threads", str(args.threads),
        "--timeout", "120",
        "--graceful-timeout", "10",
        "--keep-alive", "5",
        "--access-logfile", "-",
        "api.wsgi:app",
    ]
    print(f"cardhall: serving {_redacted(url)} on http://{args.host}:{args.port}", file=sys.stderr, flush=True)
    os.execvp(sys.executable, [sys.executable, "-m", *argv])
    return 0  # not reached


def _redacted(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://***@{rest.split('@', 1)[1]}"
    return url


def _db_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["upgrade"], help="upgrade: apply every migration")
    parser.add_argument("--database", help="database URL (default CARDHALL_DATABASE_URL or sqlite:///cardhall.db)")


@command("db", _db_arguments)
def db(args: argparse.Namespace) -> int:
    """Manage the database schema (``cardhall db upgrade``)."""
    import persistence
    from service.bootstrap import database_url

    url = database_url(args.database)
    persistence.upgrade(url)
    print(f"cardhall: {_redacted(url)} is at the latest schema", file=sys.stderr)
    return 0
