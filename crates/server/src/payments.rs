//! The server's secrets and payment settings: keys from the configuration or generated
//! once and kept in the database, and how payment providers are reached.

use crate::config::Config;
use anyhow::bail;
use kairos_domain::secrets::SecretBox;
use kairos_domain::{Clock, SystemClock};
use kairos_store::Store;

/// `configured` (at least 32 characters, else an error naming `env_name`), or a random
/// secret generated the first time and kept in the database under `name`.
pub async fn kept_secret(
    store: &Store,
    configured: Option<&str>,
    env_name: &str,
    name: &str,
) -> anyhow::Result<String> {
    match configured {
        Some(s) if s.len() >= 32 => Ok(s.to_owned()),
        Some(_) => bail!("{env_name} must be at least 32 characters"),
        None => {
            let generated = format!(
                "{}{}",
                uuid::Uuid::new_v4().simple(),
                uuid::Uuid::new_v4().simple()
            );
            Ok(store
                .secret_or_insert(name, generated, SystemClock.now())
                .await?)
        }
    }
}

/// The box provider secrets are sealed with: `KAIROS_SECRET_KEY`, or a random key kept in
/// the database.
pub async fn kept_secret_box(config: &Config, store: &Store) -> anyhow::Result<SecretBox> {
    let key = kept_secret(
        store,
        config.secret_key.as_deref(),
        "KAIROS_SECRET_KEY",
        "secret_encryption_key",
    )
    .await?;
    Ok(SecretBox::new(&key))
}

/// How payment providers are reached.
pub fn settings(
    config: &Config,
    secrets: SecretBox,
) -> anyhow::Result<kairos_app::payments::PaymentSettings> {
    let env_bankpay = match (&config.bankpay_merchant_id, &config.bankpay_secret) {
        (Some(merchant_id), Some(secret)) => Some(kairos_app::payments::settings::EnvBankpay {
            merchant_id: merchant_id.clone(),
            secret: secret.clone(),
        }),
        (None, None) => None,
        _ => bail!(
            "KAIROS_BANKPAY_MERCHANT_ID and KAIROS_BANKPAY_SECRET go together: set both or neither"
        ),
    };
    if config.payment_deadline_minutes == 0 {
        bail!("invalid configuration: KAIROS_PAYMENT_DEADLINE_MINUTES must be at least 1");
    }
    Ok(kairos_app::payments::PaymentSettings {
        secrets,
        cardpay_api_base: config.cardpay_api_base.clone(),
        cardpay_js_url: config.cardpay_js_url.clone(),
        bankpay_api_base: config.bankpay_api_base.clone(),
        env_bankpay,
        deadline: std::time::Duration::from_secs(config.payment_deadline_minutes * 60),
        public_url: config
            .public_url
            .as_deref()
            .filter(|u| !u.is_empty())
            .map(|u| u.trim_end_matches('/').to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SecretBox {
        SecretBox::new("a key for the test, long enough to use")
    }

    #[test]
    fn the_platforms_bankpay_account_needs_both_halves_and_the_deadline_a_minute() {
        let mut c = Config::default();
        let s = settings(&c, key()).unwrap();
        assert!(s.env_bankpay.is_none());
        assert_eq!(s.deadline, std::time::Duration::from_secs(30 * 60));
        c.bankpay_merchant_id = Some("375917".into());
        assert!(settings(&c, key()).is_err());
        c.bankpay_secret = Some("SAIPPUAKAUPPIAS".into());
        assert_eq!(
            settings(&c, key())
                .unwrap()
                .env_bankpay
                .map(|e| e.merchant_id),
            Some("375917".to_owned())
        );
        c.payment_deadline_minutes = 0;
        assert!(settings(&c, key()).is_err());
    }
}
