//! TLS on the HTTP listener (gRPC rides on it) and on the MQTT listener: rustls, on aws-lc-rs.
//!
//! The certificate chain and key are read from PEM files (`--tls-cert`, `--tls-key`), or made on
//! first start by [`self_signed`] (`--tls self-signed`): a local certificate authority and a
//! server certificate it signs, kept in a directory beside the database. [`Certificates`] holds
//! the pair in force and hands it to every handshake; [`Certificates::reload`] (SIGHUP) reads the
//! files again and swaps it: new connections get the new pair, open ones keep theirs.

use std::fmt;
use std::io::Write;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::RwLock;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// The PEM files of the server's certificate chain (its own first) and of its private key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("the TLS certificate file {path}: {reason}")]
    Certificate { path: PathBuf, reason: String },
    #[error("the TLS key file {path}: {reason}")]
    Key { path: PathBuf, reason: String },
    #[error("the TLS key in {key} does not belong to the certificate in {cert}: {reason}")]
    Mismatch {
        cert: PathBuf,
        key: PathBuf,
        reason: String,
    },
    #[error("making the self-signed certificates in {dir}: {reason}")]
    SelfSigned { dir: PathBuf, reason: String },
}

/// The protocols the HTTP listener offers by ALPN: HTTP/2 first (gRPC needs it), then HTTP/1.1.
pub const HTTP_ALPN: [&[u8]; 2] = [b"h2", b"http/1.1"];

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The certificate and key in force, read from their files; every handshake asks for them.
pub struct Certificates {
    files: TlsFiles,
    current: RwLock<Arc<CertifiedKey>>,
}

impl fmt::Debug for Certificates {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Certificates")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl Certificates {
    /// Reads the files; fails when they cannot be read or parsed, or when the key is not the
    /// certificate's.
    pub fn load(files: TlsFiles) -> Result<Arc<Self>, TlsError> {
        let current = read_pair(&files)?;
        Ok(Arc::new(Certificates {
            files,
            current: RwLock::new(Arc::new(current)),
        }))
    }

    /// Reads the files again and puts the new pair in force for the connections that start from
    /// now on; on failure the pair in force stays. Connections already open are not touched.
    pub fn reload(&self) -> Result<(), TlsError> {
        let fresh = Arc::new(read_pair(&self.files)?);
        *self.current.write() = fresh;
        Ok(())
    }

    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// The certificate chain in force (the server's own first).
    pub fn chain(&self) -> Vec<CertificateDer<'static>> {
        self.in_force().cert.clone()
    }

    fn in_force(&self) -> Arc<CertifiedKey> {
        self.current.read().clone()
    }

    /// The HTTP listener's configuration: ALPN offers `h2` and `http/1.1`.
    pub fn http_config(self: &Arc<Self>) -> Arc<rustls::ServerConfig> {
        let mut config = self.config();
        config.alpn_protocols = HTTP_ALPN.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
    }

    /// The MQTT listener's configuration: no ALPN (paho asks for none; a client that asks for
    /// `mqtt` is not refused for it).
    pub fn mqtt_config(self: &Arc<Self>) -> Arc<rustls::ServerConfig> {
        Arc::new(self.config())
    }

    fn config(self: &Arc<Self>) -> rustls::ServerConfig {
        rustls::ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .expect("aws-lc-rs supports the default protocol versions")
            .with_no_client_auth()
            .with_cert_resolver(self.clone())
    }
}

impl ResolvesServerCert for Certificates {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.in_force())
    }
}

fn read_pair(files: &TlsFiles) -> Result<CertifiedKey, TlsError> {
    let cert_error = |reason: String| TlsError::Certificate {
        path: files.cert.clone(),
        reason,
    };
    let chain = CertificateDer::pem_file_iter(&files.cert)
        .map_err(|e| cert_error(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| cert_error(e.to_string()))?;
    if chain.is_empty() {
        return Err(cert_error("no PEM certificate in it".into()));
    }
    let key = PrivateKeyDer::from_pem_file(&files.key).map_err(|e| TlsError::Key {
        path: files.key.clone(),
        reason: e.to_string(),
    })?;
    CertifiedKey::from_der(chain, key, &provider()).map_err(|e| TlsError::Mismatch {
        cert: files.cert.clone(),
        key: files.key.clone(),
        reason: e.to_string(),
    })
}

/// What `--tls self-signed` made or found: the authority's certificate (what a client trusts),
/// and the server's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelfSigned {
    /// The local certificate authority's certificate, PEM.
    pub ca: PathBuf,
    pub files: TlsFiles,
    /// Whether this start made the authority (false: it was there already).
    pub created_ca: bool,
    /// Whether this start issued the server certificate (new names, close to its end, or new).
    pub issued: bool,
}

/// The directory `--tls self-signed` keeps its files in, beside the SQLite file `db`.
pub fn self_signed_dir(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".tls");
    db.with_file_name(name)
}

/// The names a self-signed server certificate covers: `localhost`, `127.0.0.1`, `::1`, the
/// listen address's IP when it is a particular one, and the public host without its port.
pub fn self_signed_names(listen: IpAddr, public_host: Option<&str>) -> Vec<String> {
    let mut names = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
    if !listen.is_unspecified() {
        names.push(listen.to_string());
    }
    if let Some(host) = public_host.map(host_without_port).filter(|h| !h.is_empty()) {
        names.push(host.to_owned());
    }
    let mut seen = std::collections::HashSet::new();
    names.retain(|n| seen.insert(n.clone()));
    names
}

/// `host`, `host:port`, `[v6]:port` or `v6` → the host alone.
fn host_without_port(host: &str) -> &str {
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    if host.parse::<IpAddr>().is_ok() {
        return host;
    }
    host.rsplit_once(':').map_or(host, |(h, _)| h)
}

/// Days a self-signed server certificate is valid; it is issued again at a start within
/// [`REISSUE_WITHIN_DAYS`] of its end.
const SERVER_DAYS: i64 = 825;
const REISSUE_WITHIN_DAYS: i64 = 30;
/// Days the local authority is valid.
const CA_DAYS: i64 = 3650;

const CA_NAME: &str = "signet local certificate authority";

/// Makes, on first use, a local certificate authority in `dir` (`ca.pem`, `ca.key`) and a
/// server certificate it signs for `names` (`server.pem`, `server.key`; `server.names` records
/// the names and the end of its validity); the keys are readable by the owner only. Later calls
/// reuse them, and issue the server certificate again (from the same authority) when the names
/// changed or its end is near.
///
/// The authority carries name constraints: it may sign for the host names among `names` and no
/// other (recorded in `ca.names`), so that trusting it trusts no other site by name. Addresses
/// are not constrained: the official Python client's gRPC (grpcio 1.59's BoringSSL) refuses
/// every certificate under an authority with an address constraint, even one it permits. Host
/// names it does not cover (a new `--public-host`), or an authority without that record (made by
/// an earlier build, which could sign any name), make a new authority.
pub fn self_signed(dir: &Path, names: &[String]) -> Result<SelfSigned, TlsError> {
    let fail = |reason: String| TlsError::SelfSigned {
        dir: dir.to_owned(),
        reason,
    };
    std::fs::create_dir_all(dir).map_err(|e| fail(e.to_string()))?;
    let (ca_pem, ca_key_path, ca_names) = (dir.join("ca.pem"), dir.join("ca.key"), dir.join("ca.names"));
    let files = TlsFiles {
        cert: dir.join("server.pem"),
        key: dir.join("server.key"),
    };
    let record = dir.join("server.names");
    let now = time::OffsetDateTime::now_utc();

    let hosts: Vec<&String> = names.iter().filter(|name| name.parse::<IpAddr>().is_err()).collect();
    let covered = std::fs::read_to_string(&ca_names)
        .is_ok_and(|text| hosts.iter().all(|host| text.lines().any(|line| line == host.as_str())));
    let created_ca = !(ca_pem.exists() && ca_key_path.exists() && covered);
    let ca_key = if created_ca {
        let key = rcgen::KeyPair::generate().map_err(|e| fail(e.to_string()))?;
        let mut params = ca_params();
        params.not_before = now - time::Duration::days(1);
        params.not_after = now + time::Duration::days(CA_DAYS);
        params.name_constraints = Some(only(&hosts).map_err(fail)?);
        let cert = params.self_signed(&key).map_err(|e| fail(e.to_string()))?;
        write_file(&ca_key_path, key.serialize_pem().as_bytes(), true).map_err(|e| fail(e.to_string()))?;
        write_file(&ca_pem, cert.pem().as_bytes(), false).map_err(|e| fail(e.to_string()))?;
        let recorded: Vec<&str> = hosts.iter().map(|host| host.as_str()).collect();
        write_file(&ca_names, format!("{}\n", recorded.join("\n")).as_bytes(), false)
            .map_err(|e| fail(e.to_string()))?;
        key
    } else {
        let pem = std::fs::read_to_string(&ca_key_path).map_err(|e| fail(format!("{}: {e}", ca_key_path.display())))?;
        rcgen::KeyPair::from_pem(&pem).map_err(|e| fail(format!("{}: {e}", ca_key_path.display())))?
    };

    let wanted = names.join("\n");
    let issued_before = std::fs::read_to_string(&record).ok().and_then(|text| {
        let (end, names) = text.split_once('\n')?;
        Some((end.trim().parse::<i64>().ok()?, names.trim_end().to_owned()))
    });
    let still_good = match issued_before {
        Some((end, recorded)) => {
            !created_ca
                && recorded == wanted
                && end - now.unix_timestamp() > REISSUE_WITHIN_DAYS * 86_400
                && files.cert.exists()
                && files.key.exists()
        }
        None => false,
    };
    if still_good {
        return Ok(SelfSigned {
            ca: ca_pem,
            files,
            created_ca,
            issued: false,
        });
    }

    // The authority signs with its key under the same name it was made with: the certificate it
    // issues chains to `ca.pem`.
    let issuer = rcgen::Issuer::new(ca_params(), ca_key);
    let key = rcgen::KeyPair::generate().map_err(|e| fail(e.to_string()))?;
    let mut params = rcgen::CertificateParams::new(names.to_vec()).map_err(|e| fail(e.to_string()))?;
    params.distinguished_name = rcgen::DistinguishedName::new();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, names.first().cloned().unwrap_or_default());
    params.not_before = now - time::Duration::days(1);
    let end = now + time::Duration::days(SERVER_DAYS);
    params.not_after = end;
    params.is_ca = rcgen::IsCa::ExplicitNoCa;
    params.key_usages = vec![rcgen::KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    params.use_authority_key_identifier_extension = true;
    let cert = params.signed_by(&key, &issuer).map_err(|e| fail(e.to_string()))?;
    write_file(&files.key, key.serialize_pem().as_bytes(), true).map_err(|e| fail(e.to_string()))?;
    write_file(&files.cert, cert.pem().as_bytes(), false).map_err(|e| fail(e.to_string()))?;
    write_file(
        &record,
        format!("{}\n{wanted}\n", end.unix_timestamp()).as_bytes(),
        false,
    )
    .map_err(|e| fail(e.to_string()))?;
    Ok(SelfSigned {
        ca: ca_pem,
        files,
        created_ca,
        issued: true,
    })
}

/// Name constraints that permit the host names `hosts` alone (and the names under them, as a
/// DNS constraint reads). With none, the extension would be empty, which X.509 does not allow.
fn only(hosts: &[&String]) -> Result<rcgen::NameConstraints, String> {
    if hosts.is_empty() {
        return Err("no host name for the authority to sign for".into());
    }
    let permitted_subtrees = hosts
        .iter()
        .map(|host| match host.is_empty() || host.contains(['*', ' ']) {
            true => Err(format!("{host:?} is not a host name")),
            false => Ok(rcgen::GeneralSubtree::DnsName((*host).clone())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rcgen::NameConstraints {
        permitted_subtrees,
        excluded_subtrees: Vec::new(),
    })
}

/// The local authority's parameters, the same at every start (its key is read from `ca.key`):
/// what an issuer needs (its name, key usages), not its constraints, which its certificate holds.
fn ca_params() -> rcgen::CertificateParams {
    let mut params = rcgen::CertificateParams::default();
    params.distinguished_name = rcgen::DistinguishedName::new();
    params.distinguished_name.push(rcgen::DnType::CommonName, CA_NAME);
    params
        .distinguished_name
        .push(rcgen::DnType::OrganizationName, "signet");
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Constrained(0));
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::KeyCertSign,
        rcgen::KeyUsagePurpose::CrlSign,
        rcgen::KeyUsagePurpose::DigitalSignature,
    ];
    params
}

/// Writes `contents` to `path` through a temporary file renamed into place; `private`: readable
/// and writable by the owner only (a temporary file is created so).
fn write_file(path: &Path, contents: &[u8], private: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir)?;
    file.write_all(contents)?;
    file.as_file().sync_all()?;
    #[cfg(unix)]
    if !private {
        use std::os::unix::fs::PermissionsExt;
        file.as_file().set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    #[cfg(not(unix))]
    let _ = private;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_loopback_the_listen_address_and_the_public_host() {
        assert_eq!(
            self_signed_names("0.0.0.0".parse().unwrap(), Some("broker.example:8443")),
            ["localhost", "127.0.0.1", "::1", "broker.example"]
        );
        assert_eq!(
            self_signed_names("10.1.2.3".parse().unwrap(), Some("[fd00::1]:8443")),
            ["localhost", "127.0.0.1", "::1", "10.1.2.3", "fd00::1"]
        );
        assert_eq!(
            self_signed_names("127.0.0.1".parse().unwrap(), None),
            ["localhost", "127.0.0.1", "::1"]
        );
    }

    #[test]
    fn the_directory_is_beside_the_database() {
        assert_eq!(
            self_signed_dir(Path::new("/srv/signet.db")),
            Path::new("/srv/signet.db.tls")
        );
        assert_eq!(self_signed_dir(Path::new("signet.db")), Path::new("signet.db.tls"));
    }

    #[test]
    fn self_signed_files_are_made_once_reused_and_reissued_for_new_names() {
        let dir = tempfile::tempdir().unwrap();
        let tls = dir.path().join("signet.db.tls");
        let names = self_signed_names("127.0.0.1".parse().unwrap(), None);
        let first = self_signed(&tls, &names).unwrap();
        assert!(first.created_ca && first.issued);
        #[cfg(unix)]
        for private in [tls.join("ca.key"), tls.join("server.key")] {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&private).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", private.display());
        }
        let pair = Certificates::load(first.files.clone()).unwrap();
        let cert = std::fs::read(&first.files.cert).unwrap();

        let again = self_signed(&tls, &names).unwrap();
        assert!(!again.created_ca && !again.issued);
        assert_eq!(std::fs::read(&again.files.cert).unwrap(), cert, "reused as it was");

        // Fewer names: the same authority, which covers them, issues again.
        let fewer = vec!["localhost".to_owned()];
        let reissued = self_signed(&tls, &fewer).unwrap();
        assert!(!reissued.created_ca && reissued.issued);
        assert_ne!(std::fs::read(&reissued.files.cert).unwrap(), cert);
        // A name the authority may not sign for: a new authority.
        let more = self_signed_names("127.0.0.1".parse().unwrap(), Some("broker.example"));
        let anew = self_signed(&tls, &more).unwrap();
        assert!(anew.created_ca && anew.issued);
        pair.reload().unwrap();
        assert_ne!(
            pair.chain()[0].as_ref(),
            CertificateDer::from_pem_slice(&cert).unwrap().as_ref()
        );
    }

    /// Whether a client trusting `ca` alone accepts `chain` for `name`.
    fn verified(ca: &Path, chain: &[CertificateDer<'static>], name: &str) -> Result<(), rustls::Error> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(CertificateDer::from_pem_file(ca).unwrap()).unwrap();
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .unwrap();
        let name = rustls::pki_types::ServerName::try_from(name.to_owned()).unwrap();
        rustls::client::danger::ServerCertVerifier::verify_server_cert(
            verifier.as_ref(),
            &chain[0],
            &chain[1..],
            &name,
            &[],
            rustls::pki_types::UnixTime::now(),
        )
        .map(|_| ())
    }

    /// A certificate for another site, signed with the authority's own key (as anyone who read
    /// `ca.key` could), is refused by a client that trusts the authority: its constraints permit
    /// the server's host names alone (not its addresses: see `self_signed`).
    #[test]
    fn the_local_authority_can_sign_for_the_servers_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let names = self_signed_names("127.0.0.1".parse().unwrap(), Some("broker.example:8443"));
        let made = self_signed(dir.path(), &names).unwrap();
        let chain: Vec<_> = CertificateDer::pem_file_iter(&made.files.cert)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for name in ["localhost", "127.0.0.1", "::1", "broker.example"] {
            verified(&made.ca, &chain, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let ca_key = rcgen::KeyPair::from_pem(&std::fs::read_to_string(dir.path().join("ca.key")).unwrap()).unwrap();
        let issuer = rcgen::Issuer::new(ca_params(), ca_key);
        for other in ["bank.example", "localhost.bank.example"] {
            let mut params = rcgen::CertificateParams::new(vec![other.to_owned()]).unwrap();
            params.use_authority_key_identifier_extension = true;
            let key = rcgen::KeyPair::generate().unwrap();
            let forged = params.signed_by(&key, &issuer).unwrap();
            let refused = verified(&made.ca, &[forged.der().clone()], other).unwrap_err();
            assert!(
                format!("{refused:?}").contains("NameConstraint"),
                "{other}: {refused:?}"
            );
        }
    }

    #[test]
    fn a_key_that_is_not_the_certificates_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let one = self_signed(&dir.path().join("one"), &["localhost".into()]).unwrap();
        let two = self_signed(&dir.path().join("two"), &["localhost".into()]).unwrap();
        let mixed = TlsFiles {
            cert: one.files.cert.clone(),
            key: two.files.key.clone(),
        };
        assert!(matches!(Certificates::load(mixed), Err(TlsError::Mismatch { .. })));
        let pair = Certificates::load(one.files.clone()).unwrap();
        std::fs::write(&one.files.cert, "not a certificate").unwrap();
        assert!(pair.reload().is_err(), "a broken file is refused");
        assert!(!pair.chain().is_empty(), "and the pair in force stays");
    }
}
