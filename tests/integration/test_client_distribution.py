"""The client for bot authors is a distribution of its own (clients/python): its wheel, built as pip builds it,
holds the package ``cardhall_client`` alone, requires httpx alone (the arena's ratings and tables in an extra),
declares the runner ``cardhall-bot``, and runs with nothing of the server importable."""

from __future__ import annotations

import configparser
import email.parser
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
#: What the arena extra brings, and the client's modules that import it.
ARENA_MODULES = {"report", "standings"}
#: Started with the wheel alone on its path: these must not be needed (the server's distributions and packages,
#: the generic names the client once had, and the arena extra).
ABSENT = {"flask", "sqlalchemy", "psycopg", "alembic", "domain", "persistence", "service", "api", "bots", "web",
          "client", "cardhall_cli", "rich", "openskill"}
RUNNER_FROM_THE_WHEEL = """
import importlib, importlib.abc, pkgutil, sys
wheel, absent, arena = sys.argv[1], set(sys.argv[2].split(",")), set(sys.argv[3].split(","))

class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in absent:
            raise ModuleNotFoundError(f"{name} is not installed with the client")

sys.meta_path.insert(0, NotInstalled())
sys.path.insert(0, wheel)
import cardhall_client
assert cardhall_client.__file__.startswith(wheel), cardhall_client.__file__
for module in pkgutil.iter_modules(cardhall_client.__path__):
    if module.name not in arena:
        importlib.import_module(f"cardhall_client.{module.name}")
from cardhall_client.cli import main
main(["--help"])
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    work = tmp_path_factory.mktemp("client-wheel")
    # A copy, so the build leaves nothing in the clone. Build isolation: pip installs the backend the client's
    # pyproject.toml names (setuptools >= 77, for its SPDX licence), whatever setuptools this environment holds.
    source = shutil.copytree(CLIENT, work / "source", ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(work / "dist"), str(source)],
                   check=True, capture_output=True, timeout=600)
    [built] = (work / "dist").glob("cardhall_client-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield archive


def dist_info(wheel: zipfile.ZipFile, name: str) -> str:
    [path] = [path for path in wheel.namelist() if re.fullmatch(rf"[^/]+\.dist-info/{name}", path)]
    return wheel.read(path).decode()


def names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower() for requirement in requirements}


def test_the_wheel_installs_one_top_level_package_cardhall_client(wheel):
    top_levels = {path.split("/")[0] for path in wheel.namelist() if ".dist-info/" not in path}
    assert top_levels == {"cardhall_client"}
    assert dist_info(wheel, "top_level.txt").split() == ["cardhall_client"]


def test_the_client_requires_httpx_alone_and_the_arena_s_ratings_and_tables_only_in_its_extra(wheel):
    requires = email.parser.Parser().parsestr(dist_info(wheel, "METADATA")).get_all("Requires-Dist")
    assert names([requirement for requirement in requires if "extra ==" not in requirement]) == {"httpx"}
    assert names([requirement for requirement in requires if 'extra == "arena"' in requirement]) == {"rich", "openskill"}


def test_the_wheel_declares_the_runner_as_the_command_cardhall_bot(wheel):
    entry_points = configparser.ConfigParser()
    entry_points.read_string(dist_info(wheel, "entry_points.txt"))
    assert dict(entry_points["console_scripts"]) == {"cardhall-bot": "cardhall_client.cli:main"}


def test_the_runner_from_the_wheel_starts_with_nothing_of_the_server_importable(wheel, tmp_path):
    wheel.extractall(tmp_path)
    result = subprocess.run([sys.executable, "-I", "-c", RUNNER_FROM_THE_WHEEL, str(tmp_path), ",".join(ABSENT),
                             ",".join(ARENA_MODULES)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: cardhall-bot") and "--concurrency" in result.stdout
