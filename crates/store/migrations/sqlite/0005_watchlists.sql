-- Watchlists of an app, and their instruments. Both list by `sort`, highest first.

CREATE TABLE watchlists (
    watchlist_id TEXT PRIMARY KEY,
    app_key      TEXT NOT NULL REFERENCES apps (app_key),
    name         TEXT NOT NULL,
    sort         INTEGER NOT NULL,
    create_time  INTEGER NOT NULL,
    update_time  INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX watchlists_by_app ON watchlists (app_key);

CREATE TABLE watchlist_instruments (
    watchlist_id  TEXT NOT NULL REFERENCES watchlists (watchlist_id) ON DELETE CASCADE,
    instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
    category      TEXT NOT NULL,
    sort          INTEGER NOT NULL,
    added_time    INTEGER NOT NULL,
    PRIMARY KEY (watchlist_id, instrument_id)
) WITHOUT ROWID;
