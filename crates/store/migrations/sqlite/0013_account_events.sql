-- The trade events of an account rather than of one of its orders: the position event of a
-- split applied to a position (eventType 1028), read by every node from the same feed as the
-- order events. Such a row has `account_id` and no `order_id`, no status and no payload but its
-- `position_payload`. An order's rows keep `account_id` NULL (the order names it).
--
-- SQLite cannot relax a column's NOT NULL, so the table is made again, its ids kept.
CREATE TABLE order_events_of_accounts (
    id               INTEGER PRIMARY KEY,
    order_id         TEXT REFERENCES orders (order_id),
    n                INTEGER NOT NULL,
    time             INTEGER NOT NULL,
    from_status      TEXT,
    to_status        TEXT,
    event            TEXT NOT NULL,
    reason           TEXT,
    payload          TEXT,
    position_payload TEXT,
    account_id       TEXT REFERENCES accounts (account_id),
    UNIQUE (order_id, n),
    CHECK ((order_id IS NULL) <> (account_id IS NULL))
);

INSERT INTO order_events_of_accounts (id, order_id, n, time, from_status, to_status, event, reason, payload, position_payload)
SELECT id, order_id, n, time, from_status, to_status, event, reason, payload, position_payload FROM order_events ORDER BY id;

DROP TABLE order_events;
ALTER TABLE order_events_of_accounts RENAME TO order_events;
