-- One-minute bars of days' core sessions, imported (`signet data import`): what the simulator
-- replays of a day, minute by minute. `minute` counts from the 09:30 New York open (0 to 389,
-- to 209 on an early-close day); `day` is the New York day (days since 1970-01-01); prices are
-- millionths, to the cent, like `daily_bars`. The day's bar in `daily_bars` is their roll-up.
CREATE TABLE minute_bars (
    instrument_id BIGINT NOT NULL REFERENCES instruments (instrument_id),
    day           INTEGER NOT NULL,
    minute        INTEGER NOT NULL,
    open_e6       BIGINT NOT NULL,
    high_e6       BIGINT NOT NULL,
    low_e6        BIGINT NOT NULL,
    close_e6      BIGINT NOT NULL,
    volume        BIGINT NOT NULL,
    PRIMARY KEY (instrument_id, day, minute)
);
-- Every instrument's minutes of one day, in the order the simulator reads them.
CREATE INDEX minute_bars_by_day ON minute_bars (day, instrument_id, minute);
