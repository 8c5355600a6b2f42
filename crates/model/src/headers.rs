//! Header names and fixed values of section 5.1.

pub const APP_KEY: &str = "x-app-key";
pub const TIMESTAMP: &str = "x-timestamp";
pub const SIGNATURE: &str = "x-signature";
pub const SIGNATURE_ALGORITHM: &str = "x-signature-algorithm";
pub const SIGNATURE_VERSION: &str = "x-signature-version";
pub const SIGNATURE_NONCE: &str = "x-signature-nonce";
pub const VERSION: &str = "x-version";
/// Carries a token of the token mechanism when the server requires one; not signed.
pub const ACCESS_TOKEN: &str = "x-access-token";
pub const REQUEST_ID: &str = "x-request-id";
/// On every answer a scenario rule touched: the rule's name (signet's addition).
pub const SCENARIO: &str = "x-signet-scenario";

/// The only accepted `x-version` (v2 was retired on 2026-09-20).
pub const API_VERSION: &str = "v3";
/// The only accepted `x-signature-version`.
pub const SIGNATURE_VERSION_1_0: &str = "1.0";
