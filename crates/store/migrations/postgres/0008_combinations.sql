-- Combinations (combo_type OTO, OCO, OTOCO): orders placed together in one new_orders list.
ALTER TABLE orders ADD COLUMN combo_order_id TEXT;
ALTER TABLE orders ADD COLUMN combo_kind TEXT CHECK (combo_kind IN ('OTO', 'OCO', 'OTOCO'));
ALTER TABLE orders ADD COLUMN waits_for TEXT;
CREATE UNIQUE INDEX orders_client_combo_order_id ON orders (account_id, client_combo_order_id)
    WHERE combo_order_id = order_id;
CREATE INDEX orders_by_combo ON orders (combo_order_id) WHERE combo_order_id IS NOT NULL;
