// Module HTTPServer: see shared DESIGN.md for its job. Contents arrive with its issue.
