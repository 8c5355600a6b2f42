-- The operator console's one-time login links and its sessions. Both are kept only as SHA-256
-- hashes, so that a copy of the database lets nobody in. Times are milliseconds.

CREATE TABLE console_logins (
    token_hash TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);

CREATE TABLE console_sessions (
    session_hash TEXT PRIMARY KEY,
    created_at   BIGINT NOT NULL,
    last_seen    BIGINT NOT NULL
);

-- The simulated time of each fill (fills are stamped with the wall clock), so that the console
-- marks fills on the simulator's price charts and values an account at the simulator's prices.
-- NULL for the fills of the steps before this one.
ALTER TABLE fills ADD COLUMN market_time BIGINT;
