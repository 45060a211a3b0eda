-- Enforcement at the edge (docs/device-api.md "Enforcement: the verdict where the API is"). An environment's mode for
-- calls no route matches, and its routes in order (the first that matches a call judges it); a route's `mode` NULL
-- takes the environment's.
ALTER TABLE environments ADD COLUMN enforcement_mode TEXT NOT NULL DEFAULT 'off' CHECK (enforcement_mode IN ('off', 'monitor', 'enforce'));
CREATE TABLE enforcement_routes (
    environment_id      TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    position            BIGINT NOT NULL,
    name                TEXT NOT NULL,
    pattern             TEXT NOT NULL,            -- the route's `match`: METHOD or *, a space, a path pattern
    mode                TEXT CHECK (mode IN ('off', 'monitor', 'enforce')),
    require_bound       BIGINT NOT NULL CHECK (require_bound IN (0, 1)),
    require_attestation BIGINT NOT NULL CHECK (require_attestation IN (0, 1)),
    require_debug       BIGINT NOT NULL CHECK (require_debug IN (0, 1)),
    consume             BIGINT NOT NULL CHECK (consume IN (0, 1)),
    PRIMARY KEY (environment_id, position),
    UNIQUE (environment_id, name)
);
-- The judged calls per environment, hour, route, source (`edge`: this server's check; `backend`: reported by a
-- backend's middleware) and outcome: incremented, never overwritten, so that several servers add to one hour.
CREATE TABLE enforcement_outcomes (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    hour           BIGINT NOT NULL,
    route          TEXT NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('edge', 'backend')),
    outcome        TEXT NOT NULL,
    count          BIGINT NOT NULL,
    PRIMARY KEY (environment_id, hour, route, source, outcome)
);
CREATE INDEX enforcement_outcomes_by_hour ON enforcement_outcomes(hour);
