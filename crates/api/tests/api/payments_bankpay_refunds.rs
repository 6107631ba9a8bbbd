//! Refunds of bank payments: signed refund requests at the provider, refunds finished by
//! their callback, failures left for staff, and money that arrived too late.
#![expect(clippy::unwrap_used, reason = "test helpers fail the test loudly")]

use super::payments_bankpay::{
    PUBLIC, SECRET, booking, callback, confirm_by_bank, payment_dead_letters, query_callback,
    setup, transaction_of,
};
use kairos_testkit::bankpay::BankpayServer;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

/// The bank's own transaction of the `nth` refund it was asked for.
fn refund_transaction(server: &BankpayServer, nth: usize) -> String {
    server.refunds()[nth]["refundTransactionId"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A booking paid by bank: (hold, payment id, the payment's transaction).
async fn paid_by_bank(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
) -> (TestResponse, String, String) {
    let (hold, res) = confirm_by_bank(app, t, fx, json!({})).await;
    res.assert_status(200);
    let txn = transaction_of(&res);
    let ok = callback(app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(ok.body["processed"], true, "{}", ok.text);
    let payment = res.body["payment"]["paymentId"]
        .as_str()
        .unwrap()
        .to_owned();
    (hold, payment, txn)
}

async fn refund(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

#[tokio::test]
async fn a_bank_payment_is_refunded_at_its_provider_with_a_signed_request() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, txn) = paid_by_bank(&app, &t, &fx).await;
    let part = refund(&app, &t, json!({"paymentId": payment, "amount": 1500})).await;
    part.assert_status(200);
    let r = &part.body;
    assert_eq!(r["success"], true, "{}", part.text);
    assert_eq!(r["net_refund_amount"], 1500);
    let piece = &r["refund_breakdown"][0];
    assert_eq!(piece["payment_method"], "bankpay");
    assert_eq!(piece["original_amount"], 4000);
    assert_eq!(piece["status"], "Completed");
    // What the provider was asked: this payment's transaction, the refund's id as
    // its stamp, the bank callback for a later outcome.
    let asked = server.refunds();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["transactionId"], txn.as_str());
    assert_eq!(asked[0]["amount"], 1500);
    assert_eq!(asked[0]["refundStamp"], r["refund_id"]);
    assert_eq!(
        asked[0]["callbackUrls"]["success"],
        format!("{PUBLIC}/webhooks/bankpay/callback")
    );
    assert_eq!(piece["provider_refund_id"], asked[0]["refundTransactionId"]);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED", "partly refunded");
    // The rest, then nothing is left.
    refund(&app, &t, json!({"paymentId": payment}))
        .await
        .assert_status(200);
    assert_eq!(server.refunds()[1]["amount"], 2500);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
    refund(&app, &t, json!({"paymentId": payment}))
        .await
        .assert_error(409, "INVALID_TRANSITION");
}

#[tokio::test]
async fn a_pending_bank_refund_is_finished_by_its_signed_callback_once() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, txn) = paid_by_bank(&app, &t, &fx).await;
    server.answer_refunds("pending");
    let res = refund(&app, &t, json!({"paymentId": payment})).await;
    res.assert_status(200);
    assert_eq!(res.body["refund_breakdown"][0]["status"], "Processing");
    let refund_id = res.body["refund_id"].as_str().unwrap().to_owned();
    let refund_txn = refund_transaction(&server, 0);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    // The same request again does not ask the provider a second time.
    let again = refund(&app, &t, json!({"paymentId": payment})).await;
    again.assert_status(200);
    assert_eq!(again.body["refund_id"], refund_id.as_str());
    assert_eq!(server.refunds().len(), 1);
    // A forged outcome is refused; a transaction not the refund's or its payment's too.
    let forged = server
        .callback_query(&refund_id, &refund_txn, "ok", 4000)
        .replace("checkout-status=ok", "checkout-status=fail");
    query_callback(&app, &forged)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    let elsewhere = server.callback_query(&refund_id, "another-transaction", "ok", 4000);
    query_callback(&app, &elsewhere)
        .await
        .assert_error(403, "INVALID_SIGNATURE");
    // Still on its way, then returned.
    let waiting = query_callback(
        &app,
        &server.callback_query(&refund_id, &refund_txn, "pending", 4000),
    )
    .await;
    waiting.assert_status(200);
    assert_eq!(waiting.body["processed"], false);
    // A signed `ok` for another sum than was asked for is not applied.
    let other_sum = query_callback(
        &app,
        &server.callback_query(&refund_id, &refund_txn, "ok", 3999),
    )
    .await;
    other_sum.assert_status(200);
    assert_eq!(other_sum.body["processed"], false, "{}", other_sum.text);
    let letters = payment_dead_letters(&app, &t).await;
    assert!(
        letters
            .as_array()
            .is_some_and(|l| l.iter().any(|d| d["errorType"] == "AMOUNT_MISMATCH"
                && d["errorMessage"].as_str().unwrap_or("").contains("3999"))),
        "{letters}"
    );
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    let done_query = server.callback_query(&refund_id, &refund_txn, "ok", 4000);
    let done = query_callback(&app, &done_query).await;
    done.assert_status(200);
    assert_eq!(done.body["processed"], true, "{}", done.text);
    assert_eq!(
        done.body["idempotency_key"],
        format!("refund:{refund_id}:ok")
    );
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
    // Once: the provider's retry changes nothing.
    let dup = app
        .post(&format!("/webhooks/bankpay/callback?{done_query}"))
        .send()
        .await;
    dup.assert_status(200);
    assert_eq!(dup.body["error"], "DUPLICATE_EVENT");
    // The payment's own callbacks still find the payment.
    let late = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    assert_eq!(late.body["error"], "DUPLICATE_EVENT", "{}", late.text);
}

#[tokio::test]
async fn a_bank_refund_the_provider_fails_waits_for_staff_in_the_dead_letter_queue() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, _) = paid_by_bank(&app, &t, &fx).await;
    // Refused at once.
    server.answer_refunds("fail");
    app.post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"paymentId": payment, "amount": 1000}))
        .expect_server_error()
        .send()
        .await
        .assert_error(500, "REFUND_FAILED");
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    assert_eq!(
        payment_dead_letters(&app, &t)
            .await
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // Pending, then failed by its callback.
    server.answer_refunds("pending");
    let res = refund(&app, &t, json!({"paymentId": payment})).await;
    res.assert_status(200);
    let refund_id = res.body["refund_id"].as_str().unwrap();
    let refund_txn = refund_transaction(&server, 1);
    let failed = query_callback(
        &app,
        &server.callback_query(refund_id, &refund_txn, "fail", 4000),
    )
    .await;
    failed.assert_status(200);
    assert_eq!(failed.body["processed"], true, "{}", failed.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "COMPLETED");
    let letters = payment_dead_letters(&app, &t).await;
    assert_eq!(letters.as_array().unwrap().len(), 2, "{letters}");
    assert!(
        letters
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["errorType"] == "REFUND_FAILED")
    );
}

#[tokio::test]
async fn staff_cancelling_a_booking_paid_by_bank_refund_it_through_the_bank() {
    let (app, t, fx, server) = setup(true).await;
    let (hold, _, txn) = paid_by_bank(&app, &t, &fx).await;
    let res = app
        .post(&format!("/api/v1/bookings/{}/cancel", hold.str("id")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"reason": "flooded"}))
        .send()
        .await;
    res.assert_status(200);
    let r = &res.body["refund"];
    assert_eq!(r["net_refund_amount"], 4000, "{}", res.text);
    assert_eq!(r["refund_breakdown"][0]["payment_method"], "bankpay");
    // Against the account that took it: the platform's.
    assert_eq!(server.refunds()[0]["transactionId"], txn.as_str());
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}

#[tokio::test]
async fn a_bank_transfer_arriving_after_its_seats_were_taken_goes_back_through_the_bank() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, res) = confirm_by_bank(&app, &t, &fx, json!({})).await;
    res.assert_status(200);
    app.clock.advance(chrono::Duration::minutes(31));
    kairos_app::payments::deadline::run_once(&app.state.app)
        .await
        .unwrap();
    // Others take every seat of the slot.
    for _ in 0..100 {
        let other = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
        if other.status != 200 {
            other.assert_error(409, "SLOT_UNAVAILABLE");
            break;
        }
    }
    let txn = transaction_of(&res);
    let late = callback(&app, &txn, "ok", "4000", 0, SECRET).await;
    late.assert_status(200);
    assert_eq!(late.body["error"], "PAID_AFTER_CLOSE", "{}", late.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["status"], "canceled");
    assert_eq!(b["payments"][0]["status"], "REFUNDED", "{b}");
    let asked = server.refunds();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["transactionId"], txn.as_str());
    assert_eq!(asked[0]["amount"], 4000);
    // The refund made closes the money's dead letter.
    let letters = payment_dead_letters(&app, &t).await;
    assert_eq!(letters[0]["errorType"], "PAID_AFTER_CLOSE", "{letters}");
    assert_eq!(letters[0]["status"], "resolved", "{letters}");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn a_bank_refund_whose_answer_was_lost_is_never_asked_twice_and_its_callback_settles_it() {
    let (app, t, fx, server) = setup(false).await;
    let (hold, payment, _) = paid_by_bank(&app, &t, &fx).await;
    server.answer_refunds("unavailable");
    let lost = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", "refund-lost")
        .json(json!({"paymentId": payment}))
        .expect_server_error()
        .send()
        .await;
    lost.assert_error(502, "PROVIDER_ERROR");
    assert!(lost.text.contains("callback"), "{}", lost.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUND_PENDING");
    // Asking again (the bank works again) refunds nothing twice: the refund waits.
    // The outcome was unknown, so the key was released: the same key runs again.
    server.answer_refunds("ok");
    let again = app
        .post("/api/v1/payments/refund")
        .tenant(&t.id)
        .token(&t.owner_token)
        .header("Idempotency-Key", "refund-lost")
        .json(json!({"paymentId": payment}))
        .send()
        .await;
    again.assert_status(200);
    assert_eq!(again.body["refund_breakdown"][0]["status"], "Processing");
    assert!(again.body["refund_breakdown"][0]["provider_refund_id"].is_null());
    assert_eq!(server.refunds().len(), 1, "asked once");
    // The bank's callback names the refund by its signed stamp: it completes it.
    let refund_id = again.body["refund_id"].as_str().unwrap();
    let refund_txn = refund_transaction(&server, 0);
    let done = query_callback(
        &app,
        &server.callback_query(refund_id, &refund_txn, "ok", 4000),
    )
    .await;
    done.assert_status(200);
    assert_eq!(done.body["processed"], true, "{}", done.text);
    let b = booking(&app, &t, hold.str("id")).await;
    assert_eq!(b["payments"][0]["status"], "REFUNDED");
}
