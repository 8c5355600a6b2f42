//! Which certificate authorities an `https` endpoint is verified against: the system's roots,
//! plus those given (`--ca FILE` / `SIGNET_CA`, such as the CA file `signet serve --tls
//! self-signed` prints). The HTTP calls, the trade events (gRPC) and the quotes feed (MQTT over
//! TLS) all use it.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::Error;

/// The system's roots and the certificates added with [`Trust::add_pem`].
#[derive(Clone, Default)]
pub struct Trust {
    /// The added certificates, as PEM (tonic takes them so) and as DER.
    pem: Vec<u8>,
    added: Vec<CertificateDer<'static>>,
}

impl std::fmt::Debug for Trust {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trust").field("added", &self.added.len()).finish()
    }
}

impl Trust {
    /// The system's roots only.
    pub fn system() -> Self {
        Trust::default()
    }

    /// Also trusts the certificates of `pem` (one or more `CERTIFICATE` blocks).
    pub fn add_pem(mut self, pem: &[u8]) -> Result<Self, Error> {
        let invalid = |detail: String| Error::InvalidInput {
            what: "CA certificate",
            detail,
        };
        let certs = CertificateDer::pem_slice_iter(pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| invalid(e.to_string()))?;
        if certs.is_empty() {
            return Err(invalid("no PEM certificate in it".into()));
        }
        self.added.extend(certs);
        self.pem.extend_from_slice(pem);
        self.pem.push(b'\n');
        Ok(self)
    }

    /// Also trusts the certificates of the PEM file at `path`.
    pub fn add_pem_file(self, path: &Path) -> Result<Self, Error> {
        let pem = std::fs::read(path).map_err(|e| Error::InvalidInput {
            what: "CA certificate",
            detail: format!("{}: {e}", path.display()),
        })?;
        self.add_pem(&pem).map_err(|e| match e {
            Error::InvalidInput { what, detail } => Error::InvalidInput {
                what,
                detail: format!("{}: {detail}", path.display()),
            },
            e => e,
        })
    }

    /// `builder` verifying with the system's roots and the added ones.
    pub fn apply(&self, builder: reqwest::ClientBuilder) -> Result<reqwest::ClientBuilder, Error> {
        let certs = match self.pem.is_empty() {
            true => Vec::new(),
            false => reqwest::Certificate::from_pem_bundle(&self.pem)?,
        };
        Ok(builder.tls_certs_merge(certs))
    }

    /// The gRPC channel's TLS: the system's roots and the added ones.
    pub(crate) fn grpc(&self) -> tonic::transport::ClientTlsConfig {
        let config = tonic::transport::ClientTlsConfig::new().with_native_roots();
        match self.pem.is_empty() {
            true => config,
            false => config.ca_certificate(tonic::transport::Certificate::from_pem(&self.pem)),
        }
    }

    /// A rustls client configuration (the MQTT feed's): the system's roots and the added ones.
    pub(crate) fn rustls(&self) -> Result<Arc<rustls::ClientConfig>, Error> {
        let mut roots = rustls::RootCertStore::empty();
        // A system certificate that does not parse is skipped, as the other clients do.
        let _ = roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
        for cert in &self.added {
            roots.add(cert.clone()).map_err(|e| Error::InvalidInput {
                what: "CA certificate",
                detail: e.to_string(),
            })?;
        }
        let config =
            rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
                .with_safe_default_protocol_versions()
                .map_err(|e| Error::Feed(e.to_string()))?
                .with_root_certificates(roots)
                .with_no_client_auth();
        Ok(Arc::new(config))
    }
}
