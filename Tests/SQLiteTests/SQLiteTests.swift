// Tests for SQLite.
