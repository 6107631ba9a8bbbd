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
            walk_schema(&doc, schema, &mut Vec::new(), 0, &mut |s, at| {
                if has_type(s, "array") && s["maxItems"].is_null() {
                    unbounded.push(format!("{method} {path} {}", field_name(at)));
                }
            });
        }
    }
    assert!(
        unbounded.is_empty(),
        "lists without maxItems: {unbounded:?}"
    );
}

/// One step from a request body down to one of its values.
#[derive(Debug, Clone)]
enum Step {
    Field(String),
    Item,
}

/// Calls `visit` with every schema under `schema` (through `$ref`, `oneOf`/`anyOf`/`allOf`,
/// properties and array items) and the path from the body down to it.
fn walk_schema(
    doc: &serde_json::Value,
    schema: &serde_json::Value,
    at: &mut Vec<Step>,
    depth: usize,
    visit: &mut dyn FnMut(&serde_json::Value, &[Step]),
) {
    if depth > 8 || schema.is_null() {
        return;
    }
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.rsplit('/').next().unwrap_or_default();
        walk_schema(
            doc,
            &doc["components"]["schemas"][name],
            at,
            depth + 1,
            visit,
        );
        return;
    }
    visit(schema, at);
    for key in ["oneOf", "anyOf", "allOf"] {
        for s in schema[key].as_array().into_iter().flatten() {
            walk_schema(doc, s, at, depth + 1, visit);
        }
    }
    if !schema["items"].is_null() {
        at.push(Step::Item);
        walk_schema(doc, &schema["items"], at, depth + 1, visit);
        at.pop();
    }
    for (name, s) in schema["properties"].as_object().into_iter().flatten() {
        at.push(Step::Field(name.clone()));
        walk_schema(doc, s, at, depth + 1, visit);
        at.pop();
    }
}

/// Whether `schema` admits values of JSON type `t` (`"type": t` or a list holding it).
fn has_type(schema: &serde_json::Value, t: &str) -> bool {
    schema["type"] == t
        || schema["type"]
            .as_array()
            .is_some_and(|types| types.iter().any(|x| x == t))
}

/// The name errors give the field at `path` (`customer.name`, `participants[0].email`).
fn field_name(path: &[Step]) -> String {
    let mut field = String::new();
    for step in path {
        match step {
            Step::Field(name) if field.is_empty() => field.push_str(name),
            Step::Field(name) => field.push_str(&format!(".{name}")),
            Step::Item => field.push_str("[0]"),
        }
    }
    field
}

/// A body holding `value` at `path` and nothing else.
fn body_with(path: &[Step], value: serde_json::Value) -> serde_json::Value {
    let mut body = value;
    for step in path.iter().rev() {
        body = match step {
            Step::Field(name) => json!({ name: body }),
            Step::Item => json!([body]),
        };
    }
    body
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
    booking.assert_status(200);
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
            let mut paths = Vec::new();
            walk_schema(&doc, schema, &mut Vec::new(), 0, &mut |s, at| {
                if has_type(s, "string") && !at.is_empty() {
                    paths.push(at.to_vec());
                }
            });
            for string in paths {
                let field = field_name(&string);
                for bad in ["nul\u{0}here", "escape\u{1b}[2J"] {
                    let body = body_with(&string, json!(bad));
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

#[tokio::test]
async fn every_path_parameter_of_every_route_refuses_control_characters() {
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let t = app.tenant("acme").await;
    let doc = app.get("/api/openapi.json").send().await.body;
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (path, ops) in doc["paths"].as_object().into_iter().flatten() {
        if !path.contains('{') {
            continue;
        }
        let names: Vec<&str> = path
            .split('{')
            .skip(1)
            .filter_map(|p| p.split('}').next())
            .collect();
        for bad in ["a%00b", "a%1B%5B2J"] {
            let concrete = names
                .iter()
                .fold(path.clone(), |p, n| p.replace(&format!("{{{n}}}"), bad));
            for method in ops.as_object().into_iter().flatten().map(|(m, _)| m) {
                let req = match method.as_str() {
                    "get" => app.get(&concrete),
                    "post" => app.post(&concrete),
                    "put" => app.put(&concrete),
                    "patch" => app.patch(&concrete),
                    _ => app.delete(&concrete),
                };
                let res = req.tenant(&t.id).token(&t.owner_token).send().await;
                checked += 1;
                let fields = res.error_fields();
                if res.status != 400 || !names.iter().all(|n| fields.contains(&(*n).to_owned())) {
                    wrong.push(format!("{method} {concrete}: {} {}", res.status, res.text));
                }
            }
        }
    }
    eprintln!("measured: {checked} requests (route × control character in its path), all refused");
    assert!(checked > 50, "routes with path parameters: {checked}");
    assert!(
        wrong.is_empty(),
        "not refused with a 400 naming the parameter: {wrong:#?}"
    );
    // Bytes that are not UTF-8: a 400 in the error shape, not a plain-text rejection.
    let res = app
        .get("/api/v1/vouchers/%FF%FE/balance")
        .tenant(&t.id)
        .send()
        .await;
    res.assert_error(400, "VALIDATION_ERROR");
    assert_eq!(res.error_fields(), vec!["path"]);
    // Public lookups by code, which PostgreSQL cannot compare with a NUL.
    for path in [
        "/api/v1/gift-cards/balance/GIFT%00X",
        "/api/v1/vouchers/VCHR%00X/balance",
    ] {
        app.get(path)
            .tenant(&t.id)
            .send()
            .await
            .assert_error(400, "VALIDATION_ERROR");
    }
    // The notification endpoints answer in shape B.
    let res = app
        .get("/api/v1/admin/messaging/templates/key/a%00b")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    res.assert_status(400);
    assert_eq!(res.body["statusCode"], 400, "{}", res.text);
    assert_eq!(res.error_fields(), vec!["templateKey"]);
}
