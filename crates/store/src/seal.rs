//! The seal of a checkpoint: an HMAC-SHA-256, under a key derived from the server's master key,
//! of a digest of everything the checkpoint holds. Whoever can write the checkpoint folder (or a
//! checkpoint schema) without the master key cannot make a checkpoint the server will restore.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use zeroize::Zeroizing;

/// The key that seals checkpoints. The store holds it; it never enters the database.
pub struct CheckpointKey(Zeroizing<[u8; 32]>);

impl std::fmt::Debug for CheckpointKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CheckpointKey(..)")
    }
}

impl CheckpointKey {
    pub fn new(key: Zeroizing<[u8; 32]>) -> Self {
        CheckpointKey(key)
    }

    fn mac(&self, digest: &[u8; 32]) -> Hmac<Sha256> {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(self.0.as_slice()).expect("HMAC accepts any key");
        mac.update(digest);
        mac
    }

    /// The seal of a checkpoint whose content hashes to `digest`, as hex.
    pub fn seal(&self, digest: &[u8; 32]) -> String {
        hex::encode(self.mac(digest).finalize().into_bytes())
    }

    /// Whether `seal` is the seal of `digest`, compared in constant time.
    pub fn verifies(&self, digest: &[u8; 32], seal: &str) -> bool {
        hex::decode(seal).is_ok_and(|bytes| self.mac(digest).verify_slice(&bytes).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_verifies_only_its_digest_under_its_key() {
        let key = CheckpointKey::new(Zeroizing::new([1; 32]));
        let seal = key.seal(&[2; 32]);
        assert!(key.verifies(&[2; 32], &seal));
        assert!(!key.verifies(&[3; 32], &seal));
        assert!(!CheckpointKey::new(Zeroizing::new([9; 32])).verifies(&[2; 32], &seal));
        assert!(!key.verifies(&[2; 32], &seal[..62]));
        assert!(!key.verifies(&[2; 32], "not hex"));
    }
}
