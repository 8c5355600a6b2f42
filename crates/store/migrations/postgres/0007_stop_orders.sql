-- Stop and trailing-stop orders, and cash-amount orders.
ALTER TABLE orders ADD COLUMN trailing_type TEXT CHECK (trailing_type IN ('AMOUNT', 'PERCENTAGE'));
ALTER TABLE orders ADD COLUMN trailing_step TEXT;
ALTER TABLE orders ADD COLUMN triggered_at BIGINT;
ALTER TABLE orders ADD COLUMN cash_amount TEXT;
