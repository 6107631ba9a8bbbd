//! The cardpay client against a Stripe-compatible server nobody here wrote (localstripe,
//! started by `scripts/localstripe.sh`, which exports `TEST_CARDPAY_URL`; CI runs it).
//! Without `TEST_CARDPAY_URL` these tests have no server to talk to and pass vacuously.

use kairos_app::payments::providers::stripe::CardpayClient;
use kairos_app::payments::providers::{IntentStatus, NewIntent, ProviderError};

fn client() -> Option<CardpayClient> {
    let base = std::env::var("TEST_CARDPAY_URL").ok()?;
    Some(CardpayClient::new(
        kairos_app::http::client_builder()
            .build()
            .unwrap_or_else(|e| panic!("http client: {e}")),
        &base,
        "sk_test_kairos_client",
    ))
}

fn key() -> String {
    uuid::Uuid::new_v4().to_string()
}

#[tokio::test]
async fn an_intent_for_the_browser_carries_its_client_secret_and_metadata() {
    let Some(c) = client() else { return };
    let metadata = [
        ("tenant_id", "acme".to_owned()),
        ("booking_id", "b-1".to_owned()),
    ];
    let pi = c
        .create_intent(
            &NewIntent {
                amount: 4960,
                currency: "EUR",
                manual_capture: false,
                payment_method: None,
                metadata: &metadata,
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap();
    assert!(pi.id.starts_with("pi_"));
    assert_eq!(pi.status, IntentStatus::RequiresPaymentMethod);
    assert_eq!((pi.amount, pi.currency.as_str()), (4960, "eur"));
    assert!(pi.client_secret.as_deref().unwrap().starts_with(&pi.id));
    assert_eq!(pi.metadata["tenant_id"], "acme");
    let again = c.retrieve_intent(&pi.id).await.unwrap();
    assert_eq!(again.id, pi.id);
    assert_eq!(again.metadata["booking_id"], "b-1");
}

#[tokio::test]
async fn a_charge_succeeds_and_is_refunded_in_part() {
    let Some(c) = client() else { return };
    let pi = c
        .create_intent(
            &NewIntent {
                amount: 2000,
                currency: "eur",
                manual_capture: false,
                payment_method: Some("pm_card_visa"),
                metadata: &[],
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap();
    assert_eq!(pi.status, IntentStatus::Succeeded);
    assert!(pi.latest_charge.is_some());
    let refund = c
        .refund(
            &pi.id,
            500,
            &[("reason_code", "customer_request".to_owned())],
            &key(),
        )
        .await
        .unwrap();
    assert!(refund.id.starts_with("re_"));
    assert_eq!((refund.amount, refund.status.as_str()), (500, "succeeded"));
}

#[tokio::test]
async fn an_authorization_is_captured_later() {
    let Some(c) = client() else { return };
    let pi = c
        .create_intent(
            &NewIntent {
                amount: 3000,
                currency: "eur",
                manual_capture: true,
                payment_method: Some("pm_card_visa"),
                metadata: &[],
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap();
    assert_eq!(pi.status, IntentStatus::RequiresCapture);
    let captured = c.capture_intent(&pi.id, None, &key()).await.unwrap();
    assert_eq!(captured.status, IntentStatus::Succeeded);
    // Captured twice: the provider refuses.
    let err = c.capture_intent(&pi.id, None, &key()).await.unwrap_err();
    assert!(
        matches!(err, ProviderError::Refused { status: 400, .. }),
        "{err:?}"
    );
}

#[tokio::test]
async fn declines_refusals_and_outages_are_told_apart() {
    let Some(c) = client() else { return };
    let err = c
        .create_intent(
            &NewIntent {
                amount: 500,
                currency: "eur",
                manual_capture: false,
                payment_method: Some("pm_card_chargeCustomerFail"),
                metadata: &[],
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ProviderError::Declined { code, .. } if code == "card_declined"),
        "{err:?}"
    );
    let err = c.retrieve_intent("pi_missing").await.unwrap_err();
    assert!(
        matches!(err, ProviderError::Refused { status: 404, .. }),
        "{err:?}"
    );
    let base = std::env::var("TEST_CARDPAY_URL").unwrap();
    let bad_key = CardpayClient::new(
        kairos_app::http::client_builder().build().unwrap(),
        &base,
        "not_a_key",
    );
    let err = bad_key.retrieve_intent("pi_x").await.unwrap_err();
    assert!(
        matches!(err, ProviderError::Refused { status: 401, .. }),
        "{err:?}"
    );
    let down = CardpayClient::new(
        kairos_app::http::client_builder().build().unwrap(),
        "http://127.0.0.1:9",
        "sk_test_x",
    );
    let err = down.retrieve_intent("pi_x").await.unwrap_err();
    assert!(matches!(err, ProviderError::Unavailable(_)), "{err:?}");
}

#[tokio::test]
async fn a_card_saved_to_a_customer_is_charged_off_session_and_a_failing_one_declined() {
    let Some(c) = client() else { return };
    let customer = c
        .create_customer("ada@example.com", "Ada Lovelace", &key())
        .await
        .unwrap();
    assert!(customer.starts_with("cus_"), "{customer}");
    // At checkout: the intent belongs to the customer and asks to keep the card.
    let paid = c
        .create_intent(
            &NewIntent {
                amount: 4000,
                currency: "EUR",
                payment_method: Some("pm_card_visa"),
                customer: Some(&customer),
                save_card: true,
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap();
    assert_eq!(paid.status, IntentStatus::Succeeded);
    assert_eq!(paid.customer.as_deref(), Some(customer.as_str()));
    let pm = paid.payment_method.clone().unwrap();
    // Saved (attached when the server did not attach it itself), then charged without
    // the customer present.
    let saved = c.save_payment_method(&pm, &customer, &key()).await.unwrap();
    assert!(saved.starts_with("pm_"), "{saved}");
    let fee = c
        .create_intent(
            &NewIntent {
                amount: 1500,
                currency: "EUR",
                payment_method: Some(&saved),
                customer: Some(&customer),
                off_session: true,
                ..Default::default()
            },
            &key(),
        )
        .await
        .unwrap();
    assert_eq!(fee.status, IntentStatus::Succeeded);
    assert_eq!(fee.amount, 1500);
    // A card that attaches but fails every charge: declined (402).
    let failing = c
        .save_payment_method("pm_card_chargeCustomerFail", &customer, &key())
        .await
        .unwrap();
    let declined = c
        .create_intent(
            &NewIntent {
                amount: 1500,
                currency: "EUR",
                payment_method: Some(&failing),
                customer: Some(&customer),
                off_session: true,
                ..Default::default()
            },
            &key(),
        )
        .await;
    match declined {
        Err(ProviderError::Declined { code, .. }) => assert_eq!(code, "card_declined"),
        other => panic!("expected a decline, got {other:?}"),
    }
}
