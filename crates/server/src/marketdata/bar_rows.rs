//! The bars call's answer (the model's `BarsResponse`), written straight into one buffer rather
//! than through a string a field and serde: a call may ask for 1,200 bars of each of 100
//! symbols, and for a thousand one-minute bars formatting took more time than the rest of the
//! call.

use signet_core::quotes::tape_session;
use signet_domain::marketdata::Bar;
use signet_domain::marketdata::units::date_of;
use signet_domain::simulator::intraday::Candle;

/// One bar of the answer.
pub enum BarRow {
    /// A bar of days (prices in millionths): at midnight of its first trading day.
    Days(Bar),
    /// An intraday bar (prices in cents) and when it starts, epoch milliseconds (the caller
    /// knows each day's offset from New York).
    Intraday(Candle, i64),
}

/// A price in millionths to the nearest cent, a half cent to the even one (as `Decimal`
/// rounds).
fn cents_of_micros(micros: i64) -> i64 {
    let (q, r) = (micros.div_euclid(10_000), micros.rem_euclid(10_000));
    if r > 5_000 || (r == 5_000 && q % 2 != 0) {
        q + 1
    } else {
        q
    }
}

/// A field's text, written on the stack digit by digit and handed to the serializer in one
/// piece: `core::fmt` and a string a field took most of a thousand-bar answer's time.
#[derive(Default)]
struct Text {
    bytes: [u8; 32],
    len: usize,
}

impl Text {
    fn byte(&mut self, b: u8) {
        if let Some(slot) = self.bytes.get_mut(self.len) {
            *slot = b;
            self.len += 1;
        }
    }

    /// `n` in decimal, zero-padded to `width` digits.
    fn number(&mut self, mut n: u64, width: usize) {
        let mut digits = [b'0'; 20];
        let mut i = digits.len();
        while n > 0 || i == digits.len() {
            i -= 1;
            digits[i] = b'0' + (n % 10) as u8;
            n /= 10;
        }
        for _ in (digits.len() - i)..width {
            self.byte(b'0');
        }
        for &d in &digits[i..] {
            self.byte(d);
        }
    }

    fn str(&mut self, s: &str) {
        for &b in s.as_bytes() {
            self.byte(b);
        }
    }

    /// A price in cents as `461.10`: two places, as quotes and fills print it.
    fn cents(c: i64) -> Self {
        let mut t = Text::default();
        if c < 0 {
            t.byte(b'-');
        }
        let c = c.unsigned_abs();
        t.number(c / 100, 1);
        t.byte(b'.');
        t.number(c % 100, 2);
        t
    }

    /// Epoch milliseconds as `yyyy-MM-ddTHH:mm:ss.SSS+0000`.
    fn time(ms: i64) -> Self {
        const DAY_MS: i64 = 86_400_000;
        let date = date_of(i32::try_from(ms.div_euclid(DAY_MS)).unwrap_or_default());
        let of_day = ms.rem_euclid(DAY_MS).unsigned_abs();
        let mut t = Text::default();
        t.number(u64::try_from(date.year()).unwrap_or_default(), 4);
        t.byte(b'-');
        t.number(u64::from(u8::from(date.month())), 2);
        t.byte(b'-');
        t.number(u64::from(date.day()), 2);
        t.byte(b'T');
        t.number(of_day / 3_600_000, 2);
        t.byte(b':');
        t.number(of_day / 60_000 % 60, 2);
        t.byte(b':');
        t.number(of_day / 1000 % 60, 2);
        t.byte(b'.');
        t.number(of_day % 1000, 3);
        t.str("+0000");
        t
    }

    fn whole(n: u64) -> Self {
        let mut t = Text::default();
        t.number(n, 1);
        t
    }
}

impl Text {
    fn bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// A bar's numbers: its start (epoch milliseconds), open, close, high and low in cents, volume,
/// and the session of an intraday bar.
type Numbers = (i64, [i64; 4], u64, Option<&'static str>);

impl BarRow {
    fn numbers(&self) -> Numbers {
        match self {
            BarRow::Days(b) => (
                i64::from(b.day) * 86_400_000,
                [b.open, b.close, b.high, b.low].map(cents_of_micros),
                u64::try_from(b.volume).unwrap_or(0),
                None,
            ),
            BarRow::Intraday(c, utc_ms) => (
                *utc_ms,
                [c.open, c.close, c.high, c.low],
                c.volume,
                Some(tape_session(c.day, c.start)),
            ),
        }
    }

    /// The bar's texts as the JSON answer writes them: time, open, close, high, low, volume (the
    /// earlier generation's gateway sends them in protobuf).
    pub fn texts(&self) -> [String; 6] {
        let (time, [open, close, high, low], volume, _) = self.numbers();
        let text = |t: Text| String::from_utf8_lossy(t.bytes()).into_owned();
        [
            text(Text::time(time)),
            text(Text::cents(open)),
            text(Text::cents(close)),
            text(Text::cents(high)),
            text(Text::cents(low)),
            text(Text::whole(volume)),
        ]
    }

    /// The bar as a JSON object (the model's `BarRow`) onto `out`. Its values are digits, dots,
    /// dashes and colons, which JSON never escapes, so they are written as they are.
    fn write_json(&self, out: &mut Vec<u8>) {
        let (time, [open, close, high, low], volume, session) = self.numbers();
        let field = |out: &mut Vec<u8>, name: &str, value: &[u8]| {
            out.extend_from_slice(b"\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":\"");
            out.extend_from_slice(value);
            out.push(b'"');
        };
        out.push(b'{');
        field(out, "time", Text::time(time).bytes());
        for (name, cents) in [("open", open), ("close", close), ("high", high), ("low", low)] {
            out.push(b',');
            field(out, name, Text::cents(cents).bytes());
        }
        out.push(b',');
        field(out, "volume", Text::whole(volume).bytes());
        if let Some(session) = session {
            out.push(b',');
            field(out, "trading_session", session.as_bytes());
        }
        out.push(b'}');
    }
}

/// Each symbol's bars (symbol, instrument id, bars newest first) as the bars call's answer, the
/// model's `BarsResponse`, in one buffer of about its size (a bar takes some 150 bytes).
pub fn answer(groups: &[(String, i64, Vec<BarRow>)]) -> Vec<u8> {
    let bars: usize = groups.iter().map(|(_, _, rows)| rows.len()).sum();
    let mut out = Vec::with_capacity(64 * groups.len() + 160 * bars);
    out.extend_from_slice(b"{\"result\":[");
    for (i, (symbol, instrument_id, rows)) in groups.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"symbol\":");
        // A symbol is the one value that could need escaping.
        serde_json::to_writer(&mut out, symbol).expect("a string serializes into memory");
        out.extend_from_slice(b",\"instrument_id\":\"");
        out.extend_from_slice(Text::whole(instrument_id.unsigned_abs()).bytes());
        out.extend_from_slice(b"\",\"result\":");
        write_rows(&mut out, rows);
        out.push(b'}');
    }
    out.extend_from_slice(b"]}");
    out
}

/// One symbol's bars alone, a bare array of the model's `BarRow` (the earlier SDK generation's
/// `/market-data/bars`).
pub fn bare(rows: &[BarRow]) -> Vec<u8> {
    let mut out = Vec::with_capacity(2 + 160 * rows.len());
    write_rows(&mut out, rows);
    out
}

fn write_rows(out: &mut Vec<u8>, rows: &[BarRow]) {
    out.push(b'[');
    for (j, row) in rows.iter().enumerate() {
        if j > 0 {
            out.push(b',');
        }
        row.write_json(out);
    }
    out.push(b']');
}

#[cfg(test)]
mod tests {
    use signet_domain::marketdata::units::parse_day;
    use signet_model::quotes;

    use super::*;

    #[test]
    fn rows_read_back_as_the_models_bars() {
        let day = parse_day("2013-02-25").unwrap();
        let bar = Bar {
            day,
            open: 453_850_000,
            high: 455_125_000,
            low: 442_575_000,
            close: 442_800_000,
            volume: 13_066_597,
            adj_close: None,
        };
        let candle = Candle {
            day,
            start: 9 * 3600 + 45 * 60,
            open: 45_385,
            high: 45_401,
            low: 45_300,
            close: 45_310,
            volume: 1234,
        };
        let at = 1_361_803_500_000;
        let groups = [
            (
                "AAPL".to_owned(),
                3,
                vec![BarRow::Days(bar), BarRow::Intraday(candle, at)],
            ),
            ("A\"B".to_owned(), 4, Vec::new()),
        ];
        let answer: quotes::BarsResponse = serde_json::from_slice(&answer(&groups)).unwrap();
        assert_eq!(
            (
                answer.result[0].symbol.as_str(),
                answer.result[0].instrument_id.as_str()
            ),
            ("AAPL", "3")
        );
        assert_eq!(
            (answer.result[1].symbol.as_str(), answer.result[1].result.len()),
            ("A\"B", 0)
        );
        let rows = &answer.result[0].result;
        assert_eq!(rows[0].time, "2013-02-25T00:00:00.000+0000");
        assert_eq!(
            (
                rows[0].open.as_str(),
                rows[0].high.as_str(),
                rows[0].low.as_str(),
                rows[0].close.as_str()
            ),
            ("453.85", "455.12", "442.58", "442.80"),
            "a half cent to the even cent"
        );
        assert_eq!(
            (rows[0].volume.as_str(), rows[0].trading_session.as_deref()),
            ("13066597", None)
        );
        assert_eq!(
            rows[1].time, "2013-02-25T14:45:00.000+0000",
            "09:45 in New York, in winter"
        );
        assert_eq!(
            (
                rows[1].open.as_str(),
                rows[1].close.as_str(),
                rows[1].trading_session.as_deref()
            ),
            ("453.85", "453.10", Some("RTH"))
        );
        let text = |t: Text| String::from_utf8(t.bytes().to_vec()).unwrap();
        assert_eq!(
            (text(Text::cents(7)), text(Text::cents(100))),
            ("0.07".into(), "1.00".into())
        );
        assert_eq!(text(Text::whole(0)), "0");
    }
}
