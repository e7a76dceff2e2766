"""The shape of the code: dependencies point inward (STYLE.md, habit 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def imported_top_levels(package: Path) -> dict[str, set[str]]:
    """Every top-level module each file of ``package`` imports."""
    found: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
        found[str(path.relative_to(ROOT))] = names
    return found


def test_the_domain_imports_only_the_standard_library_and_itself():
    allowed = set(sys.stdlib_module_names) | {"domain", "__future__"}
    offenders = {file: names - allowed for file, names in imported_top_levels(ROOT / "domain").items()}
    assert {file: names for file, names in offenders.items() if names} == {}


def test_the_domain_draws_no_randomness_and_reads_no_clock():
    forbidden = {"random", "time", "datetime", "uuid", "secrets", "os", "socket"}
    offenders = {file: names & forbidden for file, names in imported_top_levels(ROOT / "domain").items()}
    assert {file: names for file, names in offenders.items() if names} == {}


LINT_IMPORTS = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def test_the_import_contracts_hold():
    """import-linter: layers api > service > persistence > domain; api never touches SQLAlchemy."""
    result = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_lints_clean():
    """ruff, with the rules in pyproject.toml."""
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr


MAX_MODULE_LINES = 400


def test_no_module_of_the_service_or_the_persistence_is_longer_than_400_lines():
    """A module past this is asking to be split by concept (STYLE.md, "Size and words")."""
    lengths = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
               for package in ("service", "persistence") for path in (ROOT / package).rglob("*.py")}
    assert {file: lines for file, lines in lengths.items() if lines > MAX_MODULE_LINES} == {}


def test_nothing_outside_the_service_reaches_into_its_store_or_its_cache():
    """The HTTP layer and the command line ask the service; only service/ holds ``.store`` and ``.cache``."""
    reaching: dict[str, list[int]] = {}
    for package in ("api", "cardhall_cli"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Attribute) and node.attr in {"store", "cache"} \
                        and not (isinstance(node.value, ast.Name) and node.value.id == "functools"):
                    reaching.setdefault(str(path.relative_to(ROOT)), []).append(node.lineno)
    assert reaching == {}
