//! Customer booking history for staff: query validation, access for the tenant's staff
//! only, and both history endpoints' documented parameters.

use super::customer_history::{history, setup};
use kairos_domain::auth::Role;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn history_validates_its_query_and_needs_staff_of_the_tenant() {
    let (app, t, fx) = setup().await;
    app.hold(&t.id, &fx, &fx.slots[0], 2)
        .await
        .assert_status(200);
    for (query, fields) in [
        ("?limit=0", vec!["limit"]),
        ("?limit=101", vec!["limit"]),
        ("?limit=ten", vec!["limit"]),
        ("?includeCompleted=yes", vec!["includeCompleted"]),
        ("?includeCancelled=2", vec!["includeCancelled"]),
        (
            "?includeCompleted=no&includeCancelled=no&limit=-1",
            vec!["includeCompleted", "includeCancelled", "limit"],
        ),
    ] {
        let res = history(&app, &t, &t.owner_token, "ada@example.com", query).await;
        res.assert_error(400, "VALIDATION_ERROR");
        assert_eq!(res.error_fields(), fields, "{query}");
    }
    for query in [
        "?limit=1",
        "?limit=100",
        "?includeCompleted=true&includeCancelled=false",
    ] {
        history(&app, &t, &t.owner_token, "ada@example.com", query)
            .await
            .assert_status(200);
    }

    // Every staff role holds admin:customers:read, the viewer included.
    app.staff(&t.id, "viewer", "viewer-password-1", &[Role::Viewer])
        .await;
    let viewer = app.admin_token(&t.id, "viewer", "viewer-password-1").await;
    let res = history(&app, &t, &viewer, "ada@example.com", "").await;
    res.assert_status(200);
    assert_eq!(res.body["customer"]["totalBookings"], 1);

    app.get("/api/v1/admin/customers/ada@example.com/bookings")
        .tenant(&t.id)
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    let customer = app.customer_token(&t.id, "ada@example.com").await;
    history(&app, &t, &customer, "ada@example.com", "")
        .await
        .assert_error(403, "INSUFFICIENT_PERMISSIONS");

    // Another tenant knows no such customer.
    let other = app.tenant("other").await;
    history(&app, &other, &other.owner_token, "ada@example.com", "")
        .await
        .assert_error(404, "NOT_FOUND");
    history(
        &app,
        &other,
        &other.owner_token,
        "%2B358%2040%20123%204567",
        "",
    )
    .await
    .assert_error(404, "NOT_FOUND");
}

#[tokio::test]
async fn the_endpoints_are_documented_with_their_parameters() {
    let app = TestApp::spawn().await;
    let res = app.get("/api/openapi.json").send().await;
    res.assert_status(200);
    let params = |path: &str, method: &str| -> Vec<String> {
        res.body["paths"][path][method]["parameters"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|p| match p["$ref"].as_str() {
                        // "#/components/parameters/TenantId" → the component.
                        Some(r) => {
                            &res.body["components"]["parameters"]
                                [r.rsplit('/').next().unwrap_or_default()]
                        }
                        None => p,
                    })
                    .filter_map(|p| p["name"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    let history = "/api/v1/admin/customers/{identifier}/bookings";
    assert_eq!(
        params(history, "get"),
        vec![
            "x-tenant-id",
            "identifier",
            "includeCompleted",
            "includeCancelled",
            "limit"
        ]
    );
    assert_eq!(
        res.body["paths"][history]["get"]["tags"],
        json!(["admin-bookings"])
    );
    let mine = "/api/v1/customers/me/bookings";
    assert_eq!(
        params(mine, "get"),
        vec!["x-tenant-id", "status", "from", "to", "page", "limit"]
    );
    assert_eq!(res.body["paths"][mine]["get"]["tags"], json!(["customers"]));
    for (path, method, codes) in [
        (history, "get", &["200", "400", "401", "403", "404"][..]),
        (mine, "get", &["200", "400", "401", "403"][..]),
        (
            "/api/v1/admin/bookings/{bookingId}/notes",
            "get",
            &["200", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes",
            "post",
            &["200", "400", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes/{noteId}",
            "patch",
            &["200", "400", "401", "403", "404"][..],
        ),
        (
            "/api/v1/admin/bookings/{bookingId}/notes/{noteId}",
            "delete",
            &["200", "401", "403", "404"][..],
        ),
    ] {
        let op = &res.body["paths"][path][method];
        for code in codes {
            assert!(
                op["responses"][code].is_object(),
                "{method} {path} documents {code}"
            );
        }
        assert_eq!(op["security"], json!([{"bearer": []}]), "{method} {path}");
    }
}
