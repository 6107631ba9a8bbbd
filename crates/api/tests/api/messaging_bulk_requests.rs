//! Bulk send requests: an idempotency key makes one send, and bad requests are refused
//! naming each field.

use super::messaging_bulk::{BULK, create, setup};
use chrono::Duration;
use kairos_testkit::TestResponse;
use serde_json::{Value, json};

#[tokio::test]
async fn a_repeated_request_with_its_idempotency_key_makes_one_send() {
    let (app, t, _fx) = setup().await;
    let body = json!({
        "recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-22"},
        "message": {"subject": "Hello", "body": "<p>Hello</p>"},
    });
    let post = |body: Value| {
        app.post(BULK)
            .tenant(&t.id)
            .token(&t.owner_token)
            .header("Idempotency-Key", "bulk-key-1")
            .json(body)
            .send()
    };
    let first = post(body.clone()).await;
    first.assert_status(202);
    let again = post(body.clone()).await;
    again.assert_status(202);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body["bulkId"], first.body["bulkId"]);
    let mut other = body.clone();
    other["message"]["body"] = json!("<p>Something else</p>");
    let reused = post(other).await;
    reused.assert_status(422);
    assert_eq!(reused.body["errorCode"], "IDEMPOTENCY_KEY_REUSED");
    let list = app
        .get(BULK)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["bulkSends"].as_array().unwrap().len(), 1);
    // A refusal is the key's answer too, replayed in shape B.
    let bad = json!({"recipientFilter": {"bookingDateFrom": "2026-11-22"}, "message": {}});
    let refuse = |body: Value| {
        app.post(BULK)
            .tenant(&t.id)
            .token(&t.owner_token)
            .header("Idempotency-Key", "bulk-key-2")
            .json(body)
            .send()
    };
    let first = refuse(bad.clone()).await;
    first.assert_status(400);
    let again = refuse(bad).await;
    again.assert_status(400);
    assert_eq!(again.header("idempotent-replayed"), Some("true"));
    assert_eq!(again.body, first.body);
    assert_eq!(again.body["statusCode"], 400);
    assert!(again.body["errors"].as_array().unwrap().len() >= 2);
}

#[tokio::test]
async fn bad_bulk_sends_are_refused_naming_each_field() {
    let (app, t, _fx) = setup().await;
    let fields = |res: &TestResponse| -> Vec<String> {
        assert_eq!(res.status, 400, "{}", res.text);
        assert_eq!(res.body["statusCode"], 400);
        res.body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap().to_owned())
            .collect()
    };
    let res = create(&app, &t, json!({})).await;
    assert_eq!(
        fields(&res),
        vec![
            "recipientFilter",
            "recipientFilter.bookingDateFrom",
            "recipientFilter.bookingDateTo",
            "message",
            "message.subject",
            "message.body"
        ]
    );
    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-23", "bookingDateTo": "2026-11-22",
                "siteId": "nope"},
            "message": {"channel": "fax", "subject": "s", "body": "x"},
        }),
    )
    .await;
    assert_eq!(
        fields(&res),
        vec![
            "recipientFilter.bookingDateTo",
            "recipientFilter.siteId",
            "message.channel"
        ]
    );
    let ok_message = json!({"subject": "Hi", "body": "<p>Hi</p>"});
    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-11-23", "bookingDateTo": "2026-11-22"},
            "message": ok_message,
        }),
    )
    .await;
    assert_eq!(fields(&res), vec!["recipientFilter.bookingDateTo"]);
    let res = create(
        &app,
        &t,
        json!({
            "recipientFilter": {"bookingDateFrom": "2026-01-01", "bookingDateTo": "2027-01-02"},
            "message": ok_message,
        }),
    )
    .await;
    assert_eq!(fields(&res), vec!["recipientFilter.bookingDateTo"]);
    assert!(res.text.contains("366 days"));
    let range = json!({"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-22"});
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": range,
            "message": {"subject": "Hi {{custmerName}}", "body": "<p>{{#if}}</p>"}}),
    )
    .await;
    assert_eq!(fields(&res), vec!["message.body"], "{}", res.text);
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": range,
            "message": {"subject": "Hi {{custmerName}}", "body": "<p>{{customerName}}</p>"}}),
    )
    .await;
    assert_eq!(fields(&res), vec!["message.subject"]);
    assert!(res.text.contains("custmerName"), "{}", res.text);
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": range, "message": {"channel": "sms", "body": "x".repeat(1601)}}),
    )
    .await;
    assert_eq!(fields(&res), vec!["message.body"]);
    let past = (app.clock_now() - Duration::minutes(10)).to_rfc3339();
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": range, "message": ok_message, "sendAt": past}),
    )
    .await;
    assert_eq!(fields(&res), vec!["sendAt"]);
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": range, "message": ok_message, "sendAt": "tomorrow"}),
    )
    .await;
    assert_eq!(fields(&res), vec!["sendAt"]);
    // A site of no one's: 404 in shape B.
    let res = create(
        &app,
        &t,
        json!({"recipientFilter": {"bookingDateFrom": "2026-11-22", "bookingDateTo": "2026-11-22",
                "siteId": uuid::Uuid::new_v4()}, "message": ok_message}),
    )
    .await;
    res.assert_status(404);
    assert_eq!(res.body["statusCode"], 404);
    // Nothing was written by any of them.
    let list = app
        .get(BULK)
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(list.body["bulkSends"], json!([]));
    app.get(&format!("{BULK}?status=done"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(400);
    app.get(&format!("{BULK}/not-a-uuid"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_status(404);
}
