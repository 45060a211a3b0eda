// Module SQLite: see shared DESIGN.md for its job. Contents arrive with its issue.
