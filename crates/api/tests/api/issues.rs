//! Customer issues (spec Part B 4.8): each category's priority and response target, the
//! due time and overdue under a controlled clock, the filters, the life of an issue to its
//! resolution, compensation by a credit voucher or a refund of the booking's card, given
//! once; the booking's detail lists its issues.

use super::no_shows::{paid_with, venue};
use chrono::Duration;
use kairos_testkit::{TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

async fn create(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.post("/api/v1/admin/issues")
        .tenant(&t.id)
        .token(&token)
        .json(body)
        .send()
        .await
}

async fn patch(app: &TestApp, t: &TenantFixture, id: &str, body: Value) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.patch(&format!("/api/v1/admin/issues/{id}"))
        .tenant(&t.id)
        .token(&token)
        .json(body)
        .send()
        .await
}

async fn get(app: &TestApp, t: &TenantFixture, path: &str) -> TestResponse {
    let token = app
        .admin_token(&t.id, &t.owner_username, &t.owner_password)
        .await;
    app.get(path).tenant(&t.id).token(&token).send().await
}

#[tokio::test]
async fn each_category_has_its_priority_and_response_target_and_shows_overdue() {
    let (app, t, _) = venue(json!({"enabled": false, "feeType": "flat", "flatFee": 0})).await;
    let table = [
        ("safety", "critical", 0),
        ("service_quality", "high", 60),
        ("billing", "high", 120),
        ("booking_error", "high", 60),
        ("equipment", "medium", 240),
        ("experience", "medium", 1440),
        ("general", "low", 2880),
    ];
    let reported = app.clock_now();
    for (category, priority, minutes) in table {
        let res = create(
            &app,
            &t,
            json!({"category": category, "summary": format!("{category} issue")}),
        )
        .await;
        res.assert_status(200);
        assert_eq!(res.body["priority"], priority, "{category}");
        assert_eq!(res.body["responseTargetMinutes"], minutes, "{category}");
        assert_eq!(res.body["status"], "open");
        assert_eq!(res.body["overdue"], false);
        let due = chrono::DateTime::parse_from_rfc3339(res.str("dueAt")).unwrap();
        assert_eq!(due, reported + Duration::minutes(minutes), "{category}");
    }
    // A minute on, only safety is overdue; past an hour, the one-hour targets too.
    app.clock.advance(Duration::minutes(1));
    let overdue = get(&app, &t, "/api/v1/admin/issues?overdue=true").await;
    assert_eq!(overdue.body["total"], 1);
    assert_eq!(overdue.body["issues"][0]["category"], "safety");
    assert_eq!(overdue.body["issues"][0]["overdue"], true);
    app.clock.advance(Duration::minutes(60));
    let overdue = get(&app, &t, "/api/v1/admin/issues?overdue=true").await;
    let mut categories: Vec<&str> = overdue.body["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["category"].as_str().unwrap())
        .collect();
    categories.sort_unstable();
    assert_eq!(categories, ["booking_error", "safety", "service_quality"]);
    // A response takes an issue out of overdue.
    let safety = overdue.body["issues"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["category"] == "safety")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let res = patch(&app, &t, &safety, json!({"status": "in_progress"})).await;
    res.assert_status(200);
    assert_eq!(res.body["issue"]["overdue"], false);
    assert!(res.body["issue"]["respondedAt"].is_string());
    let high = get(&app, &t, "/api/v1/admin/issues?priority=high").await;
    assert_eq!(high.body["total"], 3);
    let open = get(
        &app,
        &t,
        "/api/v1/admin/issues?status=open&category=general",
    )
    .await;
    assert_eq!(open.body["total"], 1);
    get(&app, &t, "/api/v1/admin/issues?status=stuck")
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn an_issue_on_a_booking_is_resolved_and_compensated_once_by_voucher() {
    let (app, t, fx) = venue(json!({"enabled": false, "feeType": "flat", "flatFee": 0})).await;
    let hold = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    let booking = hold.str("id").to_owned();
    let res = create(
        &app,
        &t,
        json!({"bookingId": booking, "category": "equipment", "summary": "helmet strap broken",
            "description": "found before the start", "reportedBy": "Mia"}),
    )
    .await;
    res.assert_status(200);
    let id = res.str("id").to_owned();
    assert_eq!(res.body["contactInfo"]["name"], "Ada Lovelace");
    assert_eq!(res.body["contactInfo"]["email"], "ada@example.com");
    assert_eq!(res.body["reportedBy"], "Mia");
    let detail = get(&app, &t, &format!("/api/v1/admin/bookings/{booking}")).await;
    assert_eq!(detail.body["issues"][0]["id"], id.as_str());
    assert_eq!(detail.body["issues"][0]["priority"], "medium");
    let history = get(&app, &t, "/api/v1/admin/customers/ada@example.com/bookings").await;
    history.assert_status(200);
    assert_eq!(
        history.body["bookings"][0]["issues"][0]["id"],
        id.as_str(),
        "{}",
        history.text
    );
    let by_booking = get(
        &app,
        &t,
        &format!("/api/v1/admin/issues?bookingId={booking}"),
    )
    .await;
    assert_eq!(by_booking.body["total"], 1);

    let res = patch(
        &app,
        &t,
        &id,
        json!({"status": "resolved", "resolution": "strap replaced, apology given",
            "compensationAmount": 20, "compensationMethod": "voucher",
            "customerSatisfaction": 4, "followUpRequired": true}),
    )
    .await;
    res.assert_status(200);
    let issue = &res.body["issue"];
    assert_eq!(issue["status"], "resolved");
    assert_eq!(issue["compensationAmount"], 20.0);
    assert_eq!(issue["compensationStatus"], "issued");
    assert_eq!(issue["customerSatisfaction"], 4);
    assert_eq!(issue["followUpRequired"], true);
    assert!(issue["resolvedAt"].is_string());
    assert!(issue["resolvedBy"].is_string());
    let code = issue["compensationVoucherCode"]
        .as_str()
        .unwrap()
        .to_owned();
    let balance = app
        .get(&format!("/api/v1/vouchers/{code}/balance"))
        .tenant(&t.id)
        .send()
        .await;
    balance.assert_status(200);
    assert!(balance.text.contains("20"), "{}", balance.text);
    patch(
        &app,
        &t,
        &id,
        json!({"compensationAmount": 5, "compensationMethod": "voucher"}),
    )
    .await
    .assert_error(409, "CONFLICT");
    patch(&app, &t, &id, json!({"status": "closed"}))
        .await
        .assert_status(200);
    patch(&app, &t, &id, json!({"status": "open"}))
        .await
        .assert_error(409, "INVALID_TRANSITION");
    let got = get(&app, &t, &format!("/api/v1/admin/issues/{id}")).await;
    assert_eq!(got.body["status"], "closed");
}

#[tokio::test]
async fn a_refund_compensation_goes_back_to_the_bookings_card() {
    let (app, t, fx) = venue(json!({"enabled": false, "feeType": "flat", "flatFee": 0})).await;
    let hold = paid_with(&app, &t, &fx, &fx.slots[0], "pm_card_visa").await;
    let booking = hold.str("id").to_owned();
    let res = create(
        &app,
        &t,
        json!({"bookingId": booking, "category": "billing", "summary": "charged twice"}),
    )
    .await;
    let id = res.str("id").to_owned();
    // More than the card took cannot be refunded.
    patch(
        &app,
        &t,
        &id,
        json!({"compensationAmount": 500, "compensationMethod": "refund"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let res = patch(
        &app,
        &t,
        &id,
        json!({"compensationAmount": 10, "compensationMethod": "refund"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(
        res.body["issue"]["compensationStatus"], "refunded",
        "{}",
        res.text
    );
    assert!(res.body["issue"]["compensationRefundId"].is_string());
    let detail = get(&app, &t, &format!("/api/v1/admin/bookings/{booking}")).await;
    assert_eq!(detail.body["payments"][0]["refundedAmount"], 1000);
}

#[tokio::test]
async fn issues_refuse_what_they_cannot_record() {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let bad = create(
        &app,
        &t,
        json!({"priority": "urgent", "reportedAt": "2099-01-01T00:00:00Z",
            "contactInfo": {"email": "not-an-email"}, "bookingId": "nope"}),
    )
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    for f in [
        "category",
        "summary",
        "priority",
        "reportedAt",
        "contactInfo.email",
        "bookingId",
    ] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    create(
        &app,
        &t,
        json!({"category": "general", "summary": "x", "bookingId": uuid::Uuid::new_v4()}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
    let res = create(
        &app,
        &t,
        json!({"category": "general", "summary": "lost and found"}),
    )
    .await;
    let id = res.str("id").to_owned();
    let bad = patch(
        &app,
        &t,
        &id,
        json!({"compensationAmount": 5, "customerSatisfaction": 6, "status": "done",
            "compensationMethod": "cash"}),
    )
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let fields = bad.error_fields();
    for f in ["compensationMethod", "customerSatisfaction", "status"] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    // A compensation is at most 1,000,000 (a slip of the keyboard issues no fortune).
    patch(&app, &t, &id, json!({"compensationAmount": 2_000_000}))
        .await
        .assert_error(400, "VALIDATION_ERROR");
    // Without a booking there is nothing to refund.
    patch(
        &app,
        &t,
        &id,
        json!({"compensationAmount": 5, "compensationMethod": "refund"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    // The spec's PATCH names no method: a credit voucher.
    let res = patch(&app, &t, &id, json!({"compensationAmount": 5})).await;
    res.assert_status(200);
    assert_eq!(res.body["issue"]["compensationMethod"], "voucher");
    assert_eq!(res.body["issue"]["compensationStatus"], "issued");
    get(
        &app,
        &t,
        &format!("/api/v1/admin/issues/{}", uuid::Uuid::new_v4()),
    )
    .await
    .assert_error(404, "NOT_FOUND");
    patch(
        &app,
        &t,
        &uuid::Uuid::new_v4().to_string(),
        json!({"status": "closed"}),
    )
    .await
    .assert_error(404, "NOT_FOUND");
}
