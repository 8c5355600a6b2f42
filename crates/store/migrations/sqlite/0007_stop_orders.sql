-- Stop and trailing-stop orders, and cash-amount orders. `stop_price` (0004) holds the stop; a trailing stop moves it as
-- the price moves its way. An order whose stop was reached trades as a market (or, with a limit,
-- limit) order from then on, whatever the price does next.
ALTER TABLE orders ADD COLUMN trailing_type TEXT CHECK (trailing_type IN ('AMOUNT', 'PERCENTAGE'));
ALTER TABLE orders ADD COLUMN trailing_step TEXT;
-- Simulated time the stop was reached; NULL while it waits.
ALTER TABLE orders ADD COLUMN triggered_at INTEGER;
-- The cash an AMOUNT order (`entrust_type`) spends or raises; its quantity is what the amount
-- bought at the price when it was placed.
ALTER TABLE orders ADD COLUMN cash_amount TEXT;
