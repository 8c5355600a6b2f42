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
