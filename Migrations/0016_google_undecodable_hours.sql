-- Per-address budgets and IPv6 (docs/device-api.md "Per-address budgets and IPv6"): calls to Google for tokens Google
-- could not decode, per environment and UTC hour (`hour`: unix seconds of its start), across every server, held
-- against the hourly cap (`--google-undecodable-per-hour`); `refused` counts the tokens answered
-- googleBudgetExceeded without a call because the cap was reached, which the checklist's android.googleQuota names.
CREATE TABLE google_undecodable_hours (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    hour           INTEGER NOT NULL,
    undecodable    INTEGER NOT NULL DEFAULT 0,
    refused        INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (environment_id, hour)
) WITHOUT ROWID;
CREATE INDEX google_undecodable_hours_by_hour ON google_undecodable_hours(hour);
