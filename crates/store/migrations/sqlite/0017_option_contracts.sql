-- Option contracts (crates/domain/src/options): a contract's instrument id is made of its parts
-- (2^55 and above) and is no row of `instruments`, which `orders` and `positions` refer to.
--
-- An option order keeps its underlying's id in `instrument_id`, so that its reference holds,
-- and the contract's id in `option_contract_id`; the column is NULL for every other order. The
-- store reads an order's instrument as COALESCE(option_contract_id, instrument_id). `orders` is
-- not made again: fills, order_events and their account events refer to it.
ALTER TABLE orders ADD COLUMN option_contract_id INTEGER;

-- A position is one per account and instrument, and an account may hold an underlying's shares
-- and contracts on it: its `instrument_id` holds the contract's id itself, and no longer refers
-- to `instruments`. SQLite cannot drop a constraint, so the table is made again (no table
-- refers to it), with the same columns, key and reference to its account.
CREATE TABLE positions_of_contracts (
    account_id    TEXT NOT NULL REFERENCES accounts (account_id),
    instrument_id INTEGER NOT NULL,
    symbol        TEXT NOT NULL,
    quantity      TEXT NOT NULL,
    average_cost  TEXT NOT NULL,
    PRIMARY KEY (account_id, instrument_id)
) WITHOUT ROWID;

INSERT INTO positions_of_contracts (account_id, instrument_id, symbol, quantity, average_cost)
SELECT account_id, instrument_id, symbol, quantity, average_cost FROM positions;

DROP TABLE positions;
ALTER TABLE positions_of_contracts RENAME TO positions;
