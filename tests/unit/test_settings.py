"""A server's settings as the operator gives them (api.settings, ``cardhall serve``'s options), without a server:
what each variable and option sets, and what is refused before anything starts."""

from __future__ import annotations

from api.settings import Settings
from cardhall_cli import parser
from cardhall_cli.server import _settings


def served(*options: str, **environ: str) -> dict[str, str]:
    """The variables ``cardhall serve`` with ``options`` hands its workers, its environment being ``environ``."""
    return _settings(Settings.from_environment(environ), parser().parse_args(["serve", *options]), environ).environment()


def test_the_idle_limits_fall_back_to_their_variables_then_to_a_day() -> None:
    assert served()["CARDHALL_ABANDON_AFTER"] == served()["CARDHALL_EXPIRE_WAITING_AFTER"] == "86400.0"
    given = served(CARDHALL_ABANDON_AFTER="2h", CARDHALL_EXPIRE_WAITING_AFTER="off")
    assert (given["CARDHALL_ABANDON_AFTER"], given["CARDHALL_EXPIRE_WAITING_AFTER"]) == ("7200.0", "")
    assert served(CARDHALL_ABANDON_AFTER="90")["CARDHALL_ABANDON_AFTER"] == "90.0"
    options = served("--abandon-after", "30m", "--expire-waiting-after", "off", CARDHALL_ABANDON_AFTER="2h",
                     CARDHALL_EXPIRE_WAITING_AFTER="2h")
    assert (options["CARDHALL_ABANDON_AFTER"], options["CARDHALL_EXPIRE_WAITING_AFTER"]) == ("1800.0", "")
