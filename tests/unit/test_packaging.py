"""What ``pip install`` reads: a licence setuptools takes without a deprecation, the packages only the
benchmarks use kept out of the server's and the tests' installs, in a ``bench`` extra their scripts name, and the
client for bot authors a distribution of its own that the server requires (its wheel:
tests/integration/test_client_distribution.py)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
CLIENT_ROOT = ROOT / "clients" / "python"
CLIENT = tomllib.loads((CLIENT_ROOT / "pyproject.toml").read_text())["project"]
#: The packages only the benchmarks use: those the import-linter contract forbids to everything Cardhall ships.
[BENCH_ONLY] = [set(contract["forbidden_modules"]) for contract in PYPROJECT["tool"]["importlinter"]["contracts"]
                if contract["name"].startswith("Nothing Cardhall ships imports")]


def names(requirements: list[str]) -> set[str]:
    return {re.match(r"[A-Za-z0-9_.-]+", requirement)[0].lower() for requirement in requirements}


def imported(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return found | {node.module.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.ImportFrom) and node.module and not node.level}


def test_the_licence_is_an_spdx_expression_with_its_file_in_the_repository():
    # (a table, {text = "MIT"}, is what setuptools >= 77 warns about on every install)
    assert isinstance(PROJECT["license"], str) and re.fullmatch(r"[A-Za-z0-9.-]+", PROJECT["license"])
    assert PROJECT["license"] in (ROOT / "LICENSE").read_text()


def test_packages_only_the_benchmarks_use_are_in_the_bench_extra_alone():
    extras = PROJECT["optional-dependencies"]
    assert names(extras["bench"]) >= BENCH_ONLY
    assert not BENCH_ONLY & (names(PROJECT["dependencies"]) | names(extras["test"]))


def test_a_benchmark_that_needs_the_bench_extra_says_so_in_its_usage():
    # (that nothing Cardhall ships imports them is the contract itself: tests/unit/test_architecture.py)
    needing = [path for path in sorted((ROOT / "bench").glob("*.py")) if imported(path) & BENCH_ONLY]
    assert needing, "no benchmark imports a package of the bench extra"
    for path in needing:
        assert ".[bench]" in (ast.get_docstring(ast.parse(path.read_text())) or ""), path.name


def test_the_client_is_a_distribution_of_its_own_that_the_server_requires_at_its_version_with_the_arena_extra():
    assert CLIENT["name"] == "cardhall-client" and CLIENT["requires-python"] == PROJECT["requires-python"]
    assert f"cardhall-client[arena]=={CLIENT['version']}" in PROJECT["dependencies"]
    assert not any(name.startswith("client") for name in PYPROJECT["tool"]["setuptools"]["packages"]["find"]["include"])


def test_the_client_imports_the_standard_library_and_what_its_distribution_requires_the_arena_extra_where_declared():
    required, arena = names(CLIENT["dependencies"]), names(CLIENT["optional-dependencies"]["arena"])
    outside = {path.name: imported(path) - set(sys.stdlib_module_names) - {"__future__", "cardhall_client"} - required
               for path in sorted((CLIENT_ROOT / "cardhall_client").glob("*.py"))}
    assert {name: found for name, found in outside.items() if found} == {"report.py": {"rich"},
                                                                       "standings.py": {"openskill"}}
    assert {"rich", "openskill"} == arena
