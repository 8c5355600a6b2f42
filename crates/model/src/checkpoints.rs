//! Checkpoints of the whole sandbox (`/admin/checkpoints/...`, apps created with `--admin`):
//! known states a running server returns to.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /admin/checkpoints/save`, `/restore` and `/delete`: the checkpoint's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CheckpointRequest {
    /// 1 to 48 letters, digits, `-` and `_`.
    #[schema(example = "before-tests")]
    pub name: String,
}

/// One checkpoint, as saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CheckpointView {
    pub name: String,
    /// When it was saved, `yyyy-MM-ddTHH:mm:ss.SSSZ` (wall clock).
    pub saved: String,
    /// The simulator's clock it holds, `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    pub market_time: String,
    /// The step of the database's history (its migrations) it was made at.
    pub schema_version: i64,
    pub accounts: u64,
    pub orders: u64,
    /// Its size on disk (SQLite) or in the database (PostgreSQL), in bytes.
    pub bytes: u64,
}

/// `GET /admin/checkpoints/list`: every checkpoint, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct CheckpointList {
    pub checkpoints: Vec<CheckpointView>,
}

/// What a restore did, and how long the server refused other calls for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RestoredView {
    pub checkpoint: CheckpointView,
    /// Milliseconds from the first refused call's moment to the server serving again.
    pub restoring_ms: u64,
}
