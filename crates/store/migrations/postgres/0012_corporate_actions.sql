-- The splits and cash dividends applied to the positions held when the simulated market crossed
-- their ex-dates: one row per account, instrument, ex-date and kind, which is what makes an
-- action apply once however many nodes cross the date. Quantities and money are decimal text;
-- `ex_day` is a New York day (days since 1970-01-01), `time` wall-clock milliseconds.
CREATE TABLE corporate_action_entries (
    entry_id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id      TEXT NOT NULL REFERENCES accounts (account_id),
    instrument_id   BIGINT NOT NULL REFERENCES instruments (instrument_id),
    symbol          TEXT NOT NULL,
    ex_day          INTEGER NOT NULL,
    kind            TEXT NOT NULL CHECK (kind IN ('SPLIT', 'DIVIDEND')),
    value           TEXT NOT NULL,
    quantity_before TEXT NOT NULL,
    quantity_after  TEXT NOT NULL,
    cash            TEXT NOT NULL,
    time            BIGINT NOT NULL,
    UNIQUE (account_id, instrument_id, ex_day, kind)
);
CREATE INDEX corporate_action_entries_by_account ON corporate_action_entries (account_id, entry_id);

-- PostgreSQL only: the transaction that last wrote each account, as `orders.changed`, so that a
-- node following an account's orders (its claims) sees a change of its cash or positions that no
-- order made: a dividend, a split.
ALTER TABLE accounts ADD COLUMN changed xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE FUNCTION accounts_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed := pg_current_xact_id();
    RETURN NEW;
END
$$;

CREATE TRIGGER accounts_changed BEFORE INSERT OR UPDATE ON accounts
    FOR EACH ROW EXECUTE FUNCTION accounts_changed();
