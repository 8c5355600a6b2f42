//! Screener answers (catalog section 4). Numbers travel as decimal strings, as the interface's
//! market data does; a figure that cannot be computed (no shares outstanding, no earnings) is
//! absent rather than zero.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

pub use crate::wire::WireEnum;
use crate::wire_enum;

wire_enum!(
    /// `category`: the screeners rank US equities only.
    Category { UsStock = "US_STOCK" }
);

wire_enum!(Direction { Asc = "ASC", Desc = "DESC" });

wire_enum!(
    /// `rank_type` of gainers/losers: the period of the change ranked.
    GainersRank {
        PreMarket = "PRE_MARKET",
        AfterMarket = "AFTER_MARKET",
        Min3 = "MIN_3",
        Min5 = "MIN_5",
        Day1 = "DAY_1",
        Day5 = "DAY_5",
        Month1 = "MONTH_1",
        Month3 = "MONTH_3",
        Week52 = "WEEK_52",
    }
);

wire_enum!(
    /// `rank_type` of the most active.
    ActivesRank {
        Volume = "VOLUME",
        RelativeVolume10d = "RELATIVE_VOLUME_10D",
        Turnover = "TURNOVER",
        TurnoverRate = "TURNOVER_RATE",
        Amplitude = "AMPLITUDE",
    }
);

wire_enum!(
    /// `rank_type` of the 52-week screener.
    Week52Rank { NewHigh = "NEW_HIGH", NearHigh = "NEAR_HIGH", NewLow = "NEW_LOW", NearLow = "NEAR_LOW" }
);

wire_enum!(
    /// `agg_type` of market sectors.
    AggType { MarketValue = "MARKET_VALUE", Volume = "VOLUME" }
);

wire_enum!(
    /// `period` of market sectors.
    SectorPeriod { D1 = "D1", D5 = "D5", M01 = "M01", M03 = "M03" }
);

wire_enum!(
    /// `sort_by`. Gainers/losers and most active take the first 11 values; high dividend and
    /// sector detail the first 13; the 52-week screener all 14.
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

/// One instrument in a ranking. Every list carries the same fields; each screener documents
/// which it ranks on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScreenerItem {
    pub instrument_id: String,
    pub symbol: String,
    pub name: String,
    pub category: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub exchange_code: Option<String>,
    pub currency_code: String,
    /// The day the figures are as of, `YYYY-MM-DD`.
    pub date: String,
    pub pre_close: String,
    pub open: String,
    pub high: String,
    pub low: String,
    pub close: String,
    pub price: String,
    /// Change over the ranking's period (the day unless the rank type says otherwise).
    pub change: String,
    pub change_ratio: String,
    pub volume: String,
    pub turnover: String,
    pub amplitude: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub turnover_rate: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub market_value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub relative_volume_10d: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pe_ttm: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub dividend: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", rename = "yield")]
    #[schema(nullable = false)]
    pub dividend_yield: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ex_date: Option<String>,
    pub high_52w: String,
    pub low_52w: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub price_1w: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub price_52w: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub change_ratio_52w: Option<String>,
}

/// An instrument named inside a sector.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SectorMember {
    pub instrument_id: String,
    pub symbol: String,
    pub name: String,
}

/// A market sector: its constituents' aggregate move and the largest of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Sector {
    pub id: String,
    pub name: String,
    /// Market-value-weighted change over the period.
    pub change_ratio: String,
    pub volume: String,
    pub market_value: String,
    pub advanced: u64,
    pub declined: u64,
    pub flat: u64,
    /// The three largest constituents by market value.
    pub data: Vec<SectorMember>,
}

/// A page of sectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SectorPage {
    pub data: Vec<Sector>,
    /// Absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

/// One sector with a page of its constituents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SectorDetail {
    pub id: String,
    pub name: String,
    pub change_ratio: String,
    pub advanced: u64,
    pub declined: u64,
    pub flat: u64,
    pub data: Vec<ScreenerItem>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub pagination_key: Option<String>,
}

/// An instrument in a legacy ranking (`--compat legacy`; catalog 4.2, 4.4, 4.8, 4.10, 4.12): the
/// current [`ScreenerItem`], with the two names the retired answers also carried.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegacyScreenerItem {
    #[serde(flatten)]
    pub item: ScreenerItem,
    /// The same value as `currency_code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub currency: Option<String>,
    /// The same value as `symbol`: an instrument has one symbol here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub ticker_symbol: Option<String>,
}

impl From<ScreenerItem> for LegacyScreenerItem {
    fn from(item: ScreenerItem) -> Self {
        LegacyScreenerItem {
            currency: Some(item.currency_code.clone()),
            ticker_symbol: Some(item.symbol.clone()),
            item,
        }
    }
}

/// A page of a legacy ranking, numbered by `page_index` from 1.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegacyScreenerPage {
    /// Whether a later page has rows.
    pub has_more: bool,
    pub data: Vec<LegacyScreenerItem>,
}

/// The legacy sector detail (catalog 4.8): one sector with a page of its constituents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LegacySectorDetail {
    pub id: String,
    pub name: String,
    pub change_ratio: String,
    pub advanced: u64,
    pub declined: u64,
    pub flat: u64,
    pub data: Vec<LegacyScreenerItem>,
    /// Whether a later page has constituents (not in the catalog's list; a reader may ignore it).
    #[serde(default)]
    #[schema(required = true)]
    pub has_more: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_legacy_item_is_the_current_one_with_two_more_names() {
        let item = ScreenerItem {
            symbol: "AAPL".into(),
            currency_code: "USD".into(),
            dividend_yield: Some("0.02".into()),
            ..ScreenerItem::default()
        };
        let legacy = LegacyScreenerItem::from(item.clone());
        let mut json = serde_json::to_value(&legacy).unwrap();
        assert_eq!(
            (&json["currency"], &json["ticker_symbol"]),
            (&"USD".into(), &"AAPL".into())
        );
        assert_eq!(json["yield"], "0.02");
        assert_eq!(
            serde_json::from_value::<LegacyScreenerItem>(json.clone()).unwrap(),
            legacy
        );
        let object = json.as_object_mut().unwrap();
        object.remove("currency");
        object.remove("ticker_symbol");
        assert_eq!(json, serde_json::to_value(&item).unwrap());
    }
}
