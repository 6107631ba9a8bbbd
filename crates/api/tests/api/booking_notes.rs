//! Booking notes: add, list, update and delete at `/api/v1/admin/bookings/{id}/notes`,
//! and validation.

use kairos_domain::TenantId;
use kairos_domain::auth::Role;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::json;

/// An app with tenant `acme` and one held booking; returns the booking id.
pub(crate) async fn setup() -> (TestApp, TenantFixture, BookingFixture, String) {
    let app = TestApp::spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let res = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    res.assert_status(200);
    let id = res.str("id").to_owned();
    (app, t, fx, id)
}

pub(crate) fn notes_path(booking: &str) -> String {
    format!("/api/v1/admin/bookings/{booking}/notes")
}

pub(crate) fn note_path(booking: &str, note: &str) -> String {
    format!("/api/v1/admin/bookings/{booking}/notes/{note}")
}

pub(crate) async fn add(
    app: &TestApp,
    t: &TenantFixture,
    token: &str,
    booking: &str,
    body: serde_json::Value,
) -> TestResponse {
    app.post(&notes_path(booking))
        .tenant(&t.id)
        .token(token)
        .json(body)
        .send()
        .await
}

pub(crate) async fn list(
    app: &TestApp,
    t: &TenantFixture,
    token: &str,
    booking: &str,
) -> TestResponse {
    app.get(&notes_path(booking))
        .tenant(&t.id)
        .token(token)
        .send()
        .await
}

pub(crate) fn contents(res: &TestResponse) -> Vec<String> {
    res.body["notes"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|n| n["content"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn adding_a_note_records_its_fields_and_author() {
    let (app, t, _fx, id) = setup().await;
    let desk = app
        .staff(&t.id, "desk", "desk-password-1", &[Role::FrontDesk])
        .await;
    let desk_token = app.admin_token(&t.id, "desk", "desk-password-1").await;
    let res = add(
        &app,
        &t,
        &desk_token,
        &id,
        json!({"content": "  Needs wheelchair access  ", "category": "special_request",
               "priority": "high", "isInternal": false}),
    )
    .await;
    res.assert_status(200);
    assert!(
        kairos_domain::ids::parse_id(res.str("noteId")).is_some(),
        "{}",
        res.text
    );
    assert_eq!(res.body["bookingId"], id.as_str());
    assert_eq!(res.body["content"], "Needs wheelchair access", "trimmed");
    assert_eq!(res.body["category"], "special_request");
    assert_eq!(res.body["priority"], "high");
    assert_eq!(res.body["isInternal"], false);
    assert_eq!(res.body["createdBy"], desk.to_string().as_str());
    assert_eq!(res.body["createdByName"], "desk (test)");
    assert_eq!(res.body["createdAt"], "2026-11-21T09:00:00Z");
    assert_eq!(res.body["updatedAt"], "2026-11-21T09:00:00Z");

    // Defaults: general, normal, internal.
    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "Called the customer"}),
    )
    .await;
    res.assert_status(200);
    assert_eq!(res.body["category"], "general");
    assert_eq!(res.body["priority"], "normal");
    assert_eq!(res.body["isInternal"], true);
    assert_eq!(res.body["createdByName"], "owner (test)");

    // Exactly 5000 characters is allowed.
    let long = "é".repeat(5000);
    let res = add(&app, &t, &t.owner_token, &id, json!({"content": long})).await;
    res.assert_status(200);
    assert_eq!(
        res.body["content"].as_str().map(|s| s.chars().count()),
        Some(5000)
    );

    // The note is audited on the booking.
    let tenant = TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "booking", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let added = audit
        .iter()
        .filter(|e| e.action == "booking.note_added")
        .count();
    assert_eq!(added, 3);
}

#[tokio::test]
async fn listing_returns_the_booking_notes_oldest_first() {
    let (app, t, fx, id) = setup().await;
    let res = list(&app, &t, &t.owner_token, &id).await;
    res.assert_status(200);
    assert_eq!(res.body, json!({"notes": []}));
    for (i, content) in ["first", "second", "third"].iter().enumerate() {
        app.clock
            .advance(chrono::Duration::seconds(i64::try_from(i).unwrap_or(0) + 1));
        add(&app, &t, &t.owner_token, &id, json!({"content": content}))
            .await
            .assert_status(200);
    }
    let res = list(&app, &t, &t.owner_token, &id).await;
    res.assert_status(200);
    assert_eq!(contents(&res), vec!["first", "second", "third"]);
    let note = &res.body["notes"][0];
    for key in [
        "noteId",
        "bookingId",
        "content",
        "category",
        "priority",
        "isInternal",
        "createdBy",
        "createdByName",
        "createdAt",
        "updatedAt",
    ] {
        assert!(note.get(key).is_some(), "{key} in {note}");
    }

    // Notes of another booking stay with it.
    let other = app.hold(&t.id, &fx, &fx.slots[1], 1).await;
    let other_id = other.str("id").to_owned();
    add(
        &app,
        &t,
        &t.owner_token,
        &other_id,
        json!({"content": "elsewhere"}),
    )
    .await
    .assert_status(200);
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &id).await).len(),
        3
    );
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &other_id).await),
        vec!["elsewhere"]
    );
}

#[tokio::test]
async fn adding_validates_every_field() {
    let (app, t, _fx, id) = setup().await;
    let res = add(&app, &t, &t.owner_token, &id, json!({})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content"]);

    let res = add(&app, &t, &t.owner_token, &id, json!({"content": "   "})).await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content"]);

    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "x".repeat(5001)}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content"]);

    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"category": "gossip", "priority": "whenever"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content", "category", "priority"]);

    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "ok", "category": "GENERAL"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["category"]);

    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "ok", "isInternal": "yes"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["isInternal"]);

    // Nothing was stored.
    assert!(contents(&list(&app, &t, &t.owner_token, &id).await).is_empty());
}

/// `(field, message)` of each validation error.
fn field_errors(res: &TestResponse) -> Vec<(String, String)> {
    res.body["details"]["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["field"].as_str().unwrap_or_default().to_owned(),
                e["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn an_unknown_category_or_priority_is_a_400_naming_the_field_and_its_choices() {
    let (app, t, _fx, id) = setup().await;
    let expected = vec![
        (
            "category".to_owned(),
            "must be general, special_request, issue, follow_up or resolution".to_owned(),
        ),
        (
            "priority".to_owned(),
            "must be low, normal, high or urgent".to_owned(),
        ),
    ];
    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "ok", "category": "complaint", "priority": "Low"}),
    )
    .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(field_errors(&res), expected);

    let note = add(&app, &t, &t.owner_token, &id, json!({"content": "ok"})).await;
    note.assert_status(200);
    let res = app
        .patch(&note_path(&id, note.str("noteId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"category": "complaint", "priority": "Low"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(field_errors(&res), expected);
    let listed = list(&app, &t, &t.owner_token, &id).await;
    assert_eq!(listed.body["notes"][0]["category"], "general");
    assert_eq!(listed.body["notes"][0]["priority"], "normal");
}

#[tokio::test]
async fn updating_changes_only_the_fields_sent() {
    let (app, t, _fx, id) = setup().await;
    let res = add(
        &app,
        &t,
        &t.owner_token,
        &id,
        json!({"content": "Birthday party", "category": "special_request", "isInternal": false}),
    )
    .await;
    let note = res.str("noteId").to_owned();
    app.clock.advance(chrono::Duration::minutes(5));

    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"priority": "urgent"}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["noteId"], note.as_str());
    assert_eq!(res.body["content"], "Birthday party");
    assert_eq!(res.body["category"], "special_request");
    assert_eq!(res.body["priority"], "urgent");
    assert_eq!(res.body["isInternal"], false);
    assert_eq!(res.body["createdAt"], "2026-11-21T09:00:00Z");
    assert_eq!(res.body["updatedAt"], "2026-11-21T09:05:00Z");

    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "Birthday party, cake at 12", "category": "follow_up", "isInternal": true}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["content"], "Birthday party, cake at 12");
    assert_eq!(res.body["category"], "follow_up");
    assert_eq!(res.body["priority"], "urgent");
    assert_eq!(res.body["isInternal"], true);

    // The change is stored.
    let listed = list(&app, &t, &t.owner_token, &id).await;
    assert_eq!(
        listed.body["notes"][0]["content"],
        "Birthday party, cake at 12"
    );
    assert_eq!(listed.body["notes"][0]["priority"], "urgent");

    // The audit log keeps each change's old and new values.
    let tenant = kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "booking", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let updates: Vec<&serde_json::Value> = audit
        .iter()
        .filter(|e| e.action == "booking.note_updated")
        .map(|e| &e.changes)
        .collect();
    assert_eq!(
        updates,
        [
            &json!({"noteId": note, "priority": {"from": "normal", "to": "urgent"}}),
            &json!({
                "noteId": note,
                "content": {"from": "Birthday party", "to": "Birthday party, cake at 12"},
                "category": {"from": "special_request", "to": "follow_up"},
                "isInternal": {"from": false, "to": true}
            }),
        ]
    );

    // An empty patch changes nothing.
    app.clock.advance(chrono::Duration::minutes(5));
    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({}))
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["updatedAt"], "2026-11-21T09:05:00Z");

    // Invalid values are refused and change nothing.
    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "", "category": "other", "priority": "asap"}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content", "category", "priority"]);
    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"isInternal": 1}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["isInternal"]);
    let res = app
        .patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "y".repeat(5001)}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["content"]);
    let listed = list(&app, &t, &t.owner_token, &id).await;
    assert_eq!(
        listed.body["notes"][0]["content"],
        "Birthday party, cake at 12"
    );
}

#[tokio::test]
async fn deleting_removes_the_note() {
    let (app, t, _fx, id) = setup().await;
    let a = add(&app, &t, &t.owner_token, &id, json!({"content": "keep"})).await;
    let b = add(&app, &t, &t.owner_token, &id, json!({"content": "drop"})).await;
    let res = app
        .delete(&note_path(&id, b.str("noteId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true, "{}", res.text);
    assert_eq!(res.body["deletedId"], b.str("noteId"));
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &id).await),
        vec!["keep"]
    );
    // The audit log keeps what was deleted.
    let tenant = kairos_domain::TenantId::parse(&t.id).unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "booking", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let deleted = audit
        .iter()
        .find(|e| e.action == "booking.note_deleted")
        .unwrap_or_else(|| panic!("no audit entry"));
    assert_eq!(deleted.changes["content"], "drop");
    assert_eq!(deleted.changes["noteId"], b.body["noteId"]);
    // Twice is 404.
    app.delete(&note_path(&id, b.str("noteId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    // A deleted note cannot be updated.
    app.patch(&note_path(&id, b.str("noteId")))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "back"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(a.body["content"], "keep");
}
