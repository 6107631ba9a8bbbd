//! Booking administration: creation, the full record, status and customer changes.

use kairos_domain::auth::Role;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

pub(crate) async fn setup() -> (TestApp, TenantFixture, BookingFixture) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    (app, t, fx)
}

/// Tomorrow's slot starts (UTC): 08:00, 09:00, 10:00, 11:00.
pub(crate) fn start(i: usize) -> String {
    format!("2026-11-22T{:02}:00:00Z", 8 + i)
}

pub(crate) async fn create(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    body: Value,
) -> TestResponse {
    let mut full = json!({
        "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
        "startTime": start(0), "partySize": 2,
        "customerInfo": {"name": "Grace Hopper", "email": "grace@example.com", "phone": "+1 555 0100"}
    });
    if let (Some(map), Value::Object(extra)) = (full.as_object_mut(), body) {
        map.extend(extra);
    }
    app.post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(full)
        .send()
        .await
}

#[tokio::test]
async fn admin_creation_auto_confirms_and_reports_the_breakdown() {
    let (app, t, fx) = setup().await;
    let res = create(
        &app,
        &t,
        &fx,
        json!({"autoConfirm": true, "adminNotes": "VIP"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "confirmed");
    assert_eq!(res.body["grandTotal"], 40.0);
    assert_eq!(res.body["breakdown"]["basePrice"], 40.0);
    assert_eq!(res.body["breakdown"]["tax"], 7.74);
    assert_eq!(res.body["breakdown"]["total"], 40.0);
    assert_eq!(res.body["slot"]["startTime"], start(0));
    assert_eq!(res.body["slot"]["endTime"], "2026-11-22T09:00:00Z");
    assert_eq!(res.body["warnings"], json!([]));
    assert_eq!(res.str("bookingReference").len(), 8);

    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", res.str("bookingId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    detail.assert_status(200);
    assert_eq!(detail.body["source"], "admin");
    assert_eq!(detail.body["adminNotes"], "VIP");
    assert_eq!(detail.body["customer"]["email"], "grace@example.com");
    assert_eq!(detail.body["product"]["name"], "Climbing session");
    assert_eq!(detail.body["site"]["name"], "Main hall");
    assert_eq!(
        detail.body["payments"],
        json!([]),
        "no payment is collected"
    );
    assert_eq!(detail.body["statusHistory"][0]["to"], "confirmed");
    assert_eq!(detail.body["statusHistory"][0]["actorName"], "owner (test)");
    assert_eq!(detail.body["statusHistory"][0]["actorType"], "admin");

    // Without autoConfirm it is a hold that staff confirm with its hash.
    let res = create(&app, &t, &fx, json!({"startTime": start(1)})).await;
    res.assert_status(200);
    assert_eq!(res.body["status"], "hold");
    let confirm = app
        .post(&format!(
            "/api/v1/bookings/{}/confirm",
            res.str("bookingId")
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"pricingHash": res.str("pricingHash"), "paymentMethod": "invoice"}))
        .send()
        .await;
    confirm.assert_status(200);
    assert_eq!(confirm.body["status"], "confirmed");
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn admin_creation_validates_and_checks_permissions() {
    let (app, t, fx) = setup().await;
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                     "startTime": start(0), "partySize": 2, "customerInfo": {"phone": "x"}}),
        )
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    let fields = res.error_fields();
    for f in [
        "customerInfo.name",
        "customerInfo.email",
        "customerInfo.phone",
    ] {
        assert!(fields.contains(&f.to_owned()), "{f} in {fields:?}");
    }
    create(&app, &t, &fx, json!({"startTime": "2026-11-22T08:30:00Z"}))
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");

    app.staff(&t.id, "viewer", "viewer-pass-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-pass-1").await;
    app.post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&viewer)
        .json(json!({}))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    // Front desk may create but not override capacity.
    app.staff(&t.id, "desk", "desk-pass-123", &[Role::FrontDesk])
        .await;
    let desk = app.admin_token(&t.id, "desk", "desk-pass-123").await;
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&desk)
        .json(
            json!({"siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
                     "startTime": start(0), "partySize": 2, "bypassCapacity": true,
                     "customerInfo": {"name": "A", "email": "a@example.com"}}),
        )
        .send()
        .await;
    res.assert_error(403, "INSUFFICIENT_PERMISSIONS");
    assert_eq!(
        res.body["details"]["requiredPermission"],
        "admin:capacity:override"
    );
}

#[tokio::test]
async fn bypass_capacity_overbooks_with_a_warning_and_skip_allows_a_started_slot() {
    let (app, mut t, fx) = setup().await;
    create(&app, &t, &fx, json!({"partySize": 10, "autoConfirm": true}))
        .await
        .assert_status(200);
    create(&app, &t, &fx, json!({"partySize": 2}))
        .await
        .assert_error(409, "SLOT_UNAVAILABLE");
    let res = create(
        &app,
        &t,
        &fx,
        json!({"partySize": 2, "bypassCapacity": true, "autoConfirm": true}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["warnings"], json!(["capacity_exceeded"]));
    app.assert_capacity_invariant(&t.id).await;

    // Once the slot has started only skipAvailabilityCheck books it.
    app.clock
        .advance(chrono::Duration::hours(23) + chrono::Duration::minutes(10));
    t.owner_token = app.admin_token(&t.id, "owner", &t.owner_password).await;
    create(
        &app,
        &t,
        &fx,
        json!({"startTime": start(0), "partySize": 1, "bypassCapacity": true}),
    )
    .await
    .assert_error(409, "SLOT_UNAVAILABLE");
    let res = create(
        &app,
        &t,
        &fx,
        json!({"startTime": start(1), "partySize": 1}),
    )
    .await;
    res.assert_status(200);
    app.clock.advance(chrono::Duration::hours(1));
    t.owner_token = app.admin_token(&t.id, "owner", &t.owner_password).await;
    create(
        &app,
        &t,
        &fx,
        json!({"startTime": start(1), "partySize": 1}),
    )
    .await
    .assert_error(409, "SLOT_UNAVAILABLE");
    let res = create(&app, &t, &fx, json!({"startTime": start(1), "partySize": 1, "skipAvailabilityCheck": true, "autoConfirm": true}))
        .await;
    res.assert_status(200);
    assert_eq!(res.body["warnings"], json!(["slot_started"]));
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn status_changes_follow_the_machine_and_are_audited() {
    let (app, t, fx) = setup().await;
    let res = create(&app, &t, &fx, json!({"autoConfirm": true, "partySize": 4})).await;
    let id = res.str("bookingId").to_owned();
    let path = format!("/api/v1/admin/bookings/{id}/status");
    let set = |status: &str, reason: &str| {
        app.patch(&path)
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"status": status, "reason": reason, "adminNotes": "checked"}))
            .send()
    };
    let res = set("completed", "skip ahead").await;
    res.assert_error(409, "INVALID_TRANSITION");
    assert_eq!(res.body["details"]["currentStatus"], "confirmed");
    set("bogus", "x")
        .await
        .assert_error(400, "VALIDATION_ERROR");
    app.patch(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let res = set("arrived", "walked in").await;
    res.assert_status(200);
    assert_eq!(res.body["previousStatus"], "confirmed");
    assert_eq!(res.body["status"], "arrived");
    assert_eq!(res.body["adminNotes"], "checked");
    assert_eq!(res.body["updatedBy"]["name"], "owner (test)");
    set("completed", "done").await.assert_status(200);
    set("canceled", "too late")
        .await
        .assert_error(409, "INVALID_TRANSITION");

    let detail = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    let history: Vec<(Value, Value, Value)> = detail.body["statusHistory"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|h| (h["from"].clone(), h["to"].clone(), h["reason"].clone()))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        history,
        vec![
            (Value::Null, json!("confirmed"), Value::Null),
            (json!("confirmed"), json!("arrived"), json!("walked in")),
            (json!("arrived"), json!("completed"), json!("done")),
        ]
    );

    // Cancel releases; expired → hold takes the seats again.
    let hold = create(
        &app,
        &t,
        &fx,
        json!({"startTime": start(1), "partySize": 6}),
    )
    .await;
    let hold_id = hold.str("bookingId").to_owned();
    app.clock.advance(chrono::Duration::minutes(20));
    app.store
        .expire_overdue_holds(app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    app.assert_capacity_invariant(&t.id).await;
    create(
        &app,
        &t,
        &fx,
        json!({"startTime": start(1), "partySize": 6, "autoConfirm": true}),
    )
    .await
    .assert_status(200);
    let rehold = app
        .patch(&format!("/api/v1/admin/bookings/{hold_id}/status"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"status": "hold", "reason": "customer called back"}))
        .send()
        .await;
    rehold.assert_error(409, "SLOT_UNAVAILABLE");
    let rehold = app
        .patch(&format!("/api/v1/admin/bookings/{hold_id}/status"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"status": "canceled", "reason": "gave up"}))
        .send()
        .await;
    rehold.assert_status(200);
    app.assert_capacity_invariant(&t.id).await;
}

#[tokio::test]
async fn customer_corrections_are_audited_field_by_field() {
    let (app, t, fx) = setup().await;
    let res = create(&app, &t, &fx, json!({"autoConfirm": true})).await;
    let id = res.str("bookingId").to_owned();
    let path = format!("/api/v1/admin/bookings/{id}/customer");
    let res = app
        .patch(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"customerEmail": "GRACE.H@Example.com", "customerPhone": "+1 555 0199"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(
        res.body["customer"],
        json!({"name": "Grace Hopper", "email": "grace.h@example.com", "phone": "+1 555 0199"})
    );
    assert_eq!(res.body["updatedBy"]["name"], "owner (test)");
    let res = app
        .patch(&path)
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"customerName": "", "customerEmail": "nope", "customerPhone": "abc"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["customerName", "customerEmail", "customerPhone"]
    );

    let tenant = kairos_domain::TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "booking", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let change = audit
        .iter()
        .find(|e| e.action == "booking.customer_updated")
        .unwrap_or_else(|| panic!("no audit entry"));
    assert_eq!(
        change.changes,
        json!({
            "customerEmail": {"from": "grace@example.com", "to": "grace.h@example.com"},
            "customerPhone": {"from": "+1 555 0100", "to": "+1 555 0199"}
        })
    );
    assert_eq!(change.actor_name.as_deref(), Some("owner (test)"));
    assert!(change.actor_id.is_some());
    assert_eq!(change.occurred_at, app.clock_now());

    // The booking's record shows it to staff, after its creation.
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    detail.assert_status(200);
    let log = detail.body["auditLog"]
        .as_array()
        .unwrap_or_else(|| panic!("{}", detail.text));
    assert_eq!(log[0]["action"], "booking.created");
    let shown = log
        .iter()
        .find(|e| e["action"] == "booking.customer_updated")
        .unwrap_or_else(|| panic!("{}", detail.text));
    assert_eq!(
        shown["changes"]["customerEmail"],
        json!({"from": "grace@example.com", "to": "grace.h@example.com"})
    );
    assert_eq!(shown["actorName"], "owner (test)");
    assert_eq!(shown["actorType"], "admin");
    assert!(shown["at"].is_string());

    app.patch("/api/v1/admin/bookings/01890000-0000-7000-8000-000000000000/customer")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"customerName": "X"}))
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn confirmations_and_cancellations_are_queued_as_messages() {
    let (app, t, fx) = setup().await;
    let tenant = kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let messages = || async {
        let mut list: Vec<(String, String, String)> = app
            .store
            .list_messages(
                &tenant,
                &kairos_store::MessageFilter {
                    limit: 50,
                    ..Default::default()
                },
            )
            .await
            .unwrap_or_else(|e| panic!("{e}"))
            .into_iter()
            .map(|m| {
                (
                    m.template_key.unwrap_or_default(),
                    m.subject,
                    m.status.as_str().to_owned(),
                )
            })
            .collect();
        list.sort();
        list
    };
    let quiet = create(
        &app,
        &t,
        &fx,
        json!({"autoConfirm": true, "sendConfirmationEmail": false}),
    )
    .await;
    quiet.assert_status(200);
    let hold = create(&app, &t, &fx, json!({"startTime": start(1)})).await;
    let loud = create(
        &app,
        &t,
        &fx,
        json!({"autoConfirm": true, "startTime": start(2)}),
    )
    .await;
    let reference = loud.body["bookingReference"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // The confirmation is the booking_created rule's: sent by the scheduler.
    assert_eq!(messages().await, [], "nothing before the scheduler runs");
    let report = app
        .store
        .run_automation(app.clock_now())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.messages, 1, "{report:?}");
    let confirmation = (
        "booking_confirmation".to_owned(),
        format!("Your booking {reference} at Helsinki"),
        "queued".to_owned(),
    );
    let got = messages().await;
    assert_eq!(
        got.len(),
        1,
        "no email for a quiet booking or a hold: {got:?}"
    );
    assert_eq!(got[0].0, confirmation.0);
    assert!(
        got[0]
            .1
            .starts_with(&format!("Your booking {reference} at ")),
        "{got:?}"
    );
    // Again: nothing more.
    let again = app
        .store
        .run_automation(app.clock_now())
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again.messages, 0);
    // Canceling a hold sends nothing; canceling a confirmed booking does, at once.
    for res in [&hold, &loud] {
        app.post(&format!("/api/v1/bookings/{}/cancel", res.str("bookingId")))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_status(200);
    }
    let got = messages().await;
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[1].0, "cancellation");
    assert_eq!(got[1].1, format!("Booking {reference} is cancelled"));
}

#[tokio::test]
async fn rehold_takes_the_seats_again_and_paid_records_the_balance() {
    let (app, t, fx) = setup().await;
    let hold = create(&app, &t, &fx, json!({"partySize": 3})).await;
    let id = hold.str("bookingId").to_owned();
    app.clock.advance(chrono::Duration::minutes(20));
    app.store
        .expire_overdue_holds(app.clock_now(), 100)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let set = |status: &str| {
        app.patch(&format!("/api/v1/admin/bookings/{id}/status"))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"status": status, "reason": "customer called back"}))
            .send()
    };
    let res = set("hold").await;
    res.assert_status(200);
    assert_eq!(res.body["previousStatus"], "expired");
    assert_eq!(res.body["status"], "hold");
    assert_eq!(res.body["holdExpiresAt"], "2026-11-21T09:35:00Z");
    app.assert_capacity_invariant(&t.id).await;
    let free = app
        .availability(&t.id, &fx.catalog, "2026-11-22", "2026-11-22", 1)
        .await;
    assert_eq!(free.body["slots"][0]["availableCapacity"], 7);

    set("tentative").await.assert_status(200);
    // part_paid needs an amount: it is reached through mark-paid only.
    let res = set("part_paid").await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["status"]);
    let res = set("paid").await;
    res.assert_status(200);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(detail.body["paidAmount"], 60.0);
    assert_eq!(detail.body["balanceDue"], 0.0);
    assert_eq!(detail.body["payments"][0]["amount"], 6000);
    assert_eq!(detail.body["payments"][0]["method"], "manual");
    assert_eq!(detail.body["payments"][0]["status"], "COMPLETED");
}

#[tokio::test]
async fn staff_creation_records_why_and_the_terms_accepted_on_the_customers_behalf() {
    let (app, t, fx) = setup().await;
    let res = create(
        &app,
        &t,
        &fx,
        json!({"createdReason": "walk_in", "termsAcceptedOnBehalf": true}),
    )
    .await;
    res.assert_status(200);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", res.str("bookingId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    detail.assert_status(200);
    assert_eq!(detail.body["createdReason"], "walk_in");
    assert_eq!(detail.body["termsAcceptedAt"], "2026-11-21T09:00:00Z");
    // The staff member's name as the audit log records it.
    assert!(
        detail.body["termsAcceptedBy"]
            .as_str()
            .unwrap()
            .starts_with(t.owner_username.as_str()),
        "{}",
        detail.text
    );

    // Without them: nothing recorded.
    let res = create(&app, &t, &fx, json!({"startTime": start(1)})).await;
    res.assert_status(200);
    let detail = app
        .get(&format!("/api/v1/admin/bookings/{}", res.str("bookingId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(detail.body["createdReason"], Value::Null);
    assert_eq!(detail.body["termsAcceptedAt"], Value::Null);

    let res = create(&app, &t, &fx, json!({"createdReason": "whim"})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["createdReason"]);
}
