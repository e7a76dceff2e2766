"""Persistence: the event store port and its backends (SQLite, PostgreSQL, memory)."""
