-- Each order event's payload as the trade-events subscription sends it (catalog §12.6), written
-- in the transaction that changes the order. NULL for an event that is not sent (a combination's
-- released leg) and for the events of the steps before this one.
ALTER TABLE order_events ADD COLUMN payload TEXT;

-- `id` orders the events for their readers: it is taken at insert, after the row locks of the
-- account or order, so the events of one order (and of one account's fills) are numbered in
-- commit order.
ALTER TABLE order_events ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;

-- PostgreSQL only: the feed of order events every node follows, so that an event committed on
-- any node reaches the subscribers of every node. As for `orders.changed`, each row carries the
-- transaction that wrote it, and a reader keeps the xmin of a snapshot taken before its read.
ALTER TABLE order_events ADD COLUMN changed xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX order_events_changed ON order_events (changed);

-- Wakes every node's reader when events commit (a notification is delivered at commit, once per
-- transaction); the readers also look every second, so a missed notification delays, not loses.
CREATE FUNCTION order_events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('signet_order_events', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER order_events_notify AFTER INSERT ON order_events
    FOR EACH STATEMENT EXECUTE FUNCTION order_events_notify();
