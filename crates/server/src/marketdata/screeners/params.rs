//! The screeners' query parameters, parsed into typed values; an invalid value is 400
//! `ILLEGAL_PARAMETER` naming the parameter and the values allowed. The parameters are described
//! for the OpenAPI document by the `IntoParams` types below, which a screener's current and legacy
//! paths share (the handlers read them all as strings, to refuse a value themselves).

use signet_domain::marketdata::screeners::{Direction, Metric, Period, Week52};
use signet_model::screeners::{
    ActivesRank, AggType, Category, Direction as Dir, GainersRank, SectorPeriod, SortBy, Week52Rank, WireEnum,
};
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::pagination;

/// `value` of the parameter `name` among the first `allowed` values of `T` (all when `None`),
/// or `default` when absent or empty.
pub fn param<T: WireEnum>(name: &str, value: Option<&str>, default: T, allowed: Option<usize>) -> Result<T, ApiError> {
    let allowed = &T::VALUES[..allowed.unwrap_or(T::VALUES.len())];
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(v) if allowed.contains(&v) => Ok(T::parse(v).expect("an allowed value parses")),
        Some(other) => {
            let shown: String = other.chars().take(40).collect();
            Err(ApiError::illegal_parameter(format!(
                "{name} {shown:?} is not supported: use one of {}",
                allowed.join(", ")
            )))
        }
    }
}

/// `category`: required, and only US_STOCK.
pub fn require_category(value: Option<&str>) -> Result<Category, ApiError> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Err(ApiError::illegal_parameter("category is required: use US_STOCK")),
        some => param("category", some, Category::UsStock, None),
    }
}

/// A page of the legacy paths (`--compat legacy`): `page_index` counts from 1 (default 1), and
/// `page_size` from 1 to a maximum; anything else (zero, negative, too large, not a number) is
/// 400 `ILLEGAL_PARAMETER` naming the parameter and the accepted range, as `count` and the
/// current `page_size` are refused ([`pagination::bounded`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LegacyPage {
    /// The rows before this page.
    pub offset: u64,
    pub size: u64,
}

impl LegacyPage {
    pub fn parse(
        page_index: Option<&str>,
        page_size: Option<&str>,
        default_size: u32,
        max_size: u32,
    ) -> Result<Self, ApiError> {
        let index = pagination::bounded("page_index", page_index, 1, u32::MAX)?;
        let size = pagination::page_size(page_size, default_size, max_size)?;
        Ok(LegacyPage {
            offset: u64::from(index - 1) * u64::from(size),
            size: u64::from(size),
        })
    }

    /// This page's part of `rows`, and whether a later page has rows.
    pub fn slice<T>(self, mut rows: Vec<T>) -> (Vec<T>, bool) {
        let len = rows.len() as u64;
        let start = self.offset.min(len);
        let end = self.offset.saturating_add(self.size).min(len);
        rows.truncate(index(end));
        rows.drain(..index(start));
        (rows, end < len)
    }
}

/// The first parameter of every screener.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CategoryParam {
    /// Required: US_STOCK
    pub category: Category,
}

/// The last parameter of every screener, but for the page.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DirectionParam {
    /// DESC (default) or ASC
    pub direction: Option<Dir>,
}

/// The parameters of gainers/losers, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct GainersParams {
    /// The period of the change ranked, DAY_1 by default
    pub rank_type: Option<GainersRank>,
    /// The order of the list, CHANGE_RATIO by default; one of the first 11 values (CHANGE_RATIO to VOLUME)
    pub sort_by: Option<SortBy>,
}

/// The parameters of the most active, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActivesParams {
    /// What is ranked, VOLUME by default
    pub rank_type: Option<ActivesRank>,
    /// The order of the list, VOLUME by default; one of the first 11 values (CHANGE_RATIO to VOLUME)
    pub sort_by: Option<SortBy>,
}

/// The parameter of high dividend, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct HighDividendParams {
    /// The order of the list, YIELD by default; one of the first 13 values (CHANGE_RATIO to DIVIDEND)
    pub sort_by: Option<SortBy>,
}

/// The parameters of 52-week highs and lows, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Week52Params {
    /// NEW_HIGH by default
    pub rank_type: Option<Week52Rank>,
    /// The order of the list, CHANGE_RATIO_52W by default; any value
    pub sort_by: Option<SortBy>,
}

/// The parameters of the sector list, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SectorsParams {
    /// MARKET_VALUE (default) or VOLUME
    pub agg_type: Option<AggType>,
    /// D1 (default), D5, M01 or M03
    pub period: Option<SectorPeriod>,
}

/// The parameters of a sector's constituents, between the category and the direction.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SectorParams {
    /// The `id` of a sector from market-sectors/list
    #[param(example = "45")]
    pub sector_id: String,
    /// D1 (default), D5, M01 or M03
    pub period: Option<SectorPeriod>,
    /// The order of the list, CHANGE_RATIO by default; one of the first 13 values (CHANGE_RATIO to DIVIDEND)
    pub sort_by: Option<SortBy>,
}

/// A page of the current sector calls.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// The previous page's `pagination_key`
    pub pagination_key: Option<String>,
    /// Rows a page, 20 by default
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
}

/// A page of the legacy screener paths ([`LegacyPage`]).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegacyPageParams {
    /// The page, from 1 (default 1)
    #[param(minimum = 1)]
    pub page_index: Option<u32>,
    /// Rows a page, 20 by default
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<u32>,
}

/// The lengths of the `sort_by` lists each screener accepts.
pub const SORT_11: Option<usize> = Some(11);
pub const SORT_13: Option<usize> = Some(13);

pub fn direction(d: Dir) -> Direction {
    match d {
        Dir::Asc => Direction::Asc,
        Dir::Desc => Direction::Desc,
    }
}

pub fn period(p: SectorPeriod) -> Period {
    match p {
        SectorPeriod::D1 => Period::Day1,
        SectorPeriod::D5 => Period::Day5,
        SectorPeriod::M01 => Period::Month1,
        SectorPeriod::M03 => Period::Month3,
    }
}

pub fn week52_rank(r: Week52Rank) -> Week52 {
    match r {
        Week52Rank::NewHigh => Week52::NewHigh,
        Week52Rank::NearHigh => Week52::NearHigh,
        Week52Rank::NewLow => Week52::NewLow,
        Week52Rank::NearLow => Week52::NearLow,
    }
}

pub fn actives_metric(r: ActivesRank) -> Metric {
    match r {
        ActivesRank::Volume => Metric::Volume,
        ActivesRank::RelativeVolume10d => Metric::RelativeVolume10d,
        ActivesRank::Turnover => Metric::Turnover,
        ActivesRank::TurnoverRate => Metric::TurnoverRate,
        ActivesRank::Amplitude => Metric::Amplitude,
    }
}

/// The metric a `sort_by` orders by; `CHANGE_RATIO` means the change over `period`.
pub fn sort_metric(sort_by: SortBy, period: Period) -> Metric {
    match sort_by {
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

/// A count or offset of rows as an index (a page beyond memory is simply past the end).
pub fn index(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use signet_model::screeners::GainersRank;

    use super::*;

    #[test]
    fn values_parse_and_refusals_name_the_parameter_and_the_choices() {
        assert_eq!(
            param("rank_type", Some("DAY_5"), GainersRank::Day1, None).unwrap(),
            GainersRank::Day5
        );
        assert_eq!(
            param("rank_type", None, GainersRank::Day1, None).unwrap(),
            GainersRank::Day1
        );
        let e = param("rank_type", Some("DAY_2"), GainersRank::Day1, None).unwrap_err();
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
            param("sort_by", Some("YIELD"), SortBy::ChangeRatio, SORT_13).unwrap(),
            SortBy::Yield
        );
        assert!(param("sort_by", Some("CHANGE_RATIO_52W"), SortBy::ChangeRatio, SORT_13).is_err());
        let e = param("sort_by", Some("YIELD"), SortBy::ChangeRatio, SORT_11).unwrap_err();
        assert!(
            !e.message.contains("DIVIDEND"),
            "only the 11 values are offered: {}",
            e.message
        );
    }

    #[test]
    fn legacy_pages_count_from_one_and_slice() {
        fn page(index: Option<&str>, size: Option<&str>) -> Result<LegacyPage, ApiError> {
            LegacyPage::parse(index, size, 20, 100)
        }
        assert_eq!(page(None, None).unwrap(), LegacyPage { offset: 0, size: 20 });
        assert_eq!(page(Some("3"), Some("7")).unwrap(), LegacyPage { offset: 14, size: 7 });
        for (index, size, named) in [
            (Some("0"), None, "page_index"),
            (Some("-1"), None, "page_index"),
            (Some("x"), None, "page_index"),
            (None, Some("0"), "page_size"),
            (None, Some("101"), "page_size"),
            (None, Some("2.5"), "page_size"),
        ] {
            let e = page(index, size).unwrap_err();
            assert!(
                e.message.starts_with(named) && e.message.contains("from 1 to"),
                "{}",
                e.message
            );
        }
        let rows: Vec<u32> = (0..5).collect();
        let at = |index: &str| page(Some(index), Some("2")).unwrap().slice(rows.clone());
        assert_eq!(at("1"), (vec![0, 1], true));
        assert_eq!(at("2"), (vec![2, 3], true));
        assert_eq!(at("3"), (vec![4], false));
        assert_eq!(at("4"), (vec![], false));
        assert_eq!(at("4294967295"), (vec![], false));
        assert_eq!(
            page(Some("3"), Some("2")).unwrap().slice(vec![0, 1, 2, 3, 4, 5]),
            (vec![4, 5], false)
        );
    }
}
