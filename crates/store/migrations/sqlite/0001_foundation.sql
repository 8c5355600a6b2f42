-- Apps, their paper accounts, access tokens and used nonces. Times are milliseconds since the
-- Unix epoch; money is a decimal string (never binary floating point).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE apps (
    app_key       TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    -- AES-256-GCM: 12-byte nonce followed by ciphertext and tag; the app key is the associated data.
    sealed_secret BLOB NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('ACTIVE', 'REVOKED')),
    user_id       TEXT NOT NULL,
    created_at    INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE accounts (
    account_id    TEXT PRIMARY KEY,
    app_key       TEXT NOT NULL REFERENCES apps (app_key),
    account_type  TEXT NOT NULL CHECK (account_type IN ('CASH', 'MARGIN')),
    account_label TEXT NOT NULL,
    currency      TEXT NOT NULL,
    cash          TEXT NOT NULL,
    created_at    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX accounts_by_app ON accounts (app_key, created_at);

CREATE TABLE access_tokens (
    -- SHA-256 of the token, hex: the token itself is a credential and is not stored.
    token_hash TEXT PRIMARY KEY,
    -- The first characters of the token, to recognise it in `signet admin tokens list`.
    token_hint TEXT NOT NULL,
    app_key    TEXT NOT NULL REFERENCES apps (app_key),
    status     TEXT NOT NULL CHECK (status IN ('PENDING', 'NORMAL', 'INVALID')),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX access_tokens_by_app ON access_tokens (app_key, status);

CREATE TABLE nonces (
    app_key    TEXT NOT NULL,
    nonce      TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (app_key, nonce)
) WITHOUT ROWID;
CREATE INDEX nonces_by_expiry ON nonces (expires_at);
