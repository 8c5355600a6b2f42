-- Option contracts (crates/domain/src/options): a contract's instrument id is made of its parts
-- (2^55 and above) and is no row of `instruments`, which `orders` and `positions` refer to.
--
-- An option order keeps its underlying's id in `instrument_id`, so that its reference holds,
-- and the contract's id in `option_contract_id`; the column is NULL for every other order. The
-- store reads an order's instrument as COALESCE(option_contract_id, instrument_id).
ALTER TABLE orders ADD COLUMN option_contract_id BIGINT;

-- A position is one per account and instrument, and an account may hold an underlying's shares
-- and contracts on it: its `instrument_id` holds the contract's id itself, and no longer refers
-- to `instruments` (the name PostgreSQL gave the reference of step 4, and of the first history).
ALTER TABLE positions DROP CONSTRAINT positions_instrument_id_fkey;
