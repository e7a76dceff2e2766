"""A server's settings as the operator gives them (api.settings, ``cardhall serve``'s options), without a server:
what each variable and option sets, and what is refused before anything starts."""

from __future__ import annotations

import importlib.util

import pytest

from api.settings import Settings, redacted
from cardhall_cli import parser
from cardhall_cli.server import settings_for


def served(*options: str, **environ: str) -> dict[str, str]:
    """The variables ``cardhall serve`` with ``options`` hands its workers, its environment being ``environ``."""
    return settings_for(parser().parse_args(["serve", *options]), environ).environment()


def test_a_variable_an_option_replaces_is_neither_read_nor_refused() -> None:
    environ = {"CARDHALL_ACCOUNTS": "bogus", "CARDHALL_DATABASE_URL": "cardhall.db", "CARDHALL_ABANDON_AFTER": "soon"}
    with pytest.raises(ValueError, match=r"CARDHALL_(ACCOUNTS|DATABASE_URL|ABANDON_AFTER)="):
        served(**environ)
    given = served("--accounts", "closed", "--database", "sqlite:///x.db", "--abandon-after", "2h", **environ)
    assert (given["CARDHALL_ACCOUNTS"], given["CARDHALL_DATABASE_URL"]) == ("closed", "sqlite:///x.db")
    assert float(given["CARDHALL_ABANDON_AFTER"]) == 7200


def test_the_idle_limits_fall_back_to_their_variables_then_to_a_day() -> None:
    assert served()["CARDHALL_ABANDON_AFTER"] == served()["CARDHALL_EXPIRE_WAITING_AFTER"] == "86400.0"
    given = served(CARDHALL_ABANDON_AFTER="2h", CARDHALL_EXPIRE_WAITING_AFTER="off")
    assert (given["CARDHALL_ABANDON_AFTER"], given["CARDHALL_EXPIRE_WAITING_AFTER"]) == ("7200.0", "")
    assert served(CARDHALL_ABANDON_AFTER="90")["CARDHALL_ABANDON_AFTER"] == "90.0"
    options = served("--abandon-after", "30m", "--expire-waiting-after", "off", CARDHALL_ABANDON_AFTER="2h",
                     CARDHALL_EXPIRE_WAITING_AFTER="2h")
    assert (options["CARDHALL_ABANDON_AFTER"], options["CARDHALL_EXPIRE_WAITING_AFTER"]) == ("1800.0", "")


REFUSED = {  # a variable's text -> the start of what the operator is told
    "CARDHALL_ACCOUNTS": ("closd", "must be open or closed"),
    "CARDHALL_RATE_LIMIT": ("garbage", "not a rate limit"),
    "CARDHALL_CREATE_RATE_LIMIT": ("lots", "not a rate limit"),
    "CARDHALL_READ_RATE_LIMIT": ("0/second", "not a rate limit"),
    "CARDHALL_ACCOUNT_RATE_LIMIT": ("off", "not a rate limit"),
    "CARDHALL_RATE_LIMIT_STORAGE": ("bogus://x", "not a storage the limits library knows"),
    "CARDHALL_FORWARDED_ALLOW_IPS": ("10.0.0.1, localhost", "'localhost' is not an IP address (only addresses and networks"),
    "CARDHALL_SQLITE_SYNCHRONOUS": ("bogus", "must be full or normal"),
    "CARDHALL_LOG_FORMAT": ("xml", "must be text or json"),
    "CARDHALL_WEBHOOKS_ALLOW_PRIVATE": ("maybe", "must be one of 1, true, yes, on"),
    "CARDHALL_SKIP_MIGRATIONS": ("2", "must be one of 1, true, yes, on"),
    "CARDHALL_MAX_HEADERS": ("0", "must be at least 32"),
    "CARDHALL_MAX_HEAD_BYTES": ("100", "must be at least 8192"),
    "CARDHALL_DB_POOL_SIZE": ("-1", "must be at least 1"),
    "CARDHALL_DB_MAX_OVERFLOW": ("-1", "must be at least 0"),
    "CARDHALL_THREADS": ("x", "not a whole number"),
    "CARDHALL_HEAD_TIMEOUT": ("0", "must be more than 0"),
    "CARDHALL_IDLE_TIMEOUT": ("nan", "not a finite number"),
    "CARDHALL_SWEEP_SECONDS": ("-1", "must be at least 0"),
    "CARDHALL_MAX_CONNECTIONS_PER_ADDRESS": ("0", "must be at least 1"),
    "CARDHALL_WEBHOOK_FAILURES_TO_OPEN": ("0", "must be at least 1"),
    "CARDHALL_ABANDON_AFTER": ("-5", "not a duration"),
    "CARDHALL_DATABASE_URL": ("notaurl", "not a database URL"),
}


@pytest.mark.parametrize("variable", sorted(REFUSED))
def test_a_variable_the_server_cannot_run_with_is_refused_by_name_and_why(variable: str) -> None:
    text, why = REFUSED[variable]
    with pytest.raises(ValueError) as refused:
        Settings.from_environment({variable: text})
    assert str(refused.value).startswith(f"{variable}={text!r}: {why}")


def test_an_option_is_read_as_its_variable_and_refused_by_its_name() -> None:
    for options, said in [(("--max-headers", "0"), "--max-headers '0': must be at least 32"),
                          (("--forwarded-allow-ips", "localhost"), "--forwarded-allow-ips 'localhost': 'localhost' is not"),
                          (("--accounts", "closd"), "--accounts 'closd': must be open or closed"),
                          (("--database", "notaurl"), "--database 'notaurl': not a database URL")]:
        with pytest.raises(ValueError) as refused:
            served(*options)
        assert str(refused.value).startswith(said)
    given = served("--accounts", "Closed", "--log-format", "JSON", "--forwarded-allow-ips", "10.0.0.2,10.1.0.0/16")
    assert given.items() >= {"CARDHALL_ACCOUNTS": "closed", "CARDHALL_LOG_FORMAT": "json",
                             "CARDHALL_FORWARDED_ALLOW_IPS": "10.0.0.2 10.1.0.0/16"}.items()


def test_the_usual_spellings_of_a_setting_take_effect() -> None:
    settings = Settings.from_environment({
        "CARDHALL_ACCOUNTS": "CLOSED", "CARDHALL_LOG_FORMAT": "JSON", "CARDHALL_SQLITE_SYNCHRONOUS": "Normal",
        "CARDHALL_WEBHOOKS_ALLOW_PRIVATE": "true", "CARDHALL_SKIP_MIGRATIONS": "yes", "CARDHALL_FORWARDED_ALLOW_IPS": "*",
        "CARDHALL_RATE_LIMIT": "OFF", "CARDHALL_RATE_LIMIT_STORAGE": "cardhall+sqlite:///tmp/x.db"})
    assert (settings.accounts, settings.log_format, settings.sqlite_synchronous) == ("closed", "json", "normal")
    assert settings.webhooks_allow_private and settings.skip_migrations and settings.rate_limit == "off"
    assert settings.limits.forwarded_allow_ips == ("*",)
    assert not Settings.from_environment({"CARDHALL_WEBHOOKS_ALLOW_PRIVATE": "Off"}).webhooks_allow_private


def test_a_rate_limit_storage_whose_package_is_missing_says_what_to_install(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == "redis" else real(name, *rest))
    with pytest.raises(ValueError) as refused:
        Settings.from_environment({"CARDHALL_RATE_LIMIT_STORAGE": "redis://:hunter2@cache.internal:6379/0"})
    assert str(refused.value) == ("CARDHALL_RATE_LIMIT_STORAGE='redis://***@cache.internal:6379/0': redis:// needs the "
                                  "Python package redis, which is not installed: pip install redis (or 'limits[redis]')")


def test_a_url_is_shown_without_a_password_in_its_user_part_or_its_query() -> None:
    assert redacted("postgresql+psycopg://db.internal/cardhall?user=cardhall&password=hunter2&sslmode=require") \
        == "postgresql+psycopg://db.internal/cardhall?user=cardhall&password=***&sslmode=require"
    assert redacted("postgresql://cardhall:p@ss@db/cardhall?SSLPassword=hunter2") == "postgresql://***@db/cardhall?SSLPassword=***"
    assert redacted("sqlite:////var/lib/cardhall.db") == "sqlite:////var/lib/cardhall.db"
    assert redacted("postgresql://cardhall:s3cr?t/x@db:5432/cardhall?sslmode=require") \
        == "postgresql://***@db:5432/cardhall?sslmode=require"  # (SQLAlchemy reads the password up to the @)
    assert redacted("postgresql://db/cardhall?user=a@b.example") == "postgresql://db/cardhall?user=a@b.example"


def test_a_drivers_message_is_shown_without_the_passwords_of_its_url() -> None:
    from cardhall_cli.server import _without_secrets

    url = "postgresql://cardhall:s3cr?t/x@db:5432/cardhall?password=hunter2"
    assert _without_secrets('password "s3cr?t/x" refused; hunter2 too', url) == 'password "***" refused; *** too'
