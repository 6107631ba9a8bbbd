//! Booking notes' access: unknown bookings and notes, viewers who may only read, and
//! isolation between tenants.

use super::booking_notes::{add, contents, list, note_path, notes_path, setup};
use kairos_domain::auth::Role;
use serde_json::json;

const UNKNOWN: &str = "01890000-0000-7000-8000-000000000000";

#[tokio::test]
async fn unknown_bookings_and_notes_are_404() {
    let (app, t, fx, id) = setup().await;
    let note = add(&app, &t, &t.owner_token, &id, json!({"content": "n"})).await;
    let note = note.str("noteId").to_owned();
    for booking in [UNKNOWN, "not-an-id"] {
        add(&app, &t, &t.owner_token, booking, json!({"content": "x"}))
            .await
            .assert_error(404, "BOOKING_NOT_FOUND");
        list(&app, &t, &t.owner_token, booking)
            .await
            .assert_error(404, "BOOKING_NOT_FOUND");
        app.patch(&note_path(booking, &note))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"content": "x"}))
            .send()
            .await
            .assert_error(404, "BOOKING_NOT_FOUND");
        app.delete(&note_path(booking, &note))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_error(404, "BOOKING_NOT_FOUND");
    }
    for missing in [UNKNOWN, "not-an-id"] {
        app.patch(&note_path(&id, missing))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"content": "x"}))
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
        // Found before the body is looked at.
        app.patch(&note_path(&id, missing))
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(json!({"isInternal": "x"}))
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
        app.delete(&note_path(&id, missing))
            .tenant(&t.id)
            .token(&t.owner_token)
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }

    // A note addressed through another booking of the tenant is not found.
    let other = app.hold(&t.id, &fx, &fx.slots[1], 1).await;
    let other_id = other.str("id").to_owned();
    app.patch(&note_path(&other_id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"content": "moved?"}))
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.delete(&note_path(&other_id, &note))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &id).await),
        vec!["n"]
    );
}

#[tokio::test]
async fn viewers_may_read_but_not_write_notes() {
    let (app, t, _fx, id) = setup().await;
    let note = add(&app, &t, &t.owner_token, &id, json!({"content": "n"})).await;
    let note = note.str("noteId").to_owned();
    app.staff(&t.id, "viewer", "viewer-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-password-1").await;

    let res = list(&app, &t, &viewer, &id).await;
    res.assert_status(200);
    assert_eq!(contents(&res), vec!["n"]);

    let res = add(&app, &t, &viewer, &id, json!({"content": "mine"})).await;
    res.assert_error(403, "INSUFFICIENT_PERMISSIONS");
    assert_eq!(
        res.body["details"]["requiredPermission"],
        "admin:bookings:write"
    );
    // The permission is checked before the body.
    add(&app, &t, &viewer, &id, json!({"isInternal": "maybe"}))
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.patch(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&viewer)
        .json(json!({"content": "changed"}))
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    app.delete(&note_path(&id, &note))
        .tenant(&t.id)
        .token(&viewer)
        .send()
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &id).await),
        vec!["n"]
    );

    // No token is 401; a customer token is refused.
    app.get(&notes_path(&id))
        .tenant(&t.id)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    let customer = app.customer_token(&t.id, "ada@example.com").await;
    list(&app, &t, &customer, &id)
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
    add(&app, &t, &customer, &id, json!({"content": "hi"}))
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");
}

#[tokio::test]
async fn another_tenant_cannot_see_or_touch_the_notes() {
    let (app, t, _fx, id) = setup().await;
    let note = add(&app, &t, &t.owner_token, &id, json!({"content": "private"})).await;
    let note = note.str("noteId").to_owned();
    let other = app.tenant("other").await;
    list(&app, &other, &other.owner_token, &id)
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    add(
        &app,
        &other,
        &other.owner_token,
        &id,
        json!({"content": "intruder"}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
    app.patch(&note_path(&id, &note))
        .tenant(&other.id)
        .token(&other.owner_token)
        .json(json!({"content": "defaced"}))
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    app.delete(&note_path(&id, &note))
        .tenant(&other.id)
        .token(&other.owner_token)
        .send()
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    // acme's token with the other tenant's header is refused.
    list(&app, &other, &t.owner_token, &id)
        .await
        .assert_error(403, "TENANT_MISMATCH");
    assert_eq!(
        contents(&list(&app, &t, &t.owner_token, &id).await),
        vec!["private"]
    );
}
