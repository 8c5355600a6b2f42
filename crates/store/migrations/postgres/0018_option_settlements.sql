-- Option contracts settled at their expiry (crates/domain/src/options/settlement.rs): one row per
-- account and contract, which is what makes a contract settle once however many nodes cross its
-- expiry. `contract_id` is the contract's id (no row of `instruments`), `symbol` its OCC symbol,
-- `expiry` a New York day; `contracts` held before (negative when written), the underlying's
-- `close` it settled at, the `shares` of the underlying the account received (negative:
-- delivered) and the `cash` it received (negative: paid), as decimal text; `time` wall-clock
-- milliseconds.
CREATE TABLE option_settlements (
    settlement_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id    TEXT NOT NULL REFERENCES accounts (account_id),
    contract_id   BIGINT NOT NULL,
    symbol        TEXT NOT NULL,
    expiry        INTEGER NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('EXERCISE', 'ASSIGNMENT', 'CASH_SETTLEMENT', 'EXPIRE')),
    contracts     TEXT NOT NULL,
    close         TEXT NOT NULL,
    shares        TEXT NOT NULL,
    cash          TEXT NOT NULL,
    time          BIGINT NOT NULL,
    UNIQUE (account_id, contract_id)
);
CREATE INDEX option_settlements_by_account ON option_settlements (account_id, settlement_id);
