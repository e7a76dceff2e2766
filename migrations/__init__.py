"""Alembic migrations: the only owner of the database schema (run by ``persistence.upgrade``)."""
