-- Whether an option order opens or closes a position (BUY_TO_OPEN, BUY_TO_CLOSE, SELL_TO_OPEN,
-- SELL_TO_CLOSE): found when it is placed, and what its claim holds back depends on it (a sale
-- that writes contracts holds back what secures them). NULL for orders of shares.
ALTER TABLE orders ADD COLUMN position_intent TEXT
    CHECK (position_intent IN ('BUY_TO_OPEN', 'BUY_TO_CLOSE', 'SELL_TO_OPEN', 'SELL_TO_CLOSE'));
