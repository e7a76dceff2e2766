"""The OpenAPI document shows each error code's own example answer, and its version is the package's."""

from __future__ import annotations

import importlib.metadata

import yaml

from api.openapi import generate


def spec() -> dict:
    return yaml.safe_load(generate())


def test_the_documents_version_is_the_packages():
    assert spec()["info"]["version"] == importlib.metadata.version("cardhall")


def test_every_problem_answer_shows_one_example_per_error_code_with_that_code_and_status():
    shown: set[str] = set()
    for path in spec()["paths"].values():
        for operation in (value for method, value in path.items() if method != "parameters"):
            for status, answer in operation.get("responses", {}).items():
                problem = answer.get("content", {}).get("application/problem+json")
                if problem is None:
                    continue
                examples = problem["examples"]
                assert examples, f"{operation['operationId']} {status}"
                for code, example in examples.items():
                    assert example["value"]["code"] == code and example["value"]["status"] == int(status)
                    shown.add(code)
    assert {"illegal_move", "not_your_turn", "version_conflict", "seat_abandoned", "rate_limited"} <= shown
