//! Tables for people; `--json` elsewhere is for scripts.

use signet_model::wire::WireEnum;

/// A wire value (`DAY_5`, `VOLUME`, ...) as a command-line argument.
pub fn wire<T: WireEnum>(s: &str) -> Result<T, String> {
    T::parse(&s.to_ascii_uppercase()).ok_or_else(|| format!("expected one of {}", T::VALUES.join(", ")))
}

/// Prints `items` as a JSON array (`--json`, for scripts) or as a table (for people).
pub fn list<T>(
    json: bool,
    items: &[T],
    header: &[&str],
    row: impl Fn(&T) -> Vec<String>,
    to_json: impl Fn(&T) -> serde_json::Value,
) -> anyhow::Result<()> {
    if json {
        let values: Vec<serde_json::Value> = items.iter().map(to_json).collect();
        println!("{}", serde_json::to_string_pretty(&values)?);
    } else {
        table(header, &items.iter().map(row).collect::<Vec<_>>());
    }
    Ok(())
}

/// Prints rows under a header, each column as wide as its widest cell.
pub fn table(header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        println!("{}", padded.join("  ").trim_end());
    };
    line(header.to_vec());
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

/// Milliseconds since the epoch as `YYYY-MM-DD hh:mm:ss` UTC.
pub fn time(ms: i64) -> String {
    let ts = signet_signing::format_timestamp(ms.div_euclid(1000));
    format!("{} {}", &ts[..10], &ts[11..19])
}

/// An option contract for people: `AAPL 2013-03-15 430 C`.
pub fn contract(underlying: &str, expiry: &str, strike: &str, option_type: &str) -> String {
    let right = if option_type.eq_ignore_ascii_case("PUT") {
        "P"
    } else {
        "C"
    };
    format!("{underlying} {expiry} {strike} {right}")
}

/// A number of option contracts: `1 contract`, `2 contracts`, `-1 contract` (written).
pub fn contracts(quantity: &str) -> String {
    counted(quantity, "contract")
}

/// `quantity` of a multi-leg order: "1 unit", "3 units" (of its strategy).
pub fn units(quantity: &str) -> String {
    counted(quantity, "unit")
}

/// `quantity` and `what`, plural unless the quantity is one.
fn counted(quantity: &str, what: &str) -> String {
    let plural = if quantity.trim_start_matches('-') == "1" {
        ""
    } else {
        "s"
    };
    format!("{quantity} {what}{plural}")
}

/// The line under a table that holds options: their prices are per share.
pub fn per_share_note(multiplier: &str) {
    println!("option prices are per share; a contract is {multiplier} shares");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_contracts_read_as_people_write_them() {
        assert_eq!(contract("AAPL", "2013-03-15", "430", "CALL"), "AAPL 2013-03-15 430 C");
        assert_eq!(contract("SPY", "2013-04-19", "152.5", "PUT"), "SPY 2013-04-19 152.5 P");
        assert_eq!(contracts("1"), "1 contract");
        assert_eq!(contracts("-1"), "-1 contract");
        assert_eq!(contracts("12"), "12 contracts");
    }
}
