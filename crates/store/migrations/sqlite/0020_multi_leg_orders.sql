-- A multi-leg option order (option_strategy VERTICAL to DIAGONAL) keeps its strategy, legs and
-- claim here (JSON, `MultiLeg::encode`); its instrument_id is its underlying's. NULL for every
-- other order.
ALTER TABLE orders ADD COLUMN legs TEXT;
-- A fill of one leg of a multi-leg order: the leg's contract and side (NULL: the order's own).
ALTER TABLE fills ADD COLUMN instrument_id INTEGER;
ALTER TABLE fills ADD COLUMN side TEXT CHECK (side IN ('BUY', 'SELL'));
