CREATE TABLE google_undecodable_hours (
    environment_id TEXT NOT NULL REFERENCES environments(id) ON DELETE CASCADE,
    hour           BIGINT NOT NULL,
    undecodable    BIGINT NOT NULL DEFAULT 0,
    refused        BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (environment_id, hour)
);
CREATE INDEX google_undecodable_hours_by_hour ON google_undecodable_hours(hour);
