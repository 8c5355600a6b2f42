//! Tables for people; `--json` elsewhere is for scripts.

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
