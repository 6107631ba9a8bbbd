//! Outgoing HTTP: every `reqwest` client of Kairos (payment providers, the SMS provider,
//! the sandbox's webhook deliveries) is built here, so that all TLS in the process runs on
//! one crypto provider, `ring` (the mail transport's TLS uses it too).

/// A client builder whose TLS uses the process's crypto provider, installing `ring` as
/// that provider on first use.
pub fn client_builder() -> reqwest::ClientBuilder {
    install_crypto_provider();
    reqwest::Client::builder().user_agent(concat!("kairos/", env!("CARGO_PKG_VERSION")))
}

/// Makes `ring` the process's default TLS crypto provider, unless one is already set.
pub fn install_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // A concurrent first call may have installed it in between: either way, one is set.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_client_runs_its_tls_on_ring() {
        let client = super::client_builder().build();
        assert!(client.is_ok(), "{:?}", client.err());
        let installed = rustls::crypto::CryptoProvider::get_default();
        let ring = rustls::crypto::ring::default_provider();
        let suites = |p: &rustls::crypto::CryptoProvider| {
            p.cipher_suites
                .iter()
                .map(|s| format!("{:?}", s.suite()))
                .collect::<Vec<_>>()
        };
        assert_eq!(installed.map(|p| suites(p)), Some(suites(&ring)));
    }
}
