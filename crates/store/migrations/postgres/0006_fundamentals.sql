-- Fundamentals no public file carries (signet's JSON Lines layout, or generated for the demo):
-- one JSON object per record, checked on import.
CREATE TABLE fundamentals (
    instrument_id BIGINT NOT NULL REFERENCES instruments (instrument_id),
    data_set      TEXT NOT NULL,
    record_key    TEXT NOT NULL,
    payload       TEXT NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('IMPORTED', 'GENERATED')),
    PRIMARY KEY (instrument_id, data_set, record_key)
);

CREATE INDEX instruments_by_industry ON instruments (industry);
