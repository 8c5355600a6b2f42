-- Orders, their transitions, fills and positions. Quantities and money are decimal text; times
-- are wall-clock milliseconds since the Unix epoch (the simulator decides prices and sessions).

CREATE TABLE orders (
    -- Insertion order: newest first in listings, and the pagination cursor.
    seq                     INTEGER PRIMARY KEY,
    order_id                TEXT NOT NULL UNIQUE,
    account_id              TEXT NOT NULL REFERENCES accounts (account_id),
    client_order_id         TEXT NOT NULL,
    client_combo_order_id   TEXT,
    combo_type              TEXT NOT NULL,
    instrument_id           INTEGER NOT NULL REFERENCES instruments (instrument_id),
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
    -- Sum of price × quantity of the fills: the average fill price is this / filled_quantity.
    filled_amount           TEXT NOT NULL,
    reason                  TEXT,
    -- Simulated time after which a DAY order is cancelled (the close of its session).
    expires_at_sim          INTEGER,
    place_time              INTEGER NOT NULL,
    fill_time               INTEGER,
    update_time             INTEGER NOT NULL,
    -- A client order id is used once per account, for ever: concurrent duplicates meet here.
    UNIQUE (account_id, client_order_id)
);
CREATE INDEX orders_open ON orders (status) WHERE status IN ('SUBMITTED', 'PARTIAL_FILLED');
CREATE INDEX orders_by_account ON orders (account_id, seq);

CREATE TABLE order_events (
    order_id    TEXT NOT NULL REFERENCES orders (order_id),
    n           INTEGER NOT NULL,
    time        INTEGER NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    event       TEXT NOT NULL,
    reason      TEXT,
    PRIMARY KEY (order_id, n)
) WITHOUT ROWID;

CREATE TABLE fills (
    fill_id    INTEGER PRIMARY KEY,
    order_id   TEXT NOT NULL REFERENCES orders (order_id),
    time       INTEGER NOT NULL,
    quantity   TEXT NOT NULL,
    price      TEXT NOT NULL,
    commission TEXT NOT NULL
);
CREATE INDEX fills_by_order ON fills (order_id);

CREATE TABLE positions (
    account_id    TEXT NOT NULL REFERENCES accounts (account_id),
    instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
    symbol        TEXT NOT NULL,
    quantity      TEXT NOT NULL,
    average_cost  TEXT NOT NULL,
    PRIMARY KEY (account_id, instrument_id)
) WITHOUT ROWID;
