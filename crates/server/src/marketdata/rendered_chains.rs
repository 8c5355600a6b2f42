//! The option chains rendered once a day: the data alone, apart from the listing's handlers,
//! so that the server's state can hold it without importing them.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use signet_domain::options::Contract;
use signet_domain::options::market::Underlying;

/// The listing's rows of one underlying's chain, rendered once a day: each contract with its
/// JSON, so that a page of 1,000 (about 480 KB) is the rows it keeps joined, not 1,000 answers
/// built and serialized again for every page a bot reads.
pub struct RenderedChain {
    pub(super) u: Arc<Underlying>,
    pub(super) rows: Vec<(i64, Contract, Arc<str>)>,
}

/// What a chain is rendered for: (underlying id, day, seed, with deliverables).
pub(super) type ChainKey = (i64, i32, u64, bool);

/// The chains rendered today, shared by every request through [`crate::state::AppState`]; the
/// option listing ([`super::options`]) renders and reads them.
#[derive(Default)]
pub struct RenderedChains(pub(super) Mutex<HashMap<ChainKey, Arc<RenderedChain>>>);

/// Chains kept rendered (under 1 MB each: AAPL's 1,720 rows are 820 KB) before the cache starts
/// again.
pub(super) const MAX_RENDERED: usize = 64;
