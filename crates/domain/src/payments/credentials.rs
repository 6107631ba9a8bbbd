//! Which provider account a payment goes through (spec Part B 4.6): the site's
//! credentials when the site has custom payments (its own credentials, enabled), then the
//! tenant's, then the platform's from the environment. The card provider never falls
//! back to the environment: without a site or tenant account it is not configured.

text_enum! {
    /// A payment provider (spec Part A: cardpay is the card provider, bankpay the
    /// bank-redirect provider).
    pub enum Provider {
        Cardpay = "cardpay",
        Bankpay = "bankpay",
    }
}

text_enum! {
    /// Where a payment's credentials came from; recorded on the payment, so that its
    /// refund settles against the same account.
    pub enum CredentialSource {
        Site = "site",
        Tenant = "tenant",
        Env = "env",
    }
}

impl Provider {
    /// Whether the platform's environment credentials may stand in for a tenant's.
    pub fn falls_back_to_env(self) -> bool {
        matches!(self, Provider::Bankpay)
    }
}

/// The account chosen: where it came from and its credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen<T> {
    pub source: CredentialSource,
    pub credentials: T,
}

/// Chooses among the enabled credentials of the site (`None` without custom payments),
/// the tenant and the environment.
pub fn choose<T>(
    provider: Provider,
    site: Option<T>,
    tenant: Option<T>,
    env: Option<T>,
) -> Option<Chosen<T>> {
    if let Some(credentials) = site {
        return Some(Chosen {
            source: CredentialSource::Site,
            credentials,
        });
    }
    if let Some(credentials) = tenant {
        return Some(Chosen {
            source: CredentialSource::Tenant,
            credentials,
        });
    }
    env.filter(|_| provider.falls_back_to_env())
        .map(|credentials| Chosen {
            source: CredentialSource::Env,
            credentials,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_then_tenant_then_environment() {
        let chosen = choose(Provider::Bankpay, Some("s"), Some("t"), Some("e")).unwrap();
        assert_eq!(
            (chosen.source, chosen.credentials),
            (CredentialSource::Site, "s")
        );
        let chosen = choose(Provider::Bankpay, None, Some("t"), Some("e")).unwrap();
        assert_eq!(
            (chosen.source, chosen.credentials),
            (CredentialSource::Tenant, "t")
        );
        let chosen = choose(Provider::Bankpay, None, None, Some("e")).unwrap();
        assert_eq!(
            (chosen.source, chosen.credentials),
            (CredentialSource::Env, "e")
        );
        assert_eq!(choose::<&str>(Provider::Bankpay, None, None, None), None);
    }

    #[test]
    fn the_card_provider_never_uses_the_environment() {
        assert_eq!(choose(Provider::Cardpay, None, None, Some("e")), None);
        let chosen = choose(Provider::Cardpay, None, Some("t"), Some("e")).unwrap();
        assert_eq!(chosen.source, CredentialSource::Tenant);
    }
}
