//! The screeners' query parameters, parsed into typed values; an invalid value is 400
//! `ILLEGAL_PARAMETER` naming the parameter and the values allowed.

use super::query::{Direction, Metric, Period, Week52};
use crate::error::ApiError;

macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name { $($variant),* }

        impl $name {
            pub const VALUES: &[&str] = &[$($text),*];

            /// `value` of the query parameter `param`, or `default` when it is absent or empty.
            pub fn parse(param: &str, value: Option<&str>, default: Self) -> Result<Self, ApiError> {
                match value.map(str::trim).filter(|v| !v.is_empty()) {
                    None => Ok(default),
                    $(Some($text) => Ok($name::$variant),)*
                    Some(other) => Err(illegal(param, other, Self::VALUES)),
                }
            }
        }
    };
}

fn illegal(param: &str, value: &str, allowed: &[&str]) -> ApiError {
    let shown: String = value.chars().take(40).collect();
    ApiError::illegal_parameter(format!(
        "{param} {shown:?} is not supported: use one of {}",
        allowed.join(", ")
    ))
}

wire_enum!(Category { UsStock = "US_STOCK" });

wire_enum!(
    /// `direction`.
    Dir { Asc = "ASC", Desc = "DESC" }
);

wire_enum!(GainersRank {
    PreMarket = "PRE_MARKET",
    AfterMarket = "AFTER_MARKET",
    Min3 = "MIN_3",
    Min5 = "MIN_5",
    Day1 = "DAY_1",
    Day5 = "DAY_5",
    Month1 = "MONTH_1",
    Month3 = "MONTH_3",
    Week52 = "WEEK_52",
});

wire_enum!(ActivesRank {
    Volume = "VOLUME",
    RelativeVolume10d = "RELATIVE_VOLUME_10D",
    Turnover = "TURNOVER",
    TurnoverRate = "TURNOVER_RATE",
    Amplitude = "AMPLITUDE",
});

wire_enum!(Week52Rank { NewHigh = "NEW_HIGH", NearHigh = "NEAR_HIGH", NewLow = "NEW_LOW", NearLow = "NEAR_LOW" });

wire_enum!(AggType { MarketValue = "MARKET_VALUE", Volume = "VOLUME" });

wire_enum!(SectorPeriod { D1 = "D1", D5 = "D5", M01 = "M01", M03 = "M03" });

wire_enum!(
    /// The 11-value `sort_by` list.
    SortBy11 {
        ChangeRatio = "CHANGE_RATIO",
        RelativeVolume10d = "RELATIVE_VOLUME_10D",
        MarketValue = "MARKET_VALUE",
        Close = "CLOSE",
        Price = "PRICE",
        PeTtm = "PE_TTM",
        High = "HIGH",
        Low = "LOW",
        Amplitude = "AMPLITUDE",
        Turnover = "TURNOVER",
        Volume = "VOLUME",
    }
);

wire_enum!(
    /// The 13-value `sort_by` list, plus `CHANGE_RATIO_52W` (52-week screener).
    SortBy {
        ChangeRatio = "CHANGE_RATIO",
        RelativeVolume10d = "RELATIVE_VOLUME_10D",
        MarketValue = "MARKET_VALUE",
        Close = "CLOSE",
        Price = "PRICE",
        PeTtm = "PE_TTM",
        High = "HIGH",
        Low = "LOW",
        Amplitude = "AMPLITUDE",
        Turnover = "TURNOVER",
        Volume = "VOLUME",
        Yield = "YIELD",
        Dividend = "DIVIDEND",
        ChangeRatio52w = "CHANGE_RATIO_52W",
    }
);

impl From<Dir> for Direction {
    fn from(d: Dir) -> Self {
        match d {
            Dir::Asc => Direction::Asc,
            Dir::Desc => Direction::Desc,
        }
    }
}

impl From<SectorPeriod> for Period {
    fn from(p: SectorPeriod) -> Self {
        match p {
            SectorPeriod::D1 => Period::Day1,
            SectorPeriod::D5 => Period::Day5,
            SectorPeriod::M01 => Period::Month1,
            SectorPeriod::M03 => Period::Month3,
        }
    }
}

impl From<Week52Rank> for Week52 {
    fn from(r: Week52Rank) -> Self {
        match r {
            Week52Rank::NewHigh => Week52::NewHigh,
            Week52Rank::NearHigh => Week52::NearHigh,
            Week52Rank::NewLow => Week52::NewLow,
            Week52Rank::NearLow => Week52::NearLow,
        }
    }
}

impl From<ActivesRank> for Metric {
    fn from(r: ActivesRank) -> Self {
        match r {
            ActivesRank::Volume => Metric::Volume,
            ActivesRank::RelativeVolume10d => Metric::RelativeVolume10d,
            ActivesRank::Turnover => Metric::Turnover,
            ActivesRank::TurnoverRate => Metric::TurnoverRate,
            ActivesRank::Amplitude => Metric::Amplitude,
        }
    }
}

impl From<SortBy11> for SortBy {
    fn from(s: SortBy11) -> Self {
        match s {
            SortBy11::ChangeRatio => SortBy::ChangeRatio,
            SortBy11::RelativeVolume10d => SortBy::RelativeVolume10d,
            SortBy11::MarketValue => SortBy::MarketValue,
            SortBy11::Close => SortBy::Close,
            SortBy11::Price => SortBy::Price,
            SortBy11::PeTtm => SortBy::PeTtm,
            SortBy11::High => SortBy::High,
            SortBy11::Low => SortBy::Low,
            SortBy11::Amplitude => SortBy::Amplitude,
            SortBy11::Turnover => SortBy::Turnover,
            SortBy11::Volume => SortBy::Volume,
        }
    }
}

impl SortBy {
    /// The metric to order by; `CHANGE_RATIO` means the change over `period`.
    pub fn metric(self, period: Period) -> Metric {
        match self {
            SortBy::ChangeRatio => Metric::ChangeRatio(period),
            SortBy::RelativeVolume10d => Metric::RelativeVolume10d,
            SortBy::MarketValue => Metric::MarketValue,
            SortBy::Close => Metric::Close,
            SortBy::Price => Metric::Price,
            SortBy::PeTtm => Metric::PeTtm,
            SortBy::High => Metric::High,
            SortBy::Low => Metric::Low,
            SortBy::Amplitude => Metric::Amplitude,
            SortBy::Turnover => Metric::Turnover,
            SortBy::Volume => Metric::Volume,
            SortBy::Yield => Metric::DividendYield,
            SortBy::Dividend => Metric::Dividend,
            SortBy::ChangeRatio52w => Metric::ChangeRatio(Period::Week52),
        }
    }
}

/// The 13 values (without `CHANGE_RATIO_52W`) for the screeners that take that list.
pub fn parse_sort_by_13(value: Option<&str>, default: SortBy) -> Result<SortBy, ApiError> {
    let parsed = SortBy::parse("sort_by", value, default)?;
    if parsed == SortBy::ChangeRatio52w {
        return Err(illegal("sort_by", "CHANGE_RATIO_52W", &SortBy::VALUES[..13]));
    }
    Ok(parsed)
}

/// `category`: required, and only US_STOCK.
pub fn require_category(value: Option<&str>) -> Result<Category, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Err(ApiError::illegal_parameter("category is required: use US_STOCK")),
        some => Category::parse("category", some, Category::UsStock),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_parse_and_refusals_name_the_parameter_and_the_choices() {
        assert_eq!(
            GainersRank::parse("rank_type", Some("DAY_5"), GainersRank::Day1).unwrap(),
            GainersRank::Day5
        );
        assert_eq!(
            GainersRank::parse("rank_type", None, GainersRank::Day1).unwrap(),
            GainersRank::Day1
        );
        let e = GainersRank::parse("rank_type", Some("DAY_2"), GainersRank::Day1).unwrap_err();
        assert!(
            e.message.contains("rank_type") && e.message.contains("MONTH_3"),
            "{}",
            e.message
        );
        assert!(require_category(None).is_err());
        assert!(
            require_category(Some("HK_STOCK"))
                .unwrap_err()
                .message
                .contains("US_STOCK")
        );
        assert_eq!(
            parse_sort_by_13(Some("YIELD"), SortBy::ChangeRatio).unwrap(),
            SortBy::Yield
        );
        assert!(parse_sort_by_13(Some("CHANGE_RATIO_52W"), SortBy::ChangeRatio).is_err());
        assert!(SortBy11::parse("sort_by", Some("YIELD"), SortBy11::ChangeRatio).is_err());
    }
}
