-- The splits and cash dividends applied to the positions held when the simulated market crossed
-- their ex-dates: one row per account, instrument, ex-date and kind, which is what makes an
-- action apply once however many nodes cross the date. Quantities and money are decimal text;
-- `ex_day` is a New York day (days since 1970-01-01), `time` wall-clock milliseconds.
CREATE TABLE corporate_action_entries (
    entry_id        INTEGER PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (account_id),
    instrument_id   INTEGER NOT NULL REFERENCES instruments (instrument_id),
    symbol          TEXT NOT NULL,
    ex_day          INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('SPLIT', 'DIVIDEND')),
    value           TEXT NOT NULL,
    quantity_before TEXT NOT NULL,
    quantity_after  TEXT NOT NULL,
    cash            TEXT NOT NULL,
    time            INTEGER NOT NULL,
    UNIQUE (account_id, instrument_id, ex_day, kind)
);
CREATE INDEX corporate_action_entries_by_account ON corporate_action_entries (account_id, entry_id);
