use kairos_api::rate_limit::Limits;
use kairos_testkit::TestApp;
use serde_json::json;

#[tokio::test]
async fn malformed_json_is_a_400_with_its_position() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .header("content-type", "application/json")
        .raw("{\"email\": \"a@b.co\",")
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.body["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Malformed JSON")
    );
    assert!(res.body["details"]["line"].is_number());
}

#[tokio::test]
async fn wrong_types_and_bad_bodies_name_every_field() {
    let app = TestApp::builder()
        .limits(Limits {
            strict: 100,
            ..Limits::default()
        })
        .spawn()
        .await;
    app.tenant("acme").await;
    let res = app
        .post("/api/v1/customers/register")
        .tenant("acme")
        .json(json!({"email": 42, "password": ["x"], "termsAccepted": "yes", "privacyPolicyAccepted": 1}))
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(
        res.error_fields(),
        [
            "email",
            "password",
            "termsAccepted",
            "privacyPolicyAccepted"
        ]
    );

    for body in ["[]", "\"text\"", "42", "null"] {
        let res = app
            .post("/api/v1/customers/register")
            .tenant("acme")
            .header("content-type", "application/json")
            .raw(body)
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
    }
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .send()
        .await
        .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn non_json_content_type_is_refused() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    app.post("/api/v1/customers/login")
        .tenant("acme")
        .header("content-type", "text/plain")
        .raw("email=a")
        .send()
        .await
        .assert_error(415, "UNSUPPORTED_MEDIA_TYPE");
}

#[tokio::test]
async fn oversized_bodies_are_refused() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let big = format!("{{\"email\": \"{}\"}}", "a".repeat(2 * 1024 * 1024));
    app.post("/api/v1/customers/register")
        .tenant("acme")
        .header("content-type", "application/json")
        .raw(big)
        .send()
        .await
        .assert_error(413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_in_the_error_shape() {
    let app = TestApp::spawn().await;
    app.get("/api/v1/nothing-here")
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.put("/api/v1/customers/me")
        .send()
        .await
        .assert_error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn odd_headers_never_cause_a_server_error() {
    let app = TestApp::spawn().await;
    app.tenant("acme").await;
    let long = "t".repeat(5000);
    app.get("/api/v1/customers/me")
        .tenant(&long)
        .send()
        .await
        .assert_error(404, "NOT_FOUND");
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .header("authorization", "Bearer")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
    app.get("/api/v1/customers/me")
        .tenant("acme")
        .token("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln")
        .send()
        .await
        .assert_error(401, "UNAUTHORIZED");
}

/// Every list in every request body has a bound: over it, a 400 names the list (and not
/// each of its items), and the OpenAPI document states it as `maxItems`.
#[tokio::test]
async fn every_request_list_is_bounded_and_documented() {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let c = &fx.catalog;
    let many = |n: usize, item: serde_json::Value| json!(vec![item; n]);
    let addon = json!({"addonId": c.product_id, "quantity": 1});
    let participant = json!({"name": "Ada"});
    let cases = [
        (
            "POST",
            "/api/v1/bookings/hold".to_owned(),
            json!({"siteId": c.site_id, "productId": c.product_id, "slotId": fx.slots[0],
                   "partySize": 2, "addons": many(51, addon.clone())}),
            "addons",
        ),
        (
            "POST",
            "/api/v1/bookings/hold".to_owned(),
            json!({"siteId": c.site_id, "productId": c.product_id, "slotId": fx.slots[0],
                   "partySize": 2, "participants": many(1001, participant.clone())}),
            "participants",
        ),
        (
            "POST",
            "/api/v1/admin/bookings".to_owned(),
            json!({"productId": c.product_id, "startTime": "2026-11-22T08:00:00Z", "partySize": 2,
                   "customerInfo": {"name": "Ada", "email": "ada@example.com"},
                   "addons": many(51, addon)}),
            "addons",
        ),
        (
            "POST",
            "/api/v1/admin/bookings".to_owned(),
            json!({"productId": c.product_id, "startTime": "2026-11-22T08:00:00Z", "partySize": 2,
                   "customerInfo": {"name": "Ada", "email": "ada@example.com"},
                   "participants": many(1001, participant)}),
            "participants",
        ),
        (
            "POST",
            "/api/v1/admin/products".to_owned(),
            json!({"siteId": c.site_id, "name": "Many", "fixedSlotTimes": many(289, json!("10:00"))}),
            "fixedSlotTimes",
        ),
        (
            "PATCH",
            format!("/api/v1/admin/products/{}", c.product_id),
            json!({"labelCodes": many(51, json!("adults_only"))}),
            "labelCodes",
        ),
        (
            "POST",
            "/api/v1/admin/schedules/templates".to_owned(),
            json!({"scopeType": "site", "scopeId": c.site_id, "startTime": "10:00",
                   "endTime": "12:00", "recurrenceKind": "daily",
                   "exdates": many(1001, json!("2027-01-01"))}),
            "exdates",
        ),
        (
            "POST",
            "/api/v1/admin/users".to_owned(),
            json!({"username": "many", "password": "many-password",
                   "roles": many(5, json!("viewer"))}),
            "roles",
        ),
    ];
    for (method, path, body, field) in cases {
        let req = match method {
            "POST" => app.post(&path),
            _ => app.patch(&path),
        };
        let res = req
            .tenant(&t.id)
            .token(&t.owner_token)
            .json(body)
            .send()
            .await;
        res.assert_error(400, "VALIDATION_ERROR");
        let fields = res.error_fields();
        assert!(
            fields.contains(&field.to_owned()),
            "{method} {path}: {fields:?}"
        );
        assert!(
            !fields.iter().any(|f| f.starts_with(&format!("{field}["))),
            "{method} {path}: the items of an oversized {field} are not checked one by one"
        );
    }

    // The document states every request list's bound.
    let doc = app.get("/api/openapi.json").send().await.body;
    let mut unbounded = Vec::new();
    for (path, ops) in doc["paths"].as_object().into_iter().flatten() {
        for (method, op) in ops.as_object().into_iter().flatten() {
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            if !schema.is_null() {
                lists_without_bound(&doc, schema, &format!("{method} {path}"), &mut unbounded, 0);
            }
        }
    }
    assert!(
        unbounded.is_empty(),
        "lists without maxItems: {unbounded:?}"
    );
}

/// Collects the array schemas under `schema` that have no `maxItems`.
fn lists_without_bound(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    at: &str,
    found: &mut Vec<String>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or_default();
        lists_without_bound(
            doc,
            &doc["components"]["schemas"][name],
            at,
            found,
            depth + 1,
        );
        return;
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for s in schema[key].as_array().into_iter().flatten() {
            lists_without_bound(doc, s, at, found, depth + 1);
        }
    }
    let is_array = schema["type"] == "array"
        || schema["type"]
            .as_array()
            .is_some_and(|t| t.contains(&json!("array")));
    if is_array {
        if schema["maxItems"].is_null() {
            found.push(at.to_owned());
        }
        lists_without_bound(doc, &schema["items"], &format!("{at}[]"), found, depth + 1);
    }
    for (name, s) in schema["properties"].as_object().into_iter().flatten() {
        lists_without_bound(doc, s, &format!("{at}.{name}"), found, depth + 1);
    }
}

/// One step from a request body down to one of its strings.
#[derive(Debug, Clone)]
enum Step {
    Field(String),
    Item,
}

/// The paths to every string of `schema` (through `$ref`, `oneOf`/`anyOf`/`allOf`,
/// properties and array items).
fn string_paths(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    at: &mut Vec<Step>,
    found: &mut Vec<Vec<Step>>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or_default();
        string_paths(
            doc,
            &doc["components"]["schemas"][name],
            at,
            found,
            depth + 1,
        );
        return;
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        for s in schema[key].as_array().into_iter().flatten() {
            string_paths(doc, s, at, found, depth + 1);
        }
    }
    let has = |t: &str| {
        schema["type"] == t
            || schema["type"]
                .as_array()
                .is_some_and(|types| types.contains(&json!(t)))
    };
    if has("string") && !at.is_empty() {
        found.push(at.clone());
    }
    if has("array") {
        at.push(Step::Item);
        string_paths(doc, &schema["items"], at, found, depth + 1);
        at.pop();
    }
    for (name, s) in schema["properties"].as_object().into_iter().flatten() {
        at.push(Step::Field(name.clone()));
        string_paths(doc, s, at, found, depth + 1);
        at.pop();
    }
}

/// A body holding `value` at `path` and nothing else, and the field name errors use.
fn body_with(path: &[Step], value: serde_json::Value) -> (serde_json::Value, String) {
    let mut body = value;
    for step in path.iter().rev() {
        body = match step {
            Step::Field(name) => json!({ name: body }),
            Step::Item => json!([body]),
        };
    }
    let mut field = String::new();
    for step in path {
        match step {
            Step::Field(name) if field.is_empty() => field.push_str(name),
            Step::Field(name) => field.push_str(&format!(".{name}")),
            Step::Item => field.push_str("[0]"),
        }
    }
    (body, field)
}

/// A NUL character (which PostgreSQL cannot store) or another control character in any
/// string field of any request body is a 400 naming the field, on every endpoint, before
/// anything is read or written.
#[tokio::test]
async fn every_string_field_of_every_request_refuses_control_characters() {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let booking = app.hold(&t.id, &fx, &fx.slots[0], 2).await;
    booking.assert_status(201);
    let booking_id = booking.body["id"].as_str().unwrap_or_default().to_owned();
    let customer = app.customer_token(&t.id, "member@example.com").await;
    let doc = app.get("/api/openapi.json").send().await.body;
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (path, ops) in doc["paths"].as_object().into_iter().flatten() {
        // Path parameters name things that exist, so that no answer depends on a 404.
        let id = if path.contains("bookings") {
            booking_id.clone()
        } else if path.contains("products") {
            fx.catalog.product_id.clone()
        } else if path.contains("sites") {
            fx.catalog.site_id.clone()
        } else {
            uuid::Uuid::new_v4().to_string()
        };
        let mut concrete = String::new();
        let mut rest = path.as_str();
        while let Some(open) = rest.find('{') {
            concrete.push_str(&rest[..open]);
            let close = rest[open..].find('}').map_or(rest.len(), |c| open + c + 1);
            concrete.push_str(&id);
            rest = &rest[close..];
        }
        concrete.push_str(rest);
        for (method, op) in ops.as_object().into_iter().flatten() {
            let schema = &op["requestBody"]["content"]["application/json"]["schema"];
            if schema.is_null() {
                continue;
            }
            let mut paths = Vec::new();
            string_paths(&doc, schema, &mut Vec::new(), &mut paths, 0);
            for string in paths {
                for bad in ["nul\u{0}here", "escape\u{1b}[2J"] {
                    let (body, field) = body_with(&string, json!(bad));
                    let mut res = None;
                    for token in [t.owner_token.as_str(), customer.as_str()] {
                        let req = match method.as_str() {
                            "post" => app.post(&concrete),
                            "put" => app.put(&concrete),
                            "patch" => app.patch(&concrete),
                            _ => app.delete(&concrete),
                        };
                        let answer = req
                            .tenant(&t.id)
                            .token(token)
                            .json(body.clone())
                            .send()
                            .await;
                        // Customer endpoints refuse the staff token before the body.
                        let refused = matches!(answer.status.as_u16(), 401 | 403);
                        res = Some(answer);
                        if !refused {
                            break;
                        }
                    }
                    let Some(res) = res else { continue };
                    checked += 1;
                    if res.status != 400 || !res.error_fields().contains(&field) {
                        wrong.push(format!(
                            "{method} {path} {field}: {} {}",
                            res.status, res.text
                        ));
                    }
                }
            }
        }
    }
    eprintln!("measured: {checked} requests (string field × control character), all refused");
    assert!(
        checked > 100,
        "string fields found in the document: {checked}"
    );
    assert!(
        wrong.is_empty(),
        "not refused with a 400 naming the field: {wrong:#?}"
    );

    // Query parameters are text too.
    let res = app
        .get("/api/v1/admin/bookings?search=a%00b")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert!(
        res.error_fields().contains(&"search".to_owned()),
        "{}",
        res.text
    );
}
