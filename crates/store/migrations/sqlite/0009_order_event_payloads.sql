-- Each order event's payload as the trade-events subscription sends it (catalog §12.6), written
-- in the transaction that changes the order. NULL for an event that is not sent (a combination's
-- released leg) and for the events of the steps before this one.
--
-- `id` orders the events for their readers: SQLite has one writer, so ids grow in commit order.
-- A table without rowid cannot take such a column, so the table is made again.
CREATE TABLE order_events_by_id (
    id          INTEGER PRIMARY KEY,
    order_id    TEXT NOT NULL REFERENCES orders (order_id),
    n           INTEGER NOT NULL,
    time        INTEGER NOT NULL,
    from_status TEXT,
    to_status   TEXT NOT NULL,
    event       TEXT NOT NULL,
    reason      TEXT,
    payload     TEXT,
    UNIQUE (order_id, n)
);

INSERT INTO order_events_by_id (order_id, n, time, from_status, to_status, event, reason)
SELECT order_id, n, time, from_status, to_status, event, reason FROM order_events ORDER BY time, order_id, n;

DROP TABLE order_events;
ALTER TABLE order_events_by_id RENAME TO order_events;
