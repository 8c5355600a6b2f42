-- Instruments, daily bars, corporate actions and reported facts. Prices are integers in
-- millionths of the currency unit (exact for every layout we import; never binary floating
-- point); days are days since 1970-01-01.

CREATE TABLE instruments (
    instrument_id      INTEGER PRIMARY KEY,
    symbol             TEXT NOT NULL UNIQUE,
    name               TEXT NOT NULL,
    exchange           TEXT,
    cik                TEXT,
    sector             TEXT,
    industry           TEXT,
    instrument_type    TEXT NOT NULL DEFAULT 'EQUITY' CHECK (instrument_type IN ('EQUITY', 'ETF')),
    currency           TEXT NOT NULL DEFAULT 'USD',
    status             TEXT NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'INACTIVE')),
    shares_outstanding INTEGER,
    -- Trailing twelve-month EPS (millionths) where no SEC facts give it: generated for the demo.
    eps_ttm_e6         INTEGER,
    -- Index memberships, ';'-separated (S&P 500, NASDAQ 100, ...).
    indices            TEXT
);
CREATE INDEX instruments_by_sector ON instruments (sector);

CREATE TABLE daily_bars (
    instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
    day           INTEGER NOT NULL,
    open_e6       INTEGER NOT NULL,
    high_e6       INTEGER NOT NULL,
    low_e6        INTEGER NOT NULL,
    close_e6      INTEGER NOT NULL,
    volume        INTEGER NOT NULL,
    -- Close adjusted for later splits and dividends, when the source gives it.
    adj_close_e6  INTEGER,
    -- 1 for bars generated for the demo, 0 for imported ones.
    generated     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (instrument_id, day)
) WITHOUT ROWID;

CREATE TABLE corporate_actions (
    instrument_id INTEGER NOT NULL REFERENCES instruments (instrument_id),
    day           INTEGER NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ('SPLIT', 'DIVIDEND')),
    -- SPLIT: shares after per share before (2 for 2:1); DIVIDEND: cash per share. Decimal text.
    value         TEXT NOT NULL,
    -- DERIVED from the ratio of adjusted to unadjusted close, or GENERATED for the demo.
    source        TEXT NOT NULL CHECK (source IN ('DERIVED', 'GENERATED')),
    PRIMARY KEY (instrument_id, day, kind)
) WITHOUT ROWID;

-- SEC XBRL facts as reported (companyfacts JSON); statements are derived from them.
CREATE TABLE facts (
    cik      TEXT NOT NULL,
    taxonomy TEXT NOT NULL,
    concept  TEXT NOT NULL,
    unit     TEXT NOT NULL,
    -- '' for facts at an instant.
    start    TEXT NOT NULL,
    end      TEXT NOT NULL,
    accn     TEXT NOT NULL,
    value    TEXT NOT NULL,
    fy       INTEGER,
    fp       TEXT,
    form     TEXT NOT NULL,
    filed    TEXT NOT NULL,
    frame    TEXT,
    PRIMARY KEY (cik, taxonomy, concept, unit, start, end, accn)
) WITHOUT ROWID;

-- The figures the screeners rank on, one row per instrument, as of a trading day: derived from
-- bars, shares outstanding and fundamentals, refreshed after imports (and by the market
-- simulator). Prices in millionths; ratios and dollar amounts are approximate by nature (REAL).
CREATE TABLE snapshots (
    instrument_id       INTEGER PRIMARY KEY REFERENCES instruments (instrument_id),
    day                 INTEGER NOT NULL,
    price_e6            INTEGER NOT NULL,
    pre_close_e6        INTEGER NOT NULL,
    open_e6             INTEGER NOT NULL,
    high_e6             INTEGER NOT NULL,
    low_e6              INTEGER NOT NULL,
    close_e6            INTEGER NOT NULL,
    volume              INTEGER NOT NULL,
    turnover            REAL NOT NULL,
    change_ratio        REAL NOT NULL,
    close_5d_e6         INTEGER,
    close_1m_e6         INTEGER,
    close_3m_e6         INTEGER,
    close_52w_e6        INTEGER,
    amplitude           REAL NOT NULL,
    relative_volume_10d REAL,
    turnover_rate       REAL,
    market_value        REAL,
    pe_ttm              REAL,
    dividend_e6         INTEGER,
    dividend_yield      REAL,
    ex_day              INTEGER,
    high_52w_e6         INTEGER NOT NULL,
    low_52w_e6          INTEGER NOT NULL
);
