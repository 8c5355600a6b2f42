//! The bounds on an order's numbers, apart from the rules that use them, so that the simulator
//! can bound a pinned price the same way without reading the order rules.

/// The largest quantity one order may carry.
pub const MAX_QUANTITY: u64 = 10_000_000;
/// The largest price (limit, stop, trailing amount): with [`MAX_QUANTITY`], what an order is
/// worth stays far inside what the arithmetic holds (found by the `order_body` fuzz target).
pub const MAX_PRICE: u64 = 10_000_000;
