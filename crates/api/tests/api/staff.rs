use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn owner_creates_lists_updates_and_deactivates_staff() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let created = app
        .post("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({
            "username": "desk", "password": "desk-password", "displayName": "Front Desk",
            "email": "Desk@Acme.io", "roles": ["front_desk"]
        }))
        .send()
        .await;
    created.assert_status(200);
    assert_eq!(created.body["displayName"], "Front Desk");
    assert_eq!(created.body["email"], "desk@acme.io");
    assert_eq!(created.body["isActive"], true);
    assert!(created.body.get("passwordHash").is_none() && !created.text.contains("argon2"));
    let id = created.str("id").to_owned();

    // The new account can sign in.
    let token = app.admin_token("acme", "desk", "desk-password").await;

    let updated = app
        .patch(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"roles": ["manager", "viewer"], "email": null}))
        .send()
        .await;
    updated.assert_status(200);
    assert_eq!(updated.body["roles"], json!(["manager", "viewer"]));
    assert_eq!(updated.body["email"], serde_json::Value::Null);
    let perms = updated.body["permissions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(perms.contains(&json!("admin:capacity:override")));

    let got = app
        .get(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await;
    got.assert_status(200);
    assert_eq!(got.body["username"], "desk");

    let list = app
        .get("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await;
    list.assert_status(200);
    assert_eq!(list.body["total"], 2);

    let gone = app
        .delete(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await;
    gone.assert_status(200);
    assert_eq!(gone.body["isActive"], false);
    app.get("/api/v1/admin/users")
        .tenant("acme")
        .token(&token)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");

    // Every change is in the audit log with its actor and old and new values.
    let tenant = kairos_domain::TenantId::parse("acme").unwrap_or_else(|e| panic!("{e}"));
    let audit = app
        .store
        .list_audit(&tenant, "admin_user", &id)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let actions: Vec<&str> = audit.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "admin_user.created",
            "admin_user.updated",
            "admin_user.deactivated"
        ]
    );
    assert_eq!(audit[1].changes["roles"]["from"], json!(["front_desk"]));
    assert_eq!(
        audit[1].changes["roles"]["to"],
        json!(["manager", "viewer"])
    );
    assert_eq!(audit[1].actor_name.as_deref(), Some("owner (test)"));
}

#[tokio::test]
async fn only_owners_manage_staff() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.staff("acme", "boss", "boss-password", &[Role::Manager])
        .await;
    let manager = app.admin_token("acme", "boss", "boss-password").await;
    for res in [
        app.get("/api/v1/admin/users")
            .tenant("acme")
            .token(&manager)
            .send()
            .await,
        app.post("/api/v1/admin/users")
            .tenant("acme")
            .token(&manager)
            .json(json!({"username": "x1x", "password": "password1", "roles": ["owner"]}))
            .send()
            .await,
    ] {
        res.assert_error(403, "INSUFFICIENT_PERMISSIONS");
        assert_eq!(
            res.body["details"]["requiredPermission"],
            "admin:users:manage"
        );
    }
}

#[tokio::test]
async fn staff_input_is_validated_field_by_field() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let res = app
        .post("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"username": "a b", "password": "short", "email": "nope", "roles": ["root"]}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        ["username", "password", "email", "roles[0]"]
    );

    let res = app
        .post("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["username", "password", "roles"]);

    // An empty email is not "no email": leave it out (or send null on update).
    let res = app
        .post("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"username": "desk", "password": "long enough", "email": "", "roles": ["viewer"]}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), ["email"]);
}

#[tokio::test]
async fn usernames_are_unique_per_tenant() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let res = app
        .post("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"username": "owner", "password": "password1", "roles": ["viewer"]}))
        .send()
        .await;
    res.assert_error(409, "CONFLICT");
}

#[tokio::test]
async fn the_last_owner_cannot_be_demoted_or_deactivated() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let me = app
        .get("/api/v1/admin/users")
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await;
    let id = me.body["users"][0]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    app.delete(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .send()
        .await
        .assert_error(409, "CONFLICT");
    app.patch(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"roles": ["viewer"]}))
        .send()
        .await
        .assert_error(409, "CONFLICT");
    // With a second owner the first may step down.
    app.staff("acme", "second", "second-password", &[Role::Owner])
        .await;
    app.patch(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"roles": ["viewer"]}))
        .send()
        .await
        .assert_status(200);
}

#[tokio::test]
async fn unknown_or_malformed_user_ids_are_not_found() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    for id in ["not-a-uuid", "0190a0b0-0000-7000-8000-000000000000"] {
        app.get(&format!("/api/v1/admin/users/{id}"))
            .tenant("acme")
            .token(&acme.owner_token)
            .send()
            .await
            .assert_error(404, "NOT_FOUND");
    }
}

#[tokio::test]
async fn a_changed_password_replaces_the_old_one() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let id = app
        .staff("acme", "desk", "old-password", &[Role::Viewer])
        .await;
    app.patch(&format!("/api/v1/admin/users/{id}"))
        .tenant("acme")
        .token(&acme.owner_token)
        .json(json!({"password": "new-password"}))
        .send()
        .await
        .assert_status(200);
    app.post("/api/auth/login")
        .tenant("acme")
        .json(json!({"username": "desk", "password": "old-password", "tenantId": "acme"}))
        .send()
        .await
        .assert_error(401, "INVALID_CREDENTIALS");
    app.admin_token("acme", "desk", "new-password").await;
}

/// A new password ends every session of the account at once, and so does a deactivation,
/// for good: reactivating the account does not bring old tokens back. Other changes
/// (roles, names) keep the sessions, which pick them up on their next request.
#[tokio::test]
async fn a_password_change_or_deactivation_ends_the_accounts_sessions() {
    let app = TestApp::spawn().await;
    let acme = app.tenant("acme").await;
    let user = app
        .staff("acme", "desk", "desk-password", &[Role::FrontDesk])
        .await;
    let id = user.to_string();
    let bookings = |token: &str| {
        app.get("/api/v1/admin/bookings")
            .tenant("acme")
            .token(token)
            .send()
    };
    let change = |body: serde_json::Value| {
        app.patch(&format!("/api/v1/admin/users/{id}"))
            .tenant("acme")
            .token(&acme.owner_token)
            .json(body)
            .send()
    };

    let first = app.admin_token("acme", "desk", "desk-password").await;
    bookings(&first).await.assert_status(200);
    // A role change keeps the session.
    change(json!({"roles": ["manager"]}))
        .await
        .assert_status(200);
    bookings(&first).await.assert_status(200);

    // The owner sets a new password: the old token is refused, a new sign-in works.
    change(json!({"password": "a-new-password"}))
        .await
        .assert_status(200);
    let res = bookings(&first).await;
    res.assert_error(401, "UNAUTHORIZED");
    assert!(
        res.body["message"]
            .as_str()
            .unwrap_or("")
            .contains("sign in again")
    );
    let second = app.admin_token("acme", "desk", "a-new-password").await;
    bookings(&second).await.assert_status(200);

    // Deactivated, then reactivated: the token from before stays dead.
    change(json!({"isActive": false})).await.assert_status(200);
    bookings(&second).await.assert_error(401, "UNAUTHORIZED");
    change(json!({"isActive": true})).await.assert_status(200);
    bookings(&second).await.assert_error(401, "UNAUTHORIZED");
    let third = app.admin_token("acme", "desk", "a-new-password").await;
    bookings(&third).await.assert_status(200);
}
