//! Async Rust SDK for the signet interface. Every request is signed (section 5) with a fresh
//! 32-hex nonce and the current time; a body is serialized once and exactly those bytes are
//! hashed and sent.
//!
//! ```no_run
//! # async fn demo() -> Result<(), signet_client::Error> {
//! let client = signet_client::Client::new("http://127.0.0.1:8080", "APP_KEY", "APP_SECRET")?;
//! for account in client.accounts().list().await? {
//!     println!("{} {:?}", account.account_id, account.account_type);
//! }
//! # Ok(()) }
//! ```

mod events;
mod quotes;
mod trust;

pub use events::{Event, EventKinds, EventStream, Events, OrderEvent, PositionEvent, SubscribeCodec};
pub use quotes::{Pushed, QuoteStream, Quotes, SubType};
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use serde::de::DeserializeOwned;
use signet_model::accounts::{ResetAccountRequest, ResetAccountView};
use signet_model::assets::{AccountBalance, CashActivityPage, ExecutionPage, InstrumentPage, Position};
use signet_model::checkpoints::{CheckpointList, CheckpointRequest, CheckpointView, RestoredView};
use signet_model::fundamentals::{
    AnalystRating, BalanceSheet, CapitalFlow, CashFlowStatement, CompanyProfile, ComparisonMetric, DividendEvent,
    EarningsEvent, Filings, FinancialAlert, ForecastEps, FundAllocation, FundBrief, FundDividendPage, FundFile,
    FundHolding, FundNetValue, FundPerformance, FundRating, FundSplit, IncomeStatement, Indicators, IndustryComparison,
    ReportType, TargetPrice,
};
use signet_model::headers as h;
use signet_model::market::{MarketClock, MarketQuote, MarketStats, SetQuoteRequest, StepRequest};
use signet_model::options::{OptionContract, OptionContractPage, OptionSnapshot, OptionTicks};
use signet_model::orders::{
    BatchPlaceRequest, BatchPlaceResponse, CancelOrderRequest, ModifyOrder, NewLeg, NewOrder, OrderAck, OrderPage,
    OrderRecord, PlaceOrderRequest, PreviewResponse, ReplaceOrderRequest,
};
use signet_model::quotes::{BarsRequest, BarsResponse, Depth, Snapshot, SymbolFootprints, Ticks};
use signet_model::scenarios::{LoadScenarioRequest, ScenarioView, SwitchRuleRequest};
use signet_model::screeners::{
    ActivesRank, AggType, Direction, GainersRank, ScreenerItem, SectorDetail, SectorPage, SectorPeriod, SortBy,
    Week52Rank, WireEnum,
};
use signet_model::v1::TradeDay;
use signet_model::watchlists::{
    CreateWatchlist, InstrumentRef, UpdateWatchlist, Watchlist, WatchlistDeleted, WatchlistId, WatchlistInstruments,
    WatchlistInstrumentsChange,
};
use signet_model::{Account, ConfigResponse, ErrorBody, ErrorCode, TokenRequest, TokenResponse};
use signet_signing::{Algorithm, Request, SigningHeaders, format_timestamp};
pub use trust::Trust;
use url::Url;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The server refused the request with an error body.
    #[error("HTTP {status}, {error_code}: {message} (request id {})", request_id.as_deref().unwrap_or("none"))]
    Api {
        status: u16,
        error_code: String,
        message: String,
        request_id: Option<String>,
    },
    #[error("invalid endpoint {0:?}: expected a URL such as http://127.0.0.1:8080")]
    Endpoint(String),
    #[error("invalid {what}: {detail}")]
    InvalidInput { what: &'static str, detail: String },
    #[error("request failed: {0}")]
    Transport(#[from] reqwest::Error),
    #[error("unexpected answer (HTTP {status}): {detail}")]
    Decode { status: u16, detail: String },
    /// The trade-events subscription could not be opened, or ended with this gRPC status.
    #[error("order events: {0}")]
    Events(String),
    /// The quotes feed refused the MQTT connection with this CONNACK code.
    #[error("the quotes feed refused the connection: code {code}, {}", refusal(*code))]
    FeedRefused { code: u8 },
    /// The quotes feed could not be reached, or the connection ended.
    #[error("quotes feed: {0}")]
    Feed(String),
}

/// What the server means by a CONNACK code (catalog §13.5).
fn refusal(code: u8) -> &'static str {
    match code {
        1 => "a protocol other than MQTT 3.1.1",
        2 => "the session id is empty or connected by another client",
        3 => "the server cannot check the app key now",
        4 => "the app key is not active",
        105 => "the app holds its most sessions (the server's --mqtt-max-sessions)",
        _ => "refused",
    }
}

impl Error {
    /// The interface's error code, when the server answered with a known one.
    pub fn code(&self) -> Option<ErrorCode> {
        match self {
            Error::Api { error_code, .. } => ErrorCode::parse(error_code),
            _ => None,
        }
    }
}

/// A signed request ready to send: the tests of the server alter one part of it to check that
/// each alteration is refused.
#[derive(Debug, Clone)]
pub struct SignedRequest {
    pub method: Method,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    host: String,
    app_key: String,
    secret: SecretString,
    access_token: Option<String>,
    /// What an `https` endpoint, its trade events and its quotes feed are verified against.
    trust: Trust,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("base", &self.base.as_str())
            .field("app_key", &self.app_key)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub fn new(endpoint: &str, app_key: impl Into<String>, app_secret: impl Into<String>) -> Result<Self, Error> {
        Self::with_trust(endpoint, app_key, app_secret, Trust::system())
    }

    /// Like [`Client::new`], verifying an `https` endpoint (and its trade events and quotes feed)
    /// with the system's roots and those `trust` adds, such as a server's self-signed CA.
    pub fn with_trust(
        endpoint: &str,
        app_key: impl Into<String>,
        app_secret: impl Into<String>,
        trust: Trust,
    ) -> Result<Self, Error> {
        let http = trust.apply(reqwest::Client::builder())?.build()?;
        Ok(Self::with_http_client(http, endpoint, app_key, app_secret)?.trusting(trust))
    }

    /// Verifies the trade events and the quotes feed of an `https` endpoint with `trust` (a
    /// client given with [`Client::with_http_client`] was configured by its caller: see
    /// [`Trust::apply`]).
    pub fn trusting(mut self, trust: Trust) -> Self {
        self.trust = trust;
        self
    }

    /// Like [`Client::new`], with a `reqwest` client configured by the caller (timeouts, proxy).
    pub fn with_http_client(
        http: reqwest::Client,
        endpoint: &str,
        app_key: impl Into<String>,
        app_secret: impl Into<String>,
    ) -> Result<Self, Error> {
        let base = Url::parse(endpoint).map_err(|_| Error::Endpoint(endpoint.to_owned()))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(Error::Endpoint(endpoint.to_owned()));
        }
        // The value of the Host header the HTTP client will send, which is what the server checks.
        let host = match (base.host_str(), base.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => return Err(Error::Endpoint(endpoint.to_owned())),
        };
        Ok(Client {
            http,
            base,
            host,
            app_key: app_key.into(),
            secret: SecretString::from(app_secret.into()),
            access_token: None,
            trust: Trust::system(),
        })
    }

    /// Sends `token` in `x-access-token` from now on (servers run with `--require-token`).
    pub fn with_access_token(mut self, token: impl Into<String>) -> Self {
        self.access_token = Some(token.into());
        self
    }

    pub fn accounts(&self) -> Accounts<'_> {
        Accounts { client: self }
    }

    pub fn tokens(&self) -> Tokens<'_> {
        Tokens { client: self }
    }

    pub fn screeners(&self) -> Screeners<'_> {
        Screeners { client: self }
    }

    pub fn instruments(&self) -> Instruments<'_> {
        Instruments { client: self }
    }

    pub fn orders(&self) -> Orders<'_> {
        Orders { client: self }
    }

    pub fn fundamentals(&self) -> Fundamentals<'_> {
        Fundamentals { client: self }
    }

    pub fn watchlists(&self) -> Watchlists<'_> {
        Watchlists { client: self }
    }

    /// The market simulator's controls (apps created with `--admin`).
    pub fn market(&self) -> Market<'_> {
        Market { client: self }
    }

    /// The scenario rules' controls (apps created with `--admin`).
    pub fn scenarios(&self) -> Scenarios<'_> {
        Scenarios { client: self }
    }

    /// Checkpoints of the whole sandbox (admin apps): save, restore, list, delete.
    pub fn checkpoints(&self) -> Checkpoints<'_> {
        Checkpoints { client: self }
    }

    /// Stock market data: snapshots and the depth of book.
    pub fn stocks(&self) -> Stocks<'_> {
        Stocks { client: self }
    }

    /// US equity options: the contracts listed today and each one's market.
    pub fn options(&self) -> Options<'_> {
        Options { client: self }
    }

    /// Order events as they commit, over gRPC on the same address.
    pub fn events(&self) -> Events<'_> {
        Events { client: self }
    }

    /// The quotes feed over MQTT (the server's `--mqtt-listen`).
    pub fn quotes(&self) -> Quotes<'_> {
        Quotes { client: self }
    }

    /// `GET /openapi/config`: whether the server requires access tokens.
    pub async fn config(&self) -> Result<ConfigResponse, Error> {
        self.get("/openapi/config", &[]).await
    }

    pub async fn get<T: DeserializeOwned>(&self, path: &str, query: &[(&str, &str)]) -> Result<T, Error> {
        self.send(self.prepare(Method::GET, path, query, None)?).await
    }

    pub async fn post<B: Serialize, T: DeserializeOwned>(&self, path: &str, body: &B) -> Result<T, Error> {
        let body = serde_json::to_vec(body).map_err(|e| Error::InvalidInput {
            what: "body",
            detail: e.to_string(),
        })?;
        self.send(self.prepare(Method::POST, path, &[], Some(body))?).await
    }

    /// Builds and signs a request without sending it.
    pub fn prepare(
        &self,
        method: Method,
        path: &str,
        query: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Result<SignedRequest, Error> {
        let mut url = self.base.join(path).map_err(|e| Error::InvalidInput {
            what: "path",
            detail: e.to_string(),
        })?;
        if query.is_empty() {
            url.set_query(None);
        } else {
            url.query_pairs_mut().clear().extend_pairs(query);
        }
        let timestamp = format_timestamp(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs() as i64,
        );
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let body = body.unwrap_or_default();
        let signing_headers = SigningHeaders {
            app_key: &self.app_key,
            algorithm: Algorithm::HmacSha256,
            signature_version: h::SIGNATURE_VERSION_1_0,
            nonce: &nonce,
            timestamp: &timestamp,
            host: &self.host,
        };
        // Sign what will be on the wire: the path as the URL writes it, the query as it decodes.
        let mut signing = Request::new(url.path(), signing_headers).with_body(&body);
        if let Some(raw) = url.query() {
            signing = signing.with_raw_query(raw);
        }
        let signature = signet_signing::sign(&signing, self.secret.expose_secret());

        let mut headers = HeaderMap::new();
        let mut put = |name: &'static str, value: &str| -> Result<(), Error> {
            let value = HeaderValue::from_str(value).map_err(|e| Error::InvalidInput {
                what: name,
                detail: e.to_string(),
            })?;
            headers.insert(HeaderName::from_static(name), value);
            Ok(())
        };
        put(h::APP_KEY, &self.app_key)?;
        put(h::TIMESTAMP, &timestamp)?;
        put(h::SIGNATURE, &signature)?;
        put(h::SIGNATURE_ALGORITHM, Algorithm::HmacSha256.name())?;
        put(h::SIGNATURE_VERSION, h::SIGNATURE_VERSION_1_0)?;
        put(h::SIGNATURE_NONCE, &nonce)?;
        put(h::VERSION, h::API_VERSION)?;
        if let Some(token) = &self.access_token {
            put(h::ACCESS_TOKEN, token)?;
        }
        if !body.is_empty() {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        }
        Ok(SignedRequest {
            method,
            url,
            headers,
            body,
        })
    }

    /// Sends a prepared request and decodes a 2xx answer as `T`.
    pub async fn send<T: DeserializeOwned>(&self, request: SignedRequest) -> Result<T, Error> {
        let response = self
            .http
            .request(request.method, request.url)
            .headers(request.headers)
            .body(request.body)
            .send()
            .await?;
        let status = response.status().as_u16();
        let request_id = response
            .headers()
            .get(h::REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let bytes = response.bytes().await?;
        if !(200..300).contains(&status) {
            return Err(match serde_json::from_slice::<ErrorBody>(&bytes) {
                Ok(body) => Error::Api {
                    status,
                    error_code: body.error_code,
                    message: body.message,
                    request_id,
                },
                Err(_) => Error::Decode {
                    status,
                    detail: String::from_utf8_lossy(&bytes).chars().take(200).collect(),
                },
            });
        }
        serde_json::from_slice(&bytes).map_err(|e| Error::Decode {
            status,
            detail: e.to_string(),
        })
    }
}

/// The trading area's accounts.
pub struct Accounts<'a> {
    client: &'a Client,
}

impl Accounts<'_> {
    /// `GET /trading/accounts/list`: the calling app's accounts.
    pub async fn list(&self) -> Result<Vec<Account>, Error> {
        self.client.get("/trading/accounts/list", &[]).await
    }

    /// `POST /admin/accounts/reset` (an app created with `--admin`): starts an account over, with
    /// `cash` or its opening cash.
    pub async fn reset(&self, account_id: &str, cash: Option<&str>) -> Result<ResetAccountView, Error> {
        let request = ResetAccountRequest {
            account_id: account_id.to_owned(),
            cash: cash.map(str::to_owned),
        };
        self.client.post("/admin/accounts/reset", &request).await
    }

    /// `GET /trading/assets/balances/get`: cash, market value, buying power, open P&L and net
    /// liquidation value of an account.
    pub async fn balance(&self, account_id: &str) -> Result<AccountBalance, Error> {
        self.client
            .get("/trading/assets/balances/get", &[("account_id", account_id)])
            .await
    }

    /// `GET /trading/assets/positions/list`: an account's positions at the last prices.
    pub async fn positions(&self, account_id: &str) -> Result<Vec<Position>, Error> {
        self.client
            .get("/trading/assets/positions/list", &[("account_id", account_id)])
            .await
    }

    /// `GET /trading/activities/cash-activities/list`: a page of an account's cash movements,
    /// newest first (the last 7 days unless `filter` says otherwise).
    pub async fn cash_activities(
        &self,
        account_id: &str,
        filter: &ActivityFilter<'_>,
    ) -> Result<CashActivityPage, Error> {
        let mut query = vec![("account_id", account_id)];
        query.extend(filter.activity_types.map(|t| ("activity_types", t)));
        query.extend(filter.start_time.map(|t| ("start_time", t)));
        query.extend(filter.end_time.map(|t| ("end_time", t)));
        query.extend(filter.pagination_key.map(|k| ("pagination_key", k)));
        self.client
            .get("/trading/activities/cash-activities/list", &query)
            .await
    }
}

/// Which cash activities to list ([`Accounts::cash_activities`]).
#[derive(Debug, Clone, Default)]
pub struct ActivityFilter<'a> {
    /// Comma-separated: DEPOSIT, TRADE, FEES, DIVIDEND, SPLIT, OPTION_EXERCISE,
    /// OPTION_ASSIGNMENT, OPTION_CASH_SETTLEMENT, OPTION_EXPIRE (and the interface's others,
    /// which signet has none of).
    pub activity_types: Option<&'a str>,
    /// UTC, `yyyy-MM-ddTHH:mm:ss.SSSZ` or a day `yyyy-MM-dd`.
    pub start_time: Option<&'a str>,
    pub end_time: Option<&'a str>,
    pub pagination_key: Option<&'a str>,
}

/// Which executions to list ([`Orders::executions`]); all of the account's by default.
#[derive(Debug, Clone, Default)]
pub struct ExecutionFilter<'a> {
    /// The first UTC day, `yyyy-MM-dd`.
    pub start_date: Option<&'a str>,
    /// The last UTC day, `yyyy-MM-dd`.
    pub end_date: Option<&'a str>,
    pub client_order_id: Option<&'a str>,
    pub pagination_key: Option<&'a str>,
    /// 1 to 100; 10 by default.
    pub page_size: Option<u32>,
}

/// The instruments orders name.
pub struct Instruments<'a> {
    client: &'a Client,
}

impl Instruments<'_> {
    /// `GET /trading/instruments/stocks/profiles/list`: the instruments of `symbols` (up to
    /// 100), or, with none, a page of all of them by instrument id.
    pub async fn list(&self, symbols: &[&str], pagination_key: Option<&str>) -> Result<InstrumentPage, Error> {
        let symbols = symbols.join(",");
        let mut query = Vec::new();
        if !symbols.is_empty() {
            query.push(("symbols", symbols.as_str()));
        }
        query.push(("category", "US_STOCK"));
        query.extend(pagination_key.map(|k| ("pagination_key", k)));
        self.client
            .get("/trading/instruments/stocks/profiles/list", &query)
            .await
    }

    /// `GET /trade/calendar`: the US market's trading days from `start` to `end` (yyyy-MM-dd,
    /// at most 30 days apart), each with its sessions.
    pub async fn calendar(&self, start: &str, end: &str) -> Result<Vec<TradeDay>, Error> {
        self.client
            .get("/trade/calendar", &[("market", "US"), ("start", start), ("end", end)])
            .await
    }
}

/// The token mechanism (only needed when the server runs with `--require-token`).
pub struct Tokens<'a> {
    client: &'a Client,
}

impl Tokens<'_> {
    /// `POST /auth/tokens/create`, passing a token saved earlier if there is one.
    pub async fn create(&self, saved: Option<&str>) -> Result<TokenResponse, Error> {
        self.client
            .post(
                "/auth/tokens/create",
                &TokenRequest {
                    token: saved.map(str::to_owned),
                },
            )
            .await
    }

    /// `POST /auth/tokens/check`.
    pub async fn check(&self, token: &str) -> Result<TokenResponse, Error> {
        self.client
            .post(
                "/auth/tokens/check",
                &TokenRequest {
                    token: Some(token.to_owned()),
                },
            )
            .await
    }
}

/// The six screeners (market data).
pub struct Screeners<'a> {
    client: &'a Client,
}

const CATEGORY: (&str, &str) = ("category", "US_STOCK");

impl Screeners<'_> {
    /// Top gainers (`Direction::Desc`) or losers (`Asc`) over the period of `rank`.
    pub async fn gainers_losers(
        &self,
        rank: GainersRank,
        sort_by: SortBy,
        direction: Direction,
    ) -> Result<Vec<ScreenerItem>, Error> {
        let query = [
            ("rank_type", rank.as_str()),
            CATEGORY,
            ("sort_by", sort_by.as_str()),
            ("direction", direction.as_str()),
        ];
        self.client
            .get("/market-data/screeners/gainers-losers/list", &query)
            .await
    }

    pub async fn top_actives(
        &self,
        rank: ActivesRank,
        sort_by: SortBy,
        direction: Direction,
    ) -> Result<Vec<ScreenerItem>, Error> {
        let query = [
            CATEGORY,
            ("rank_type", rank.as_str()),
            ("sort_by", sort_by.as_str()),
            ("direction", direction.as_str()),
        ];
        self.client.get("/market-data/screeners/top-actives/list", &query).await
    }

    pub async fn market_sectors(
        &self,
        agg: AggType,
        period: SectorPeriod,
        direction: Direction,
        pagination_key: Option<&str>,
    ) -> Result<SectorPage, Error> {
        let mut query = vec![
            CATEGORY,
            ("agg_type", agg.as_str()),
            ("period", period.as_str()),
            ("direction", direction.as_str()),
        ];
        query.extend(pagination_key.map(|k| ("pagination_key", k)));
        self.client
            .get("/market-data/screeners/market-sectors/list", &query)
            .await
    }

    pub async fn market_sector(
        &self,
        sector_id: &str,
        period: SectorPeriod,
        sort_by: SortBy,
        direction: Direction,
        pagination_key: Option<&str>,
    ) -> Result<SectorDetail, Error> {
        let mut query = vec![
            ("sector_id", sector_id),
            CATEGORY,
            ("period", period.as_str()),
            ("sort_by", sort_by.as_str()),
            ("direction", direction.as_str()),
        ];
        query.extend(pagination_key.map(|k| ("pagination_key", k)));
        self.client
            .get("/market-data/screeners/market-sectors/get", &query)
            .await
    }

    pub async fn high_dividend(&self, sort_by: SortBy, direction: Direction) -> Result<Vec<ScreenerItem>, Error> {
        let query = [
            CATEGORY,
            ("sort_by", sort_by.as_str()),
            ("direction", direction.as_str()),
        ];
        self.client
            .get("/market-data/screeners/high-dividend-ranks/list", &query)
            .await
    }

    pub async fn week52(
        &self,
        rank: Week52Rank,
        sort_by: SortBy,
        direction: Direction,
    ) -> Result<Vec<ScreenerItem>, Error> {
        let query = [
            ("rank_type", rank.as_str()),
            CATEGORY,
            ("sort_by", sort_by.as_str()),
            ("direction", direction.as_str()),
        ];
        self.client
            .get("/market-data/screeners/week52-high-low/list", &query)
            .await
    }
}

/// US equity options from the simulator, as any app reads them: chains, snapshots and ticks.
pub struct Options<'a> {
    client: &'a Client,
}

impl Options<'_> {
    /// `GET /trading/instruments/options/contracts/list`: every contract of `underlying` listed
    /// today that the extra query parameters keep (`start_date`, `option_type`,
    /// `strike_price_gte`, ...), every page read.
    pub async fn chain(&self, underlying: &str, filter: &[(&str, &str)]) -> Result<Vec<OptionContract>, Error> {
        let mut contracts = Vec::new();
        let mut key: Option<String> = None;
        loop {
            let mut query = vec![("category", "US_OPTION"), ("underlying_symbols", underlying)];
            query.extend_from_slice(filter);
            query.extend(key.as_deref().map(|k| ("pagination_key", k)));
            let page: OptionContractPage = self
                .client
                .get("/trading/instruments/options/contracts/list", &query)
                .await?;
            contracts.extend(page.data);
            match page.pagination_key {
                Some(next) => key = Some(next),
                None => return Ok(contracts),
            }
        }
    }

    /// `GET /market-data/options/snapshots/list`, 20 contracts a call (as many calls as it takes).
    pub async fn snapshots(&self, symbols: &[&str]) -> Result<Vec<OptionSnapshot>, Error> {
        let mut snapshots = Vec::with_capacity(symbols.len());
        for chunk in symbols.chunks(20) {
            let symbols = chunk.join(",");
            let page: Vec<OptionSnapshot> = self
                .client
                .get(
                    "/market-data/options/snapshots/list",
                    &[("symbols", symbols.as_str()), ("category", "US_OPTION")],
                )
                .await?;
            snapshots.extend(page);
        }
        Ok(snapshots)
    }

    /// `GET /market-data/options/ticks/list`: the contract's trades today, newest first.
    pub async fn ticks(&self, symbol: &str, count: Option<u32>) -> Result<OptionTicks, Error> {
        let count = count.map(|c| c.to_string());
        let mut query = vec![("symbol", symbol), ("category", "US_OPTION")];
        query.extend(count.as_deref().map(|c| ("count", c)));
        self.client.get("/market-data/options/ticks/list", &query).await
    }
}

/// Stock market data from the simulator, as any app reads it (catalog §11).
pub struct Stocks<'a> {
    client: &'a Client,
}

impl Stocks<'_> {
    /// `GET /market-data/stocks/snapshots/list`: up to 100 symbols; the extended-hours and
    /// overnight fields when asked for and that session is on.
    pub async fn snapshots(
        &self,
        symbols: &[&str],
        extended_hours: bool,
        overnight: bool,
    ) -> Result<Vec<Snapshot>, Error> {
        let symbols = symbols.join(",");
        let mut query = vec![("symbols", symbols.as_str()), ("category", "US_STOCK")];
        if extended_hours {
            query.push(("extend_hour_required", "true"));
        }
        if overnight {
            query.push(("overnight_required", "true"));
        }
        self.client.get("/market-data/stocks/snapshots/list", &query).await
    }

    /// `GET /market-data/stocks/depths/list`: `depth` levels a side (server default 10).
    pub async fn depth(&self, symbol: &str, depth: Option<u32>) -> Result<Depth, Error> {
        let depth = depth.map(|d| d.to_string());
        let mut query = vec![("symbol", symbol), ("category", "US_STOCK")];
        query.extend(depth.as_deref().map(|d| ("depth", d)));
        self.client.get("/market-data/stocks/depths/list", &query).await
    }

    /// `POST /market-data/stocks/bars/list`: `timespan` S5, S15, M1 to M240, D, W, M or Y,
    /// newest first (server default 200 a symbol).
    pub async fn bars(&self, symbols: &[&str], timespan: &str, count: Option<u32>) -> Result<BarsResponse, Error> {
        let request = BarsRequest {
            symbols: symbols.iter().map(|s| (*s).to_owned()).collect(),
            category: Some("US_STOCK".into()),
            timespan: timespan.to_owned(),
            count: count.map(|c| c.to_string().into()),
            ..BarsRequest::default()
        };
        self.client.post("/market-data/stocks/bars/list", &request).await
    }

    /// `GET /market-data/stocks/ticks/list`: the day's ticks so far, newest first (server
    /// default 30).
    pub async fn ticks(&self, symbol: &str, count: Option<u32>) -> Result<Ticks, Error> {
        let count = count.map(|c| c.to_string());
        let mut query = vec![("symbol", symbol), ("category", "US_STOCK")];
        query.extend(count.as_deref().map(|c| ("count", c)));
        self.client.get("/market-data/stocks/ticks/list", &query).await
    }

    /// `GET /market-data/stocks/footprints/list`: up to 20 symbols, `timespan` S5, S15, M1, M5
    /// or M30, newest first; the bar under way too with `unfinished`.
    pub async fn footprints(
        &self,
        symbols: &[&str],
        timespan: &str,
        count: Option<u32>,
        unfinished: bool,
    ) -> Result<Vec<SymbolFootprints>, Error> {
        let (symbols, count) = (symbols.join(","), count.map(|c| c.to_string()));
        let mut query = vec![
            ("symbols", symbols.as_str()),
            ("category", "US_STOCK"),
            ("timespan", timespan),
        ];
        query.extend(count.as_deref().map(|c| ("count", c)));
        if unfinished {
            query.push(("real_time_required", "true"));
        }
        self.client.get("/market-data/stocks/footprints/list", &query).await
    }
}

/// The market simulator's controls: quotes, pinned prices and the manual clock.
pub struct Market<'a> {
    client: &'a Client,
}

impl Market<'_> {
    pub async fn quote(&self, symbol: &str) -> Result<MarketQuote, Error> {
        self.client.get("/admin/market/quote", &[("symbol", symbol)]).await
    }

    /// Pins `symbol`'s quote at `price` (bid and ask a cent around it unless given).
    pub async fn set(
        &self,
        symbol: &str,
        price: &str,
        bid: Option<&str>,
        ask: Option<&str>,
        size: Option<u64>,
    ) -> Result<MarketQuote, Error> {
        let request = SetQuoteRequest {
            symbol: symbol.to_owned(),
            price: Some(price.to_owned()),
            bid: bid.map(str::to_owned),
            ask: ask.map(str::to_owned),
            size,
            release: false,
        };
        self.client.post("/admin/market/set", &request).await
    }

    /// Lets `symbol` follow the simulation again.
    pub async fn release(&self, symbol: &str) -> Result<MarketQuote, Error> {
        let request = SetQuoteRequest {
            symbol: symbol.to_owned(),
            release: true,
            ..SetQuoteRequest::default()
        };
        self.client.post("/admin/market/set", &request).await
    }

    /// Moves the clock forward (a server started with `--market-clock manual`, or a running one).
    pub async fn step(&self, seconds: u64) -> Result<MarketClock, Error> {
        self.client.post("/admin/market/step", &StepRequest { seconds }).await
    }

    pub async fn clock(&self) -> Result<MarketClock, Error> {
        self.client.get("/admin/market/clock", &[]).await
    }

    /// How the market behaved for `symbol` on `date` (`yyyy-MM-dd`; today when `None`).
    pub async fn stats(&self, symbol: &str, date: Option<&str>) -> Result<MarketStats, Error> {
        let mut query = vec![("symbol", symbol)];
        query.extend(date.map(|d| ("date", d)));
        self.client.get("/admin/market/stats", &query).await
    }
}

/// `/admin/scenarios/...`: the rules that make unhappy paths happen on purpose.
pub struct Scenarios<'a> {
    client: &'a Client,
}

impl Scenarios<'_> {
    pub async fn list(&self) -> Result<ScenarioView, Error> {
        self.client.get("/admin/scenarios", &[]).await
    }

    /// Puts a file of rules (TOML) in force on every node, replacing those in force.
    pub async fn load(&self, text: &str) -> Result<ScenarioView, Error> {
        let request = LoadScenarioRequest { text: text.to_owned() };
        self.client.post("/admin/scenarios/load", &request).await
    }

    pub async fn switch(&self, name: &str, enabled: bool) -> Result<ScenarioView, Error> {
        let request = SwitchRuleRequest {
            name: name.to_owned(),
            enabled,
        };
        self.client.post("/admin/scenarios/switch", &request).await
    }

    pub async fn clear(&self) -> Result<ScenarioView, Error> {
        self.client.post("/admin/scenarios/clear", &serde_json::json!({})).await
    }
}

pub struct Checkpoints<'a> {
    client: &'a Client,
}

impl Checkpoints<'_> {
    fn request(name: &str) -> CheckpointRequest {
        CheckpointRequest { name: name.to_owned() }
    }

    pub async fn list(&self) -> Result<CheckpointList, Error> {
        self.client.get("/admin/checkpoints/list", &[]).await
    }

    /// Saves the whole sandbox's state as `name`, replacing a checkpoint of that name.
    pub async fn save(&self, name: &str) -> Result<CheckpointView, Error> {
        self.client.post("/admin/checkpoints/save", &Self::request(name)).await
    }

    /// Returns the sandbox to `name`; other calls meanwhile are answered 503 `RESTORING`.
    pub async fn restore(&self, name: &str) -> Result<RestoredView, Error> {
        self.client
            .post("/admin/checkpoints/restore", &Self::request(name))
            .await
    }

    pub async fn delete(&self, name: &str) -> Result<CheckpointRequest, Error> {
        self.client
            .post("/admin/checkpoints/delete", &Self::request(name))
            .await
    }

    /// Seals `name` with the server's key as it now is (saved before checkpoints were sealed,
    /// or edited on purpose).
    pub async fn adopt(&self, name: &str) -> Result<CheckpointView, Error> {
        self.client.post("/admin/checkpoints/adopt", &Self::request(name)).await
    }
}

/// The order operations of one account.
pub struct Orders<'a> {
    client: &'a Client,
}

fn placement(account_id: &str, orders: Vec<NewOrder>, client_combo_order_id: Option<&str>) -> PlaceOrderRequest {
    PlaceOrderRequest {
        account_id: account_id.to_owned(),
        new_orders: orders,
        client_combo_order_id: client_combo_order_id.map(str::to_owned),
    }
}

impl Orders<'_> {
    /// `POST /trading/orders/place` with one order.
    pub async fn place(&self, account_id: &str, order: NewOrder) -> Result<OrderAck, Error> {
        let request = placement(account_id, vec![order], None);
        self.client.post("/trading/orders/place", &request).await
    }

    /// `POST /trading/orders/place` with a combination named `client_combo_order_id`: OTO
    /// (`combo_type` MASTER, OTO), OCO (two OCO) or OTOCO (MASTER, STOP_PROFIT, STOP_LOSS).
    pub async fn place_combination(
        &self,
        account_id: &str,
        client_combo_order_id: &str,
        orders: Vec<NewOrder>,
    ) -> Result<OrderAck, Error> {
        let request = placement(account_id, orders, Some(client_combo_order_id));
        self.client.post("/trading/orders/place", &request).await
    }

    /// `POST /trading/orders/preview`: the estimated cost and buying power of one order or a
    /// combination (with its id); nothing is placed.
    pub async fn preview(
        &self,
        account_id: &str,
        orders: Vec<NewOrder>,
        client_combo_order_id: Option<&str>,
    ) -> Result<PreviewResponse, Error> {
        let request = placement(account_id, orders, client_combo_order_id);
        self.client.post("/trading/orders/preview", &request).await
    }

    /// `POST /trading/orders/batch-place`: up to 50 independent orders.
    pub async fn batch_place(&self, account_id: &str, orders: Vec<NewOrder>) -> Result<BatchPlaceResponse, Error> {
        let request = BatchPlaceRequest {
            account_id: account_id.to_owned(),
            batch_orders: orders,
        };
        self.client.post("/trading/orders/batch-place", &request).await
    }

    /// `POST /trading/orders/replace`: a new quantity and/or limit price for an open order.
    pub async fn replace(&self, account_id: &str, modify: ModifyOrder) -> Result<OrderAck, Error> {
        let request = ReplaceOrderRequest {
            account_id: account_id.to_owned(),
            modify_orders: vec![modify],
            client_combo_order_id: None,
        };
        self.client.post("/trading/orders/replace", &request).await
    }

    pub async fn cancel(&self, account_id: &str, client_order_id: &str) -> Result<OrderAck, Error> {
        let request = CancelOrderRequest {
            account_id: account_id.to_owned(),
            client_order_id: client_order_id.to_owned(),
        };
        self.client.post("/trading/orders/cancel", &request).await
    }

    /// `GET /trading/orders/get`.
    pub async fn get(&self, account_id: &str, client_order_id: &str) -> Result<OrderRecord, Error> {
        self.client
            .get(
                "/trading/orders/get",
                &[("account_id", account_id), ("client_order_id", client_order_id)],
            )
            .await
    }

    /// A page of open orders, newest first.
    pub async fn open(&self, account_id: &str, pagination_key: Option<&str>) -> Result<OrderPage, Error> {
        let mut query = vec![("account_id", account_id)];
        query.extend(pagination_key.map(|k| ("pagination_key", k)));
        self.client.get("/trading/orders/open-orders/list", &query).await
    }

    /// A page of the orders placed between two times (`yyyy-MM-ddTHH:mm:ss.SSSZ`; by default
    /// the last 7 days), newest first.
    pub async fn history(
        &self,
        account_id: &str,
        start_time: Option<&str>,
        end_time: Option<&str>,
        pagination_key: Option<&str>,
    ) -> Result<OrderPage, Error> {
        let mut query = vec![("account_id", account_id)];
        query.extend(start_time.map(|t| ("start_time", t)));
        query.extend(end_time.map(|t| ("end_time", t)));
        query.extend(pagination_key.map(|k| ("pagination_key", k)));
        self.client.get("/trading/orders/historical-orders/list", &query).await
    }

    /// `GET /trading/orders/executions/list`: a page of the account's fills, newest first.
    pub async fn executions(&self, account_id: &str, filter: &ExecutionFilter<'_>) -> Result<ExecutionPage, Error> {
        let page_size = filter.page_size.map(|n| n.to_string());
        let mut query = vec![("account_id", account_id)];
        query.extend(filter.start_date.map(|d| ("start_date", d)));
        query.extend(filter.end_date.map(|d| ("end_date", d)));
        query.extend(filter.client_order_id.map(|id| ("client_order_id", id)));
        query.extend(filter.pagination_key.map(|k| ("pagination_key", k)));
        query.extend(page_size.as_deref().map(|n| ("page_size", n)));
        self.client.get("/trading/orders/executions/list", &query).await
    }
}

/// `order` made a single-leg option order of the contract `leg` names: the leg's `symbol` (the
/// underlying), `option_expire_date` (`yyyy-MM-dd`), `option_type` (`CALL` or `PUT`) and
/// `strike_price`. The order gets `instrument_type` `OPTION`, `option_strategy` `SINGLE` and the
/// underlying as its `symbol`; the leg gets `instrument_type` `OPTION`, the market `US`, and the
/// side and quantity (contracts) that the order or the leg gives, so that the two agree as the
/// server requires. Prices stay per share; a contract is 100 shares. Place the result with
/// [`Orders::place`] or [`Orders::preview`].
///
/// Fails with [`Error::InvalidInput`] when the order and its leg give different sides,
/// quantities or underlyings, or neither gives the underlying.
///
/// ```
/// use signet_model::orders::{NewLeg, NewOrder};
///
/// let order = NewOrder {
///     client_order_id: Some("call1".into()),
///     side: Some("BUY".into()),
///     order_type: Some("LIMIT".into()),
///     limit_price: Some("5.00".into()),
///     quantity: Some("2".into()),
///     ..NewOrder::default()
/// };
/// let leg = NewLeg {
///     symbol: Some("AAPL".into()),
///     option_expire_date: Some("2013-03-15".into()),
///     option_type: Some("CALL".into()),
///     strike_price: Some("430".into()),
///     ..NewLeg::default()
/// };
/// let order = signet_client::single_leg_option(order, leg)?;
/// assert_eq!(order.instrument_type.as_deref(), Some("OPTION"));
/// assert_eq!(order.symbol.as_deref(), Some("AAPL"));
/// let legs = order.legs.unwrap_or_default();
/// assert_eq!((legs[0].side.as_deref(), legs[0].quantity.clone()), (Some("BUY"), Some("2".into())));
/// # Ok::<(), signet_client::Error>(())
/// ```
pub fn single_leg_option(mut order: NewOrder, mut leg: NewLeg) -> Result<NewOrder, Error> {
    let invalid = |detail: String| Error::InvalidInput {
        what: "option leg",
        detail,
    };
    // The server takes SHORT for SELL on an option.
    let side = |s: &str| match s.to_ascii_uppercase().as_str() {
        "SHORT" => "SELL".to_owned(),
        other => other.to_owned(),
    };
    match (order.side.as_deref(), leg.side.as_deref()) {
        (Some(o), Some(l)) if side(o) != side(l) => {
            return Err(invalid(format!("its side {l} is not the order's side {o}")));
        }
        (Some(o), None) => leg.side = Some(o.to_owned()),
        (None, Some(l)) => order.side = Some(l.to_owned()),
        _ => {}
    }
    // A decimal string or a JSON number, as the server reads either.
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    match (&order.quantity, &leg.quantity) {
        (Some(o), Some(l)) if text(o) != text(l) => {
            return Err(invalid(format!(
                "its quantity {} is not the order's quantity {}",
                text(l),
                text(o)
            )));
        }
        (Some(o), None) => leg.quantity = Some(o.clone()),
        (None, Some(l)) => order.quantity = Some(l.clone()),
        _ => {}
    }
    let underlying = match (order.symbol.as_deref(), leg.symbol.as_deref()) {
        (Some(o), Some(l)) if !o.eq_ignore_ascii_case(l) => {
            return Err(invalid(format!("its underlying {l} is not the order's symbol {o}")));
        }
        (_, Some(s)) | (Some(s), None) => s.to_ascii_uppercase(),
        (None, None) => return Err(invalid("the underlying is missing: give the leg's symbol".into())),
    };
    order.symbol = Some(underlying.clone());
    order.instrument_type = Some("OPTION".into());
    order.option_strategy = Some("SINGLE".into());
    leg.symbol = Some(underlying);
    leg.instrument_type = Some("OPTION".into());
    leg.market = Some("US".into());
    order.legs = Some(vec![leg]);
    Ok(order)
}

/// Makes `order` a multi-leg option order of `strategy` (VERTICAL, IRON_CONDOR, ...): its
/// quantity counts units of the strategy, and each leg's quantity, when given, is its ratio (its
/// contracts a unit: a butterfly's body is 2), 1 when not; the leg's quantity on the wire is
/// ratio × units. Every leg is of the order's underlying; the order's side is BUY (a debit)
/// unless it says otherwise.
///
/// ```
/// use signet_model::orders::{NewLeg, NewOrder};
///
/// let leg = |side: &str, strike: &str| NewLeg {
///     side: Some(side.into()),
///     symbol: Some("AAPL".into()),
///     option_expire_date: Some("2013-03-15".into()),
///     option_type: Some("CALL".into()),
///     strike_price: Some(strike.into()),
///     ..NewLeg::default()
/// };
/// let order = NewOrder {
///     quantity: Some("3".into()),
///     ..NewOrder::default()
/// };
/// let order = signet_client::multi_leg_option(order, "VERTICAL", vec![leg("BUY", "430"), leg("SELL", "440")])?;
/// assert_eq!(order.option_strategy.as_deref(), Some("VERTICAL"));
/// assert_eq!(order.legs.unwrap()[1].quantity, Some("3".into()));
/// # Ok::<(), signet_client::Error>(())
/// ```
pub fn multi_leg_option(mut order: NewOrder, strategy: &str, mut legs: Vec<NewLeg>) -> Result<NewOrder, Error> {
    let invalid = |detail: String| Error::InvalidInput {
        what: "option legs",
        detail,
    };
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
    let units: u64 = order
        .quantity
        .as_ref()
        .and_then(|q| text(q).parse().ok())
        .filter(|u| *u > 0)
        .ok_or_else(|| invalid("the order's quantity is its units of the strategy: a whole number above 0".into()))?;
    let underlying = order
        .symbol
        .clone()
        .or_else(|| legs.first().and_then(|l| l.symbol.clone()))
        .ok_or_else(|| invalid("the underlying is missing: give the legs' symbol".into()))?
        .to_ascii_uppercase();
    for (i, leg) in legs.iter_mut().enumerate() {
        if leg
            .symbol
            .as_deref()
            .is_some_and(|s| !s.eq_ignore_ascii_case(&underlying))
        {
            return Err(invalid(format!(
                "leg {} is not of the order's underlying {underlying}",
                i + 1
            )));
        }
        let ratio: u64 = match &leg.quantity {
            Some(q) => text(q)
                .parse()
                .ok()
                .filter(|r| *r > 0)
                .ok_or_else(|| invalid(format!("leg {}'s ratio is not a whole number above 0", i + 1)))?,
            None => 1,
        };
        leg.quantity = Some(serde_json::Value::String((ratio * units).to_string()));
        leg.symbol = Some(underlying.clone());
        // A leg without a contract's terms is the underlying's shares (its ratio: shares a unit).
        let shares = leg.option_type.is_none() && leg.strike_price.is_none();
        leg.instrument_type = Some(if shares { "EQUITY" } else { "OPTION" }.into());
        leg.market = Some("US".into());
    }
    order.symbol = Some(underlying);
    order.side = Some(order.side.unwrap_or_else(|| "BUY".into()).to_ascii_uppercase());
    order.instrument_type = Some("OPTION".into());
    order.option_strategy = Some(strategy.to_ascii_uppercase());
    order.legs = Some(legs);
    Ok(order)
}

/// The calling app's watchlists.
pub struct Watchlists<'a> {
    client: &'a Client,
}

impl Watchlists<'_> {
    /// Every watchlist, by sort, highest first.
    pub async fn list(&self) -> Result<Vec<Watchlist>, Error> {
        self.client.get("/market-data/watchlists/list", &[]).await
    }

    /// A new watchlist, at the top unless `sort` says otherwise.
    pub async fn create(&self, name: &str, sort: Option<i64>) -> Result<Watchlist, Error> {
        self.client
            .post(
                "/market-data/watchlists/create",
                &CreateWatchlist {
                    name: Some(name.to_owned()),
                    sort,
                },
            )
            .await
    }

    pub async fn update(&self, watchlist_id: &str, name: Option<&str>, sort: Option<i64>) -> Result<Watchlist, Error> {
        let request = UpdateWatchlist {
            watchlist_id: watchlist_id.to_owned(),
            name: name.map(str::to_owned),
            sort,
        };
        self.client.post("/market-data/watchlists/update", &request).await
    }

    pub async fn delete(&self, watchlist_id: &str) -> Result<WatchlistDeleted, Error> {
        self.client
            .post(
                "/market-data/watchlists/delete",
                &WatchlistId {
                    watchlist_id: watchlist_id.to_owned(),
                },
            )
            .await
    }

    /// A watchlist's instruments, by sort, highest first.
    pub async fn instruments(&self, watchlist_id: &str) -> Result<WatchlistInstruments, Error> {
        self.client
            .get(
                "/market-data/watchlists/instruments/list",
                &[("watchlist_id", watchlist_id)],
            )
            .await
    }

    /// Adds instruments (those present stay as they are).
    pub async fn add(
        &self,
        watchlist_id: &str,
        instruments: Vec<InstrumentRef>,
    ) -> Result<WatchlistInstruments, Error> {
        self.change("add", watchlist_id, instruments).await
    }

    pub async fn remove(
        &self,
        watchlist_id: &str,
        instruments: Vec<InstrumentRef>,
    ) -> Result<WatchlistInstruments, Error> {
        self.change("remove", watchlist_id, instruments).await
    }

    /// Sets the sort of instruments present.
    pub async fn sort(
        &self,
        watchlist_id: &str,
        instruments: Vec<InstrumentRef>,
    ) -> Result<WatchlistInstruments, Error> {
        self.change("update", watchlist_id, instruments).await
    }

    async fn change(
        &self,
        what: &str,
        watchlist_id: &str,
        instruments: Vec<InstrumentRef>,
    ) -> Result<WatchlistInstruments, Error> {
        let request = WatchlistInstrumentsChange {
            watchlist_id: watchlist_id.to_owned(),
            instruments,
        };
        self.client
            .post(&format!("/market-data/watchlists/instruments/{what}"), &request)
            .await
    }
}

/// Fundamentals of one symbol (catalog section 6); every call sends `category` US_STOCK, as the
/// official clients do, funds included.
pub struct Fundamentals<'a> {
    client: &'a Client,
}

const FUNDAMENTALS: &str = "/market-data/fundamentals";

impl Fundamentals<'_> {
    async fn get<T: DeserializeOwned>(&self, path: &str, symbol: &str, extra: &[(&str, &str)]) -> Result<T, Error> {
        let mut query = vec![("symbol", symbol), ("category", "US_STOCK")];
        query.extend_from_slice(extra);
        self.client.get(&format!("{FUNDAMENTALS}/{path}"), &query).await
    }

    pub async fn company_profile(&self, symbol: &str) -> Result<CompanyProfile, Error> {
        self.get("company-profiles/get", symbol, &[]).await
    }

    pub async fn target_price(&self, symbol: &str) -> Result<TargetPrice, Error> {
        self.get("analysis/target-prices/get", symbol, &[]).await
    }

    pub async fn analyst_rating(&self, symbol: &str) -> Result<AnalystRating, Error> {
        self.get("analysis/ratings/get", symbol, &[]).await
    }

    /// The last four reported quarters and the next expected one, oldest first.
    pub async fn forecast_eps(&self, symbol: &str) -> Result<Vec<ForecastEps>, Error> {
        self.get("forecast-eps/get", symbol, &[]).await
    }

    pub async fn filings(&self, symbol: &str) -> Result<Filings, Error> {
        self.get("filings/list", symbol, &[]).await
    }

    pub async fn earnings_calendar(&self, symbol: &str) -> Result<Vec<EarningsEvent>, Error> {
        self.get("earnings-calendars/list", symbol, &[]).await
    }

    pub async fn dividend_calendar(&self, symbol: &str) -> Result<Vec<DividendEvent>, Error> {
        self.get("dividend-calendars/list", symbol, &[]).await
    }

    /// The latest `count` days (1 to 5, 5 by default), newest first.
    pub async fn capital_flow(&self, symbol: &str, count: Option<u32>) -> Result<Vec<CapitalFlow>, Error> {
        let count = count.map(|c| c.to_string());
        let extra: Vec<(&str, &str)> = count.iter().map(|c| ("count", c.as_str())).collect();
        self.get("capital-flows/get", symbol, &extra).await
    }

    pub async fn industry_comparison(
        &self,
        symbol: &str,
        sort_by: Option<ComparisonMetric>,
    ) -> Result<IndustryComparison, Error> {
        let extra: Vec<(&str, &str)> = sort_by.iter().map(|m| ("sort_by", m.as_str())).collect();
        self.get("industry-comparisons/get", symbol, &extra).await
    }

    pub async fn indicators(&self, symbol: &str, report: ReportType, count: u32) -> Result<Indicators, Error> {
        self.statement("indicators/get", symbol, report, count).await
    }

    /// The newest `count` periods (at most 20).
    pub async fn income_statement(
        &self,
        symbol: &str,
        report: ReportType,
        count: u32,
    ) -> Result<Vec<IncomeStatement>, Error> {
        self.statement("income-statements/get", symbol, report, count).await
    }

    pub async fn cash_flow(
        &self,
        symbol: &str,
        report: ReportType,
        count: u32,
    ) -> Result<Vec<CashFlowStatement>, Error> {
        self.statement("cash-flows/get", symbol, report, count).await
    }

    pub async fn balance_sheet(
        &self,
        symbol: &str,
        report: ReportType,
        count: u32,
    ) -> Result<Vec<BalanceSheet>, Error> {
        self.statement("balance-sheets/get", symbol, report, count).await
    }

    async fn statement<T: DeserializeOwned>(
        &self,
        path: &str,
        symbol: &str,
        report: ReportType,
        count: u32,
    ) -> Result<T, Error> {
        let count = count.to_string();
        self.get(path, symbol, &[("type", report.as_str()), ("count", &count)])
            .await
    }

    pub async fn financial_alert(&self, symbol: &str) -> Result<FinancialAlert, Error> {
        self.get("financial-alerts/get", symbol, &[]).await
    }

    pub async fn fund_brief(&self, symbol: &str) -> Result<FundBrief, Error> {
        self.get("fund-brief/get", symbol, &[]).await
    }

    pub async fn fund_performance(&self, symbol: &str) -> Result<FundPerformance, Error> {
        self.get("fund-performances/get", symbol, &[]).await
    }

    /// Up to `count` days (at most 20) up to `last_date` (`YYYY-MM-DD`, inclusive), newest first.
    pub async fn fund_net_value(
        &self,
        symbol: &str,
        last_date: Option<&str>,
        count: Option<u32>,
    ) -> Result<Vec<FundNetValue>, Error> {
        let count = count.map(|c| c.to_string());
        let mut extra: Vec<(&str, &str)> = last_date.iter().map(|d| ("last_date", *d)).collect();
        extra.extend(count.iter().map(|c| ("count", c.as_str())));
        self.get("fund-net-values/get", symbol, &extra).await
    }

    pub async fn fund_holdings(&self, symbol: &str) -> Result<Vec<FundHolding>, Error> {
        self.get("fund-holdings/get", symbol, &[]).await
    }

    pub async fn fund_dividends(&self, symbol: &str, pagination_key: Option<&str>) -> Result<FundDividendPage, Error> {
        let extra: Vec<(&str, &str)> = pagination_key.iter().map(|k| ("pagination_key", *k)).collect();
        self.get("fund-dividends/get", symbol, &extra).await
    }

    pub async fn fund_rating(&self, symbol: &str) -> Result<Vec<FundRating>, Error> {
        self.get("fund-ratings/get", symbol, &[]).await
    }

    pub async fn fund_splits(&self, symbol: &str) -> Result<Vec<FundSplit>, Error> {
        self.get("fund-splits/get", symbol, &[]).await
    }

    pub async fn fund_files(&self, symbol: &str) -> Result<Vec<FundFile>, Error> {
        self.get("fund-files/get", symbol, &[]).await
    }

    pub async fn fund_allocation(&self, symbol: &str) -> Result<Vec<FundAllocation>, Error> {
        self.get("fund-allocations/get", symbol, &[]).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(side: Option<&str>) -> NewLeg {
        NewLeg {
            side: side.map(str::to_owned),
            symbol: Some("aapl".into()),
            option_expire_date: Some("2013-03-15".into()),
            option_type: Some("CALL".into()),
            strike_price: Some("430".into()),
            ..NewLeg::default()
        }
    }

    fn order(side: Option<&str>, symbol: Option<&str>) -> NewOrder {
        NewOrder {
            side: side.map(str::to_owned),
            symbol: symbol.map(str::to_owned),
            instrument_type: Some("EQUITY".into()),
            quantity: Some("2".into()),
            ..NewOrder::default()
        }
    }

    #[test]
    fn a_single_leg_option_takes_the_side_it_is_given_and_names_the_underlying() {
        let made = single_leg_option(order(None, None), call(Some("BUY"))).unwrap();
        assert_eq!(
            (
                made.side.as_deref(),
                made.symbol.as_deref(),
                made.instrument_type.as_deref(),
                made.option_strategy.as_deref()
            ),
            (Some("BUY"), Some("AAPL"), Some("OPTION"), Some("SINGLE"))
        );
        let leg = &made.legs.as_deref().unwrap()[0];
        assert_eq!(
            (
                leg.symbol.as_deref(),
                leg.instrument_type.as_deref(),
                leg.market.as_deref(),
                leg.quantity.clone()
            ),
            (Some("AAPL"), Some("OPTION"), Some("US"), Some("2".into()))
        );
        let sold = single_leg_option(order(Some("SHORT"), Some("AAPL")), call(Some("sell"))).unwrap();
        assert_eq!(sold.side.as_deref(), Some("SHORT"), "SHORT is SELL on an option");
    }

    #[test]
    fn a_leg_that_disagrees_with_its_order_is_refused() {
        let refused = |order: NewOrder, leg: NewLeg| single_leg_option(order, leg).unwrap_err().to_string();
        assert_eq!(
            refused(order(Some("SELL"), None), call(Some("BUY"))),
            "invalid option leg: its side BUY is not the order's side SELL"
        );
        assert_eq!(
            refused(order(None, Some("MSFT")), call(None)),
            "invalid option leg: its underlying aapl is not the order's symbol MSFT"
        );
        let three = NewLeg {
            quantity: Some("3".into()),
            ..call(None)
        };
        assert_eq!(
            refused(order(None, None), three),
            "invalid option leg: its quantity 3 is not the order's quantity 2"
        );
        let nameless = NewLeg {
            symbol: None,
            ..call(None)
        };
        assert!(refused(order(None, None), nameless).contains("the underlying is missing"));
    }
}
