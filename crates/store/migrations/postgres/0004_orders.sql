-- Orders, their transitions, fills and positions. Quantities and money are decimal text; times
-- are wall-clock milliseconds since the Unix epoch.

CREATE TABLE orders (
    -- Insertion order: newest first in listings, and the pagination cursor.
    seq                     BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id                TEXT NOT NULL UNIQUE,
    account_id              TEXT NOT NULL REFERENCES accounts (account_id),
    client_order_id         TEXT NOT NULL,
    client_combo_order_id   TEXT,
    combo_type              TEXT NOT NULL,
    instrument_id           BIGINT NOT NULL REFERENCES instruments (instrument_id),
    symbol                  TEXT NOT NULL,
    side                    TEXT NOT NULL CHECK (side IN ('BUY', 'SELL', 'SHORT')),
    order_type              TEXT NOT NULL,
    time_in_force           TEXT NOT NULL,
    entrust_type            TEXT NOT NULL,
    quantity                TEXT NOT NULL,
    limit_price             TEXT,
    stop_price              TEXT,
    support_trading_session TEXT NOT NULL,
    status                  TEXT NOT NULL
        CHECK (status IN ('SUBMITTED', 'PARTIAL_FILLED', 'FILLED', 'CANCELLED', 'FAILED')),
    filled_quantity         TEXT NOT NULL,
    filled_amount           TEXT NOT NULL,
    reason                  TEXT,
    expires_at_sim          BIGINT,
    place_time              BIGINT NOT NULL,
    fill_time               BIGINT,
    update_time             BIGINT NOT NULL,
    -- A client order id is used once per account, for ever: concurrent duplicates meet here.
    UNIQUE (account_id, client_order_id)
);
CREATE INDEX orders_open ON orders (status) WHERE status IN ('SUBMITTED', 'PARTIAL_FILLED');
CREATE INDEX orders_by_account ON orders (account_id, seq);

-- PostgreSQL only: a change feed of the orders, so that a node reads only what changed since its
-- last read instead of every open order (the claims of an account at each placement, the
-- engine's book at each tick). Each row carries the transaction that last wrote it; a reader
-- keeps the xmin of a snapshot taken before its read: every transaction below it had ended, so
-- the rows it wrote were visible to the read. Sequence numbers would not do: they are taken at
-- write time, not in commit order. (SQLite has one writer and no other node: it needs none.)
ALTER TABLE orders ADD COLUMN changed xid8 NOT NULL DEFAULT pg_current_xact_id();

CREATE FUNCTION orders_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.changed := pg_current_xact_id();
    RETURN NEW;
END
$$;

CREATE TRIGGER orders_changed BEFORE INSERT OR UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION orders_changed();

CREATE INDEX orders_changed_by_account ON orders (account_id, changed);
CREATE INDEX orders_changed_all ON orders (changed);

CREATE TABLE order_events (
    order_id    TEXT NOT NULL REFERENCES orders (order_id),
    n           INTEGER NOT NULL,
    time        BIGINT NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    event       TEXT NOT NULL,
    reason      TEXT,
    PRIMARY KEY (order_id, n)
);

CREATE TABLE fills (
    fill_id    BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    order_id   TEXT NOT NULL REFERENCES orders (order_id),
    time       BIGINT NOT NULL,
    quantity   TEXT NOT NULL,
    price      TEXT NOT NULL,
    commission TEXT NOT NULL
);
CREATE INDEX fills_by_order ON fills (order_id);

CREATE TABLE positions (
    account_id    TEXT NOT NULL REFERENCES accounts (account_id),
    instrument_id BIGINT NOT NULL REFERENCES instruments (instrument_id),
    symbol        TEXT NOT NULL,
    quantity      TEXT NOT NULL,
    average_cost  TEXT NOT NULL,
    PRIMARY KEY (account_id, instrument_id)
);
