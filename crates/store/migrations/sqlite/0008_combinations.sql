-- Combinations (combo_type OTO, OCO, OTOCO): orders placed together in one new_orders list.
-- `combo_type` (0004) keeps each order's part as sent (MASTER, OTO, OCO, STOP_PROFIT, ...).
-- The combination is named by its first order's order_id.
ALTER TABLE orders ADD COLUMN combo_order_id TEXT;
ALTER TABLE orders ADD COLUMN combo_kind TEXT CHECK (combo_kind IN ('OTO', 'OCO', 'OTOCO'));
-- The order_id of the master an OTO or OTOCO order waits for; NULL once the master has filled.
ALTER TABLE orders ADD COLUMN waits_for TEXT;
-- A client combo order id names one combination per account, for ever: kept on its first order,
-- where concurrent duplicates meet.
CREATE UNIQUE INDEX orders_client_combo_order_id ON orders (account_id, client_combo_order_id)
    WHERE combo_order_id = order_id;
CREATE INDEX orders_by_combo ON orders (combo_order_id) WHERE combo_order_id IS NOT NULL;
