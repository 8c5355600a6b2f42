//! App secrets at rest, and the random values the server hands out.
//!
//! An HMAC can only be verified with the secret in plain text, so secrets cannot be hashed like
//! passwords. They are sealed with AES-256-GCM under a master key that never enters the
//! database: `SIGNET_MASTER_KEY`, or a key file created beside the database with mode 0600.
//! The app key is the associated data, so a sealed secret copied onto another app's row does
//! not open.

use std::io::{ErrorKind, Write as _};
use std::path::{Path, PathBuf};

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;
use zeroize::Zeroizing;

const NONCE_LEN: usize = 12;

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("the master key must be 32 bytes written as 64 hex characters")]
    Malformed,
    #[error("cannot read or create the key file {path}: {source}")]
    File { path: PathBuf, source: std::io::Error },
    #[error("a sealed secret does not open with this master key")]
    Unseal,
    #[error("the operating system's random number generator failed: {0}")]
    Random(String),
}

/// The key that seals app secrets.
pub struct MasterKey {
    cipher: Aes256Gcm,
    fingerprint: String,
    /// The key of checkpoints' seals, derived from this one.
    checkpoints: Zeroizing<[u8; 32]>,
}

impl std::fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MasterKey")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

impl MasterKey {
    /// The key given as 64 hex characters (from `SIGNET_MASTER_KEY`), or else the one in
    /// `key_file`, which is created with fresh random bytes and mode 0600 if it does not exist.
    pub fn load(given: Option<&SecretString>, key_file: &Path) -> Result<Self, KeyError> {
        match given {
            Some(hex_key) => Self::from_hex(hex_key.expose_secret().trim()),
            None => Self::from_file(key_file),
        }
    }

    /// Where the key file of the database at `db_path` lives: beside it, `<db>.key`.
    pub fn default_file(db_path: &Path) -> PathBuf {
        let mut name = db_path
            .file_name()
            .map(std::ffi::OsStr::to_os_string)
            .unwrap_or_default();
        name.push(".key");
        db_path.with_file_name(name)
    }

    /// Reads the key file, or creates it: written in full under a temporary name (mode 0600
    /// from the start) and renamed into place only if no other process put one there first, so
    /// that no reader ever sees part of a key and no key is ever replaced.
    fn from_file(path: &Path) -> Result<Self, KeyError> {
        let file_error = |source| KeyError::File {
            path: path.to_owned(),
            source,
        };
        match std::fs::read_to_string(path) {
            Ok(text) => return Self::from_hex(Zeroizing::new(text).trim()),
            Err(e) if e.kind() != ErrorKind::NotFound => return Err(file_error(e)),
            Err(_) => {}
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        let mut temp = tempfile::Builder::new()
            .prefix(".signet-key-")
            .tempfile_in(dir)
            .map_err(file_error)?;
        let key = Zeroizing::new(random_bytes::<32>()?);
        let text = Zeroizing::new(hex::encode(*key));
        temp.write_all(text.as_bytes())
            .and_then(|()| temp.write_all(b"\n"))
            .map_err(file_error)?;
        temp.as_file().sync_all().map_err(file_error)?;
        match temp.persist_noclobber(path) {
            Ok(_) => {
                // The new name is durable too: a database whose key was lost cannot be opened.
                #[cfg(unix)]
                std::fs::File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(file_error)?;
                Self::from_hex(&text)
            }
            // Another process created it meanwhile (the temporary file is removed on drop).
            Err(e) if e.error.kind() == ErrorKind::AlreadyExists => {
                let text = Zeroizing::new(std::fs::read_to_string(path).map_err(file_error)?);
                Self::from_hex(text.trim())
            }
            Err(e) => Err(file_error(e.error)),
        }
    }

    fn from_hex(text: &str) -> Result<Self, KeyError> {
        let mut key = Zeroizing::new([0u8; 32]);
        hex::decode_to_slice(text, key.as_mut_slice()).map_err(|_| KeyError::Malformed)?;
        Ok(Self::from_bytes(&key))
    }

    pub fn from_bytes(key: &[u8; 32]) -> Self {
        let cipher = Aes256Gcm::new_from_slice(key).expect("a 32-byte key");
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts any key");
        mac.update(b"signet master key fingerprint");
        let fingerprint = hex::encode(&mac.finalize().into_bytes()[..8]);
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(key).expect("HMAC accepts any key");
        mac.update(b"signet checkpoint seal key");
        let checkpoints = Zeroizing::new(mac.finalize().into_bytes().into());
        MasterKey {
            cipher,
            fingerprint,
            checkpoints,
        }
    }

    /// The key that seals checkpoints: apart from the one that seals secrets, so that neither
    /// use can be turned against the other.
    pub fn checkpoint_key(&self) -> signet_store::CheckpointKey {
        signet_store::CheckpointKey::new(self.checkpoints.clone())
    }

    /// Identifies the key without revealing it, so a database can tell that it is opened with
    /// a different key than the one that sealed its secrets.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    pub fn seal(&self, app_key: &str, secret: &SecretString) -> Result<Vec<u8>, KeyError> {
        let nonce_bytes = random_bytes::<NONCE_LEN>()?;
        let nonce = Nonce::try_from(&nonce_bytes[..]).expect("12-byte nonce");
        let payload = Payload {
            msg: secret.expose_secret().as_bytes(),
            aad: app_key.as_bytes(),
        };
        let ciphertext = self.cipher.encrypt(&nonce, payload).map_err(|_| KeyError::Unseal)?;
        let mut sealed = Vec::with_capacity(NONCE_LEN + ciphertext.len());
        sealed.extend_from_slice(&nonce_bytes);
        sealed.extend_from_slice(&ciphertext);
        Ok(sealed)
    }

    pub fn open(&self, app_key: &str, sealed: &[u8]) -> Result<SecretString, KeyError> {
        if sealed.len() < NONCE_LEN {
            return Err(KeyError::Unseal);
        }
        let (nonce, ciphertext) = sealed.split_at(NONCE_LEN);
        let nonce = Nonce::try_from(nonce).map_err(|_| KeyError::Unseal)?;
        let plain = Zeroizing::new(
            self.cipher
                .decrypt(
                    &nonce,
                    Payload {
                        msg: ciphertext,
                        aad: app_key.as_bytes(),
                    },
                )
                .map_err(|_| KeyError::Unseal)?,
        );
        let text = std::str::from_utf8(&plain).map_err(|_| KeyError::Unseal)?;
        Ok(SecretString::from(text))
    }
}

pub fn random_bytes<const N: usize>() -> Result<[u8; N], KeyError> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| KeyError::Random(e.to_string()))?;
    Ok(bytes)
}

/// `N` random bytes as lower-case hex (app keys, secrets, tokens).
pub fn random_hex<const N: usize>() -> Result<String, KeyError> {
    Ok(hex::encode(random_bytes::<N>()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_secrets_open_only_with_the_same_key_and_app() {
        let key = MasterKey::from_bytes(&[7; 32]);
        let secret = SecretString::from("s3cr3t");
        let sealed = key.seal("app-1", &secret).unwrap();
        assert!(
            !sealed.windows(6).any(|w| w == b"s3cr3t"),
            "the secret is not stored in the clear"
        );
        assert_eq!(key.open("app-1", &sealed).unwrap().expose_secret(), "s3cr3t");
        assert!(key.open("app-2", &sealed).is_err(), "bound to its app key");
        assert!(
            MasterKey::from_bytes(&[8; 32]).open("app-1", &sealed).is_err(),
            "bound to its master key"
        );
        assert!(key.open("app-1", &sealed[..5]).is_err());
        assert_ne!(key.seal("app-1", &secret).unwrap(), sealed, "a fresh nonce each time");
    }

    #[test]
    fn the_key_file_is_created_once_with_owner_only_permissions() {
        let dir = tempfile::tempdir().unwrap();
        let file = MasterKey::default_file(&dir.path().join("signet.db"));
        assert_eq!(file, dir.path().join("signet.db.key"));
        let first = MasterKey::load(None, &file).unwrap();
        let second = MasterKey::load(None, &file).unwrap();
        assert_eq!(first.fingerprint(), second.fingerprint());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let given = MasterKey::load(Some(&SecretString::from(text.trim())), &dir.path().join("unused")).unwrap();
        assert_eq!(given.fingerprint(), first.fingerprint());
        assert!(MasterKey::load(Some(&SecretString::from("abc")), &file).is_err());
    }

    #[test]
    fn threads_creating_one_key_file_at_once_all_read_the_same_whole_key() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("signet.db.key");
        let barrier = std::sync::Barrier::new(8);
        let fingerprints: Vec<String> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        MasterKey::load(None, &file).unwrap().fingerprint().to_owned()
                    })
                })
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(fingerprints.iter().all(|f| f == &fingerprints[0]), "{fingerprints:?}");
        assert_eq!(MasterKey::load(None, &file).unwrap().fingerprint(), fingerprints[0]);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["signet.db.key"], "no temporary file is left");
    }
}
