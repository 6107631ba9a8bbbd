//! The sandbox provider's own rules.

use super::*;

fn new(amount: i64) -> NewIntent<'static> {
    NewIntent {
        amount,
        currency: "EUR",
        manual_capture: false,
        payment_method: None,
        metadata: &[],
        ..Default::default()
    }
}

#[test]
fn a_declined_card_answers_402_and_still_sends_its_failure_event() {
    let s = Sandbox::default();
    let (pi, _) = s.create_intent("sk_test_a", &new(500), "k1", 1);
    let pi = pi.unwrap();
    assert_eq!(pi.status, IntentStatus::RequiresPaymentMethod);
    assert_eq!(pi.currency, "eur");
    let (result, events) = s.confirm(
        Caller::SecretKey("sk_test_a"),
        &pi.id,
        Some("pm_card_chargeDeclined"),
        2,
    );
    assert!(matches!(result, Err(ProviderError::Declined { .. })));
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].body["type"], "payment_intent.payment_failed");
    // The same idempotency key finds the same intent; another account sees nothing.
    let (again, _) = s.create_intent("sk_test_a", &new(500), "k1", 3);
    assert_eq!(again.unwrap().id, pi.id);
    assert!(s.retrieve(Caller::SecretKey("sk_test_b"), &pi.id).is_err());
    assert!(
        s.retrieve(Caller::ClientSecret("pi_x_secret_y"), &pi.id)
            .is_err()
    );
}

#[test]
fn refunds_never_exceed_what_was_collected() {
    let s = Sandbox::default();
    let mut with_card = new(1000);
    with_card.payment_method = Some("pm_card_visa");
    let (pi, events) = s.create_intent("sk_test_a", &with_card, "k", 1);
    let pi = pi.unwrap();
    assert_eq!(pi.status, IntentStatus::Succeeded);
    assert_eq!(events[0].body["type"], "payment_intent.succeeded");
    assert!(s.refund("sk_test_a", &pi.id, Some(600), "r1", 2).is_ok());
    assert!(s.refund("sk_test_a", &pi.id, Some(600), "r2", 3).is_err());
    let (r, events) = s.refund("sk_test_a", &pi.id, None, "r3", 4).unwrap();
    assert_eq!(r.amount, 400);
    assert_eq!(events[0].body["data"]["object"]["refunded"], true);
}

#[test]
fn the_sandbox_forgets_its_oldest_intents_past_its_limit() {
    let s = Sandbox::default();
    for i in 0..MAX_INTENTS + 5 {
        let now = i64::try_from(i).unwrap();
        let (pi, _) = s.create_intent("sk_test_a", &new(100), &format!("k{i}"), now);
        pi.unwrap();
    }
    let kept: usize = s
        .accounts
        .lock()
        .unwrap()
        .values()
        .map(|a| a.intents.len())
        .sum();
    assert!(kept < MAX_INTENTS, "{kept}");
    assert!(kept > MAX_INTENTS * 8 / 10, "{kept}");
}
