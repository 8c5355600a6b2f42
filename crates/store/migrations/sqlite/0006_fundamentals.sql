-- Fundamentals no public file carries (signet's JSON Lines layout, or generated for the demo):
-- one JSON object per record, checked on import. Statements, filings and reported EPS are not
-- stored here: they are derived from `facts`.
CREATE TABLE fundamentals (
    instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
    data_set      TEXT NOT NULL,
    -- What identifies a record within its data set ('' for one-per-instrument data sets); sorts
    -- in date order.
    record_key    TEXT NOT NULL,
    payload       TEXT NOT NULL,
    source        TEXT NOT NULL CHECK (source IN ('IMPORTED', 'GENERATED')),
    PRIMARY KEY (instrument_id, data_set, record_key)
) WITHOUT ROWID;

CREATE INDEX instruments_by_industry ON instruments (industry);
