//! A statement written once for both backends: its SQL (placeholders `$1`, `$2`, … which both
//! SQLite and PostgreSQL read) and its arguments, bound natively when it runs on one pool or
//! transaction or the other. Rows decode through `sqlx::FromRow`, derived once for both.
//!
//! sqlx's own `Any` driver would do the dispatch, but converts every row and argument through
//! its own value type, cannot read SQLite's `BOOLEAN` columns, and takes SQLite's settings only
//! from a URL; this keeps sqlx's native drivers and their types, at the cost of one `match`.

use std::borrow::Cow;

use signet_model::ids::{AccountId, AppKey, ClientOrderId, OrderId};
use sqlx::postgres::{PgArguments, PgConnection, PgPool, PgRow};
use sqlx::sqlite::{SqliteArguments, SqliteConnection, SqlitePool, SqliteRow};
use sqlx::{Arguments, AssertSqlSafe, Encode, Postgres, SqlSafeStr, SqlStr, Sqlite, Transaction, Type};

use crate::StoreError;

/// Which SQL a statement may rely on, where the two backends differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection pool of either backend.
#[derive(Debug, Clone)]
pub enum Pool {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

impl Pool {
    pub fn dialect(&self) -> Dialect {
        match self {
            Pool::Sqlite(_) => Dialect::Sqlite,
            Pool::Postgres(_) => Dialect::Postgres,
        }
    }

    pub async fn begin(&self) -> Result<Tx, StoreError> {
        Ok(match self {
            Pool::Sqlite(p) => Tx::Sqlite(p.begin().await.map_err(map_err)?),
            Pool::Postgres(p) => Tx::Postgres(p.begin().await.map_err(map_err)?),
        })
    }

    /// Begins a transaction that will write: on SQLite `BEGIN IMMEDIATE`, which takes the write
    /// lock at once (waiting for it up to the busy timeout), where a deferred transaction that
    /// reads first fails at its first write if another connection wrote meanwhile.
    pub async fn begin_write(&self) -> Result<Tx, StoreError> {
        Ok(match self {
            Pool::Sqlite(p) => Tx::Sqlite(p.begin_with("BEGIN IMMEDIATE").await.map_err(map_err)?),
            Pool::Postgres(p) => Tx::Postgres(p.begin().await.map_err(map_err)?),
        })
    }

    pub async fn close(&self) {
        match self {
            Pool::Sqlite(p) => p.close().await,
            Pool::Postgres(p) => p.close().await,
        }
    }
}

/// A transaction of either backend; dropped without [`Tx::commit`], it rolls back.
pub enum Tx {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

impl Tx {
    pub fn dialect(&self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres(_) => Dialect::Postgres,
        }
    }

    pub async fn commit(self) -> Result<(), StoreError> {
        match self {
            Tx::Sqlite(tx) => tx.commit().await,
            Tx::Postgres(tx) => tx.commit().await,
        }
        .map_err(map_err)
    }
}

/// Where a statement runs: a pool, or the connection of a transaction.
pub enum Conn<'c> {
    SqlitePool(&'c SqlitePool),
    PgPool(&'c PgPool),
    Sqlite(&'c mut SqliteConnection),
    Postgres(&'c mut PgConnection),
}

impl Conn<'_> {
    /// The same place for one more statement, so that several run on one connection.
    pub fn reborrow(&mut self) -> Conn<'_> {
        match self {
            Conn::SqlitePool(p) => Conn::SqlitePool(p),
            Conn::PgPool(p) => Conn::PgPool(p),
            Conn::Sqlite(c) => Conn::Sqlite(c),
            Conn::Postgres(c) => Conn::Postgres(c),
        }
    }
}

impl<'c> From<&'c Pool> for Conn<'c> {
    fn from(pool: &'c Pool) -> Self {
        match pool {
            Pool::Sqlite(p) => Conn::SqlitePool(p),
            Pool::Postgres(p) => Conn::PgPool(p),
        }
    }
}

impl<'c> From<&'c mut Tx> for Conn<'c> {
    fn from(tx: &'c mut Tx) -> Self {
        match tx {
            Tx::Sqlite(tx) => Conn::Sqlite(tx),
            Tx::Postgres(tx) => Conn::Postgres(tx),
        }
    }
}

/// A row type decoded the same way from either backend (derive or tuple).
pub trait FromRow: for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin {}
impl<T> FromRow for T where T: for<'r> sqlx::FromRow<'r, SqliteRow> + for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin {}

/// An argument, typed as the column it goes to (PostgreSQL wants the type even of a NULL).
#[derive(Debug, Clone)]
pub enum Arg<'q> {
    Int(Option<i64>),
    Int32(Option<i32>),
    Float(Option<f64>),
    Bool(Option<bool>),
    Text(Option<Cow<'q, str>>),
    Bytes(Option<Cow<'q, [u8]>>),
}

/// A value a statement takes as an argument.
pub trait Bind<'q> {
    fn arg(self) -> Arg<'q>;
    /// A NULL of this type.
    fn null() -> Arg<'q>;
}

macro_rules! bind_by_value {
    ($($t:ty => $variant:ident),* $(,)?) => {$(
        impl<'q> Bind<'q> for $t {
            fn arg(self) -> Arg<'q> {
                Arg::$variant(Some(self.into()))
            }
            fn null() -> Arg<'q> {
                Arg::$variant(None)
            }
        }
    )*};
}

bind_by_value! {
    i64 => Int,
    i32 => Int32,
    f64 => Float,
    bool => Bool,
    &'q str => Text,
    String => Text,
    &'q String => Text,
    &'q [u8] => Bytes,
    Vec<u8> => Bytes,
    &'q Vec<u8> => Bytes,
}

/// The two clocks' times are stored as their milliseconds; the type says which clock a column
/// holds where the code reads or writes it.
macro_rules! bind_time {
    ($($t:ty),* $(,)?) => {$(
        impl<'q> Bind<'q> for $t {
            fn arg(self) -> Arg<'q> {
                Arg::Int(Some(self.0))
            }
            fn null() -> Arg<'q> {
                Arg::Int(None)
            }
        }
    )*};
}

bind_time!(signet_domain::times::SimTime, signet_domain::times::WallTime);

/// The typed ids are stored as their text or number; the type says which id a column holds
/// where the code reads or writes it.
macro_rules! bind_id {
    ($($t:ty),* $(,)?) => {$(
        impl<'q> Bind<'q> for &'q $t {
            fn arg(self) -> Arg<'q> {
                Arg::Text(Some(Cow::Borrowed(self.as_str())))
            }
            fn null() -> Arg<'q> {
                Arg::Text(None)
            }
        }
        impl<'q> Bind<'q> for $t {
            fn arg(self) -> Arg<'q> {
                Arg::Text(Some(Cow::Owned(self.into_string())))
            }
            fn null() -> Arg<'q> {
                Arg::Text(None)
            }
        }
    )*};
}

bind_id!(AccountId, OrderId, ClientOrderId, AppKey);

impl<'q, T: Bind<'q>> Bind<'q> for Option<T> {
    fn arg(self) -> Arg<'q> {
        match self {
            Some(value) => value.arg(),
            None => T::null(),
        }
    }
    fn null() -> Arg<'q> {
        T::null()
    }
}

/// A statement and its arguments.
#[derive(Debug, Clone)]
pub struct Query<'q> {
    sql: Cow<'static, str>,
    args: Vec<Arg<'q>>,
}

/// Starts a statement.
pub fn query<'q>(sql: impl Into<Cow<'static, str>>) -> Query<'q> {
    Query {
        sql: sql.into(),
        args: Vec::new(),
    }
}

/// Binds `$query` for the backend of `$conn`, makes it with `$make` (`sqlx::query_with` or
/// `sqlx::query_as_with`) and runs `$run` with it as `$q` on the pool or connection `$on`.
macro_rules! on_backend {
    ($query:expr, $conn:expr, $make:path, |$q:ident, $on:ident| $run:expr) => {{
        match $conn.into() {
            Conn::SqlitePool($on) => on_backend!(@run $make, $query.sqlite()?, |$q| $run),
            Conn::Sqlite($on) => on_backend!(@run $make, $query.sqlite()?, |$q| $run),
            Conn::PgPool($on) => on_backend!(@run $make, $query.postgres()?, |$q| $run),
            Conn::Postgres($on) => on_backend!(@run $make, $query.postgres()?, |$q| $run),
        }
        .map_err(map_err)
    }};
    (@run $make:path, $bound:expr, |$q:ident| $run:expr) => {{
        let (sql, args) = $bound;
        let $q = $make(sql, args);
        $run
    }};
}

impl<'q> Query<'q> {
    /// Binds the next numbered placeholder (`$1`, then `$2`, …).
    pub fn bind(mut self, value: impl Bind<'q>) -> Self {
        self.args.push(value.arg());
        self
    }

    /// Appends SQL text.
    pub fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.to_mut().push_str(sql);
        self
    }

    /// Appends a placeholder for `value`.
    pub fn push_bind(&mut self, value: impl Bind<'q>) -> &mut Self {
        self.args.push(value.arg());
        let n = self.args.len();
        self.sql.to_mut().push_str(&format!("${n}"));
        self
    }

    /// Appends `VALUES (…), (…)`: one tuple per item, whose values `row` binds.
    pub fn push_values<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        mut row: impl FnMut(&mut Tuple<'_, 'q>, T),
    ) -> &mut Self {
        self.push("VALUES ");
        for (i, item) in items.into_iter().enumerate() {
            self.push(if i == 0 { "(" } else { ", (" });
            row(
                &mut Tuple {
                    query: self,
                    first: true,
                },
                item,
            );
            self.push(")");
        }
        self
    }

    /// Appends `expr IN ($1, $2, …)` of `values`, or a false condition when there are none
    /// (PostgreSQL has no empty list).
    pub fn push_in<T: Bind<'q>>(&mut self, expr: &str, values: impl IntoIterator<Item = T>) -> &mut Self {
        let mut values = values.into_iter().peekable();
        if values.peek().is_none() {
            return self.push("1 = 0");
        }
        self.push(expr).push(" IN (");
        let mut tuple = Tuple {
            query: self,
            first: true,
        };
        for value in values {
            tuple.bind(value);
        }
        self.push(")")
    }

    fn sqlite(self) -> Result<(SqlStr, SqliteArguments), StoreError> {
        let (sql, args) = sqlite_statement(self.sql, self.args);
        Ok((sql, bind_all(args)?))
    }

    fn postgres(self) -> Result<(SqlStr, PgArguments), StoreError> {
        Ok((sql_str(self.sql), bind_all(self.args)?))
    }

    /// Runs the statement; how many rows it changed.
    pub async fn execute<'c>(self, conn: impl Into<Conn<'c>>) -> Result<u64, StoreError> {
        on_backend!(self, conn, sqlx::query_with, |q, on| q
            .execute(on)
            .await
            .map(|done| done.rows_affected()))
    }

    pub async fn fetch_all<'c, T: FromRow>(self, conn: impl Into<Conn<'c>>) -> Result<Vec<T>, StoreError> {
        on_backend!(self, conn, sqlx::query_as_with, |q, on| q.fetch_all(on).await)
    }

    /// Hands each row to `each` as it arrives, for results too large to hold at once.
    pub async fn for_each<'c, T: FromRow>(
        self,
        conn: impl Into<Conn<'c>>,
        mut each: impl FnMut(T) + Send,
    ) -> Result<(), StoreError> {
        use futures_util::TryStreamExt as _;
        on_backend!(self, conn, sqlx::query_as_with, |q, on| {
            let mut rows = q.fetch(on);
            loop {
                match rows.try_next().await {
                    Ok(Some(row)) => each(row),
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            }
        })
    }

    pub async fn fetch_optional<'c, T: FromRow>(self, conn: impl Into<Conn<'c>>) -> Result<Option<T>, StoreError> {
        on_backend!(self, conn, sqlx::query_as_with, |q, on| q.fetch_optional(on).await)
    }

    pub async fn fetch_one<'c, T: FromRow>(self, conn: impl Into<Conn<'c>>) -> Result<T, StoreError> {
        on_backend!(self, conn, sqlx::query_as_with, |q, on| q.fetch_one(on).await)
    }
}

/// The values of one tuple of [`Query::push_values`] or [`Query::push_in`].
pub struct Tuple<'a, 'q> {
    query: &'a mut Query<'q>,
    first: bool,
}

impl<'q> Tuple<'_, 'q> {
    pub fn bind(&mut self, value: impl Bind<'q>) -> &mut Self {
        if !std::mem::take(&mut self.first) {
            self.query.push(", ");
        }
        self.query.push_bind(value);
        self
    }

    /// A literal SQL expression in place of a bound value (a constant or `NULL`).
    pub fn literal(&mut self, sql: &str) -> &mut Self {
        if !std::mem::take(&mut self.first) {
            self.query.push(", ");
        }
        self.query.push(sql);
        self
    }
}

fn sql_str(sql: Cow<'static, str>) -> SqlStr {
    match sql {
        Cow::Borrowed(s) => s.into_sql_str(),
        Cow::Owned(s) => AssertSqlSafe(s).into_sql_str(),
    }
}

/// The statement and arguments as SQLite takes them best: each `$N` replaced by an anonymous
/// `?`, its argument in that place. SQLite (and sqlx's binding) find a named or numbered
/// parameter by a linear search, which a multi-row INSERT of thousands of parameters pays for
/// quadratically; anonymous ones cost nothing to find.
fn sqlite_statement<'q>(sql: Cow<'static, str>, args: Vec<Arg<'q>>) -> (SqlStr, Vec<Arg<'q>>) {
    let bytes = sql.as_bytes();
    let mut text = String::with_capacity(sql.len());
    let mut order = Vec::with_capacity(args.len());
    let (mut i, mut copied) = (0, 0);
    while i < bytes.len() {
        if bytes[i] != b'$' || !bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut n = 0usize;
        while let Some(digit) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
            n = n * 10 + usize::from(digit - b'0');
            i += 1;
        }
        text.push_str(&sql[copied..start]);
        text.push('?');
        copied = i;
        order.push(n);
    }
    if order.is_empty() {
        return (sql_str(sql), args);
    }
    text.push_str(&sql[copied..]);
    let in_place = order.iter().enumerate().all(|(i, &n)| n == i + 1) && order.len() == args.len();
    let args = if in_place {
        args
    } else {
        // A placeholder out of order or used twice: its argument is copied to each place
        // (a missing one binds NULL, as SQLite does).
        order
            .iter()
            .map(|&n| args.get(n.wrapping_sub(1)).cloned().unwrap_or(Arg::Text(None)))
            .collect()
    };
    (AssertSqlSafe(text).into_sql_str(), args)
}

/// The arguments, encoded for one backend.
fn bind_all<'q, A>(args: Vec<Arg<'q>>) -> Result<A, StoreError>
where
    A: Arguments,
    Option<i64>: Encode<'q, A::Database> + Type<A::Database>,
    Option<i32>: Encode<'q, A::Database> + Type<A::Database>,
    Option<f64>: Encode<'q, A::Database> + Type<A::Database>,
    Option<bool>: Encode<'q, A::Database> + Type<A::Database>,
    Option<Cow<'q, str>>: Encode<'q, A::Database> + Type<A::Database>,
    Option<Cow<'q, [u8]>>: Encode<'q, A::Database> + Type<A::Database>,
{
    let mut out = A::default();
    for arg in args {
        match arg {
            Arg::Int(v) => out.add(v),
            Arg::Int32(v) => out.add(v),
            Arg::Float(v) => out.add(v),
            Arg::Bool(v) => out.add(v),
            Arg::Text(v) => out.add(v),
            Arg::Bytes(v) => out.add(v),
        }
        .map_err(|e| StoreError::Other(format!("binding an argument: {e}")))?;
    }
    Ok(out)
}

/// Sorts sqlx errors into the kinds the rest of the server acts on.
pub fn map_err(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::Tls(_) => {
            StoreError::Unavailable(e.to_string())
        }
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(db.message().to_owned()),
        sqlx::Error::Database(db) if busy(db.as_ref()) => StoreError::Unavailable(db.message().to_owned()),
        _ => StoreError::Other(e.to_string()),
    }
}

/// A database error worth trying again shortly.
fn busy(db: &dyn sqlx::error::DatabaseError) -> bool {
    let Some(code) = db.code() else {
        return false;
    };
    if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
        // SQLITE_BUSY (5) and SQLITE_LOCKED (6), with their extended codes.
        return code.parse::<i32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6));
    }
    // PostgreSQL: class 08 (connection exception), 53 (too many connections, out of memory or
    // disk), 57P01-57P03 (shutting down, cannot connect now), 55000 (a database that does not
    // accept connections, as during maintenance), 40001/40P01 (serialization failure, deadlock),
    // 55P03 (a lock not had within `lock_timeout`: an account's turn held too long elsewhere).
    code.starts_with("08")
        || code.starts_with("53")
        || code.starts_with("57P")
        || matches!(&*code, "55000" | "55P03" | "40001" | "40P01")
}
