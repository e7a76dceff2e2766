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
