//! Cancelling a card-paid booking while a refund is under way, refused or unanswered, or at
//! the same moment as another refund: everything owed is refunded once.

use super::payments_cancellation::{booking, cancel_by_customer, card_paid, card_venue, paid};
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::json;

/// The payment of a booking paid by card, as the store knows it.
async fn payment_of(app: &TestApp, t: &TenantFixture, booking_id: &str) -> uuid::Uuid {
    let b = booking(app, t, booking_id).await;
    b["payments"][0]["paymentId"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("no payment: {b}"))
}

async fn staff_cancel(app: &TestApp, t: &TenantFixture, booking_id: &str) -> TestResponse {
    app.post(&format!("/api/v1/bookings/{booking_id}/cancel"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "closed for the day"}))
        .send()
        .await
}

async fn owed_refunds(app: &TestApp) -> kairos_app::payments::owed::OwedRefunds {
    kairos_app::payments::owed::finish_unfinished(&app.state.app)
        .await
        .unwrap_or_else(|e| panic!("owed refunds: {} {:?}", e.message(), e))
}

/// A staff refund of `amount` of `payment` begun, whose provider has not answered yet:
/// its refund id.
async fn refund_under_way(
    app: &TestApp,
    t: &TenantFixture,
    payment: uuid::Uuid,
    amount: i64,
) -> uuid::Uuid {
    app.store
        .begin_refund(
            &tenant_of(t),
            payment,
            Some(amount),
            None,
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap_or_else(|e| panic!("begin refund: {e}"))
        .refund_id
}

/// The provider's answer to refund `refund` arrives.
async fn provider_answers(
    app: &TestApp,
    t: &TenantFixture,
    refund: uuid::Uuid,
    result: kairos_store::RefundResult,
) {
    app.store
        .finish_refund(
            &tenant_of(t),
            refund,
            result,
            &kairos_store::Actor::system("test"),
            app.clock_now(),
        )
        .await
        .unwrap_or_else(|e| panic!("finish refund: {e}"));
}

fn tenant_of(t: &TenantFixture) -> kairos_domain::TenantId {
    kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"))
}

fn completed() -> kairos_store::RefundResult {
    kairos_store::RefundResult::Completed {
        provider_refund_id: "re_partial".into(),
    }
}

/// The tenant's payment dead letters, as staff read them (with a fresh token: the test
/// clock may have moved past the fixture's).
async fn payment_letters(app: &TestApp, t: &TenantFixture) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    let letters = app
        .get("/api/v1/admin/dead-letters?type=payment")
        .tenant(&t.id)
        .token(&token)
        .send()
        .await;
    letters.assert_status(200);
    letters
}

#[tokio::test]
async fn a_cancellation_while_a_partial_refund_is_under_way_refunds_the_rest_after_it() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    // Staff began refunding 10.00 of the 40.00; the provider has not answered yet.
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    // Staff cancel meanwhile: everything is owed (the 10.00 under way returns by its own
    // refund, 30.00 more); it cannot be asked for yet.
    let res = staff_cancel(&app, &t, hold.str("id")).await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["success"], true, "{}", res.text);
    assert_eq!(
        r["refund_breakdown"][0]["status"], "Processing",
        "{}",
        res.text
    );
    assert_eq!(r["refund_breakdown"][0]["refund_amount"], 3000);
    // Nothing to do while the first refund is under way.
    assert_eq!(owed_refunds(&app).await.refunded, 0);
    // The first refund completes at the provider; the job refunds the other 30.00.
    provider_answers(&app, &t, partial, completed()).await;
    let pass = owed_refunds(&app).await;
    assert_eq!((pass.refunded, pass.failed), (1, 0), "{pass:?}");
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "REFUNDED"
    );
    assert_eq!(owed_refunds(&app).await, Default::default(), "nothing more");
}

#[tokio::test]
async fn a_customer_cancellation_during_a_staff_refund_keeps_only_its_fee() {
    let (app, t, _, hold) = paid("flexible").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    // A day ahead under the flexible policy: the fee is half of what the staff refund
    // under way leaves (30.00), so 15.00 more is owed.
    let r = cancel_by_customer(&app, &t, &hold).await;
    assert_eq!(r["total_refund_amount"], 3000, "{r}");
    assert_eq!(r["fee_deducted"], 1500, "{r}");
    assert_eq!(r["refund_breakdown"][0]["status"], "Processing", "{r}");
    provider_answers(&app, &t, partial, completed()).await;
    assert_eq!(owed_refunds(&app).await.refunded, 1);
    // 25.00 back in all, as if the staff refund had finished first: the payment keeps the
    // fee.
    let p = &booking(&app, &t, hold.str("id")).await["payments"][0];
    assert_eq!(p["refundedAmount"], 2500, "{p}");
    let unfinished = app
        .store
        .unfinished_refunds(app.clock_now(), 10)
        .await
        .unwrap();
    assert!(unfinished.is_empty(), "{unfinished:?}");
    assert_eq!(
        booking(&app, &t, hold.str("id")).await["payments"][0]["status"],
        "COMPLETED"
    );
}

#[tokio::test]
async fn a_refund_the_provider_refuses_puts_what_the_cancellation_owes_before_staff() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    let partial = refund_under_way(&app, &t, payment, 1000).await;
    staff_cancel(&app, &t, hold.str("id"))
        .await
        .assert_status(200);
    // The refund under way is refused: staff see the failure and the 40.00 still owed.
    let refused = kairos_store::RefundResult::Failed {
        message: "card expired".into(),
    };
    provider_answers(&app, &t, partial, refused).await;
    let letters = payment_letters(&app, &t).await;
    assert!(
        letters.text.contains("still owes 4000"),
        "the owed amount is before staff: {}",
        letters.text
    );
    // And no job asks the provider again behind staff's back.
    assert_eq!(owed_refunds(&app).await, Default::default());
}

#[tokio::test]
async fn a_refund_and_a_cancellation_sent_together_end_with_everything_refunded() {
    let (app, t, fx) = card_venue("standard").await;
    let tries = 10;
    let mut met = 0;
    let mut bookings = Vec::new();
    for i in 0..tries {
        // Four slots of 10 seats: parties of 2 fit five to a slot.
        let hold = card_paid(&app, &t, &fx, &fx.slots[i % fx.slots.len()]).await;
        bookings.push(hold.str("id").to_owned());
    }
    for id in &bookings {
        let payment = payment_of(&app, &t, id).await;
        let refund = app
            .post("/api/v1/payments/refund")
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"paymentId": payment, "amount": 1000}))
            .send();
        let (refund, cancel) = tokio::join!(refund, staff_cancel(&app, &t, id));
        cancel.assert_status(200);
        // The two met: the cancellation's refund waited for the other one.
        if cancel.body["refund"]["refund_breakdown"][0]["status"] == "Processing" {
            met += 1;
        }
        assert!(
            [200, 400, 409].contains(&refund.status.as_u16()),
            "the refund: {}",
            refund.text
        );
    }
    // What could not be refunded at once is the job's; a refund whose provider call was
    // cut short is resumed a minute later.
    owed_refunds(&app).await;
    app.clock.advance(chrono::Duration::seconds(61));
    owed_refunds(&app).await;
    let mut refunded = 0;
    for id in &bookings {
        let status = booking(&app, &t, id).await["payments"][0]["status"].clone();
        assert_eq!(status, "REFUNDED", "booking {id}: all 40.00 back");
        refunded += 1;
    }
    println!(
        "refund and cancellation together: {refunded} of {tries} bookings refunded in full; \
         in {met} the cancellation met the refund under way"
    );
}

#[tokio::test]
async fn a_refund_with_no_outcome_for_a_day_goes_before_staff_once() {
    let (app, t, _, hold) = paid("standard").await;
    let payment = payment_of(&app, &t, hold.str("id")).await;
    // A staff refund begun, whose request died before the provider's answer, and nobody
    // sent it again.
    refund_under_way(&app, &t, payment, 1000).await;
    assert_eq!(owed_refunds(&app).await.stalled, 0, "not yet");
    app.clock.advance(chrono::Duration::hours(25));
    assert_eq!(owed_refunds(&app).await.stalled, 1);
    assert_eq!(owed_refunds(&app).await.stalled, 0, "never twice");
    let letters = payment_letters(&app, &t).await;
    assert_eq!(
        letters.text.matches("REFUND_STALLED").count(),
        1,
        "{}",
        letters.text
    );
}

#[tokio::test]
async fn a_customer_cancellation_and_the_owed_refunds_job_together_refund_once() {
    let (app, t, fx) = card_venue("flexible").await;
    let mut holds = Vec::new();
    // The first slot starts in 23 hours: flexible keeps half. Ten seats: five parties.
    for _ in 0..5 {
        holds.push(card_paid(&app, &t, &fx, &fx.slots[0]).await);
    }
    for hold in &holds {
        // The job of another instance runs while the cancellation's own request asks.
        let (answer, _) = tokio::join!(cancel_by_customer(&app, &t, hold), owed_refunds(&app));
        assert_eq!(answer["fee_deducted"], 2000, "{answer}");
    }
    owed_refunds(&app).await;
    for hold in &holds {
        let p = &booking(&app, &t, hold.str("id")).await["payments"][0];
        // Half of 40.00 back, never more: the fee is kept however the two met.
        assert_eq!(p["refundedAmount"], 2000, "{p}");
        assert_eq!(p["status"], "COMPLETED");
    }
}
