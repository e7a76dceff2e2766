"""Shared pytest configuration."""

pytest_plugins = ["tests.pg"]
