-- The trade events of an account rather than of one of its orders: the position event of a
-- split applied to a position (eventType 1028), read by every node from the same feed as the
-- order events. Such a row has `account_id` and no `order_id`, no status and no payload but its
-- `position_payload`. An order's rows keep `account_id` NULL (the order names it).
ALTER TABLE order_events ADD COLUMN account_id TEXT REFERENCES accounts (account_id);
ALTER TABLE order_events DROP CONSTRAINT order_events_pkey;
ALTER TABLE order_events ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE order_events ALTER COLUMN to_status DROP NOT NULL;
ALTER TABLE order_events ADD CONSTRAINT order_events_order_id_n_key UNIQUE (order_id, n);
ALTER TABLE order_events ADD CONSTRAINT order_events_of_an_order_or_an_account
    CHECK ((order_id IS NULL) <> (account_id IS NULL));
