//! Waivers (spec Part B 2.6, 4.5, 8): templates and their versions, the active waiver,
//! signing per participant (a minor's by a guardian, decided at the 18th birthday in the
//! site's time zone), the legacy booking-wide signature, the signature image's checks and
//! every waiver error code.

use super::admin_bookings::start;
use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

/// A 1×1 PNG.
pub(crate) const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// A bookable venue whose product requires waivers, with an English waiver published.
pub(crate) async fn venue() -> (TestApp, TenantFixture, BookingFixture, String) {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    product(
        &app,
        &t,
        &fx.catalog.product_id,
        json!({"requiresWaiver": true}),
    )
    .await;
    let res = template(
        &app,
        &t,
        json!({"name": "Climbing waiver", "locale": "en",
        "content": "I climb at my own risk."}),
    )
    .await;
    res.assert_status(201);
    let id = res.str("id").to_owned();
    (app, t, fx, id)
}

pub(crate) async fn product(app: &TestApp, t: &TenantFixture, id: &str, body: Value) {
    app.patch(&format!("/api/v1/admin/products/{id}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
        .assert_status(200);
}

pub(crate) async fn template(app: &TestApp, t: &TenantFixture, body: Value) -> TestResponse {
    app.post("/api/v1/waivers/templates")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await
}

/// A confirmed booking for `party` at tomorrow's first slot with `participants`: its id.
pub(crate) async fn booking(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    party: u32,
    participants: Value,
) -> String {
    booking_at(app, t, fx, 0, party, participants).await
}

/// As [`booking`], at tomorrow's slot `slot` (0 to 3).
pub(crate) async fn booking_at(
    app: &TestApp,
    t: &TenantFixture,
    fx: &BookingFixture,
    slot: usize,
    party: u32,
    participants: Value,
) -> String {
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": fx.catalog.site_id, "productId": fx.catalog.product_id,
            "startTime": start(slot), "partySize": party, "autoConfirm": true,
            "customerInfo": {"name": "Grace Hopper", "email": "grace@example.com"},
            "participants": participants
        }))
        .send()
        .await;
    res.assert_status(200);
    res.str("bookingId").to_owned()
}

pub(crate) async fn status(app: &TestApp, t: &TenantFixture, booking: &str) -> Value {
    let res = app
        .get(&format!(
            "/api/v1/waivers/booking/{booking}/participants/status"
        ))
        .tenant(&t.id)
        .send()
        .await;
    res.assert_status(200);
    res.body["data"].clone()
}

/// [`venue`] with a confirmed booking for one, Ada L: (app, tenant, fixture, template id,
/// booking id, Ada's participant id).
pub(crate) async fn one_named() -> (
    TestApp,
    TenantFixture,
    BookingFixture,
    String,
    String,
    String,
) {
    let (app, t, fx, template) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        1,
        json!([{"firstName": "Ada", "lastName": "L"}]),
    )
    .await;
    let p = first_participant(&app, &t, &b).await;
    (app, t, fx, template, b, p)
}

/// The id of the first participant a booking lists.
pub(crate) async fn first_participant(app: &TestApp, t: &TenantFixture, booking: &str) -> String {
    status(app, t, booking).await["participants"][0]["participantId"]
        .as_str()
        .unwrap_or_else(|| panic!("booking {booking} lists no participant"))
        .to_owned()
}

pub(crate) async fn sign(
    app: &TestApp,
    t: &TenantFixture,
    booking: &str,
    participant: &str,
    body: Value,
) -> TestResponse {
    app.post(&format!(
        "/api/v1/waivers/booking/{booking}/participants/{participant}/sign"
    ))
    .tenant(&t.id)
    .json(body)
    .send()
    .await
}

pub(crate) fn signer() -> Value {
    json!({"signedByName": "Grace Hopper", "signedByEmail": "grace@example.com",
        "signatureData": format!("data:image/png;base64,{PNG}")})
}

#[tokio::test]
async fn a_new_text_is_a_new_version_and_the_old_one_stays_valid_for_its_signatures() {
    let (app, t, fx, v1, b, p) = one_named().await;
    let signed = sign(&app, &t, &b, &p, signer()).await;
    signed.assert_status(200);
    assert_eq!(signed.body["data"]["templateId"], v1.as_str());

    // The same version and text again is a retry; other text under it is a conflict.
    let again = template(
        &app,
        &t,
        json!({"name": "Climbing waiver", "locale": "en",
        "version": "1", "content": "I climb at my own risk."}),
    )
    .await;
    again.assert_status(200);
    assert_eq!(again.str("id"), v1);
    template(
        &app,
        &t,
        json!({"name": "Climbing waiver", "locale": "en", "version": "1",
        "content": "Changed."}),
    )
    .await
    .assert_error(409, "CONFLICT");

    let v2 = template(
        &app,
        &t,
        json!({"name": "Climbing waiver", "locale": "en",
        "content": "I climb at my own risk. Helmets on."}),
    )
    .await;
    v2.assert_status(201);
    assert_eq!(v2.str("version"), "2");
    assert_ne!(v2.str("contentHash"), "");
    let list = app
        .get("/api/v1/waivers/templates?activeOnly=true")
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    list.assert_status(200);
    let active: Vec<&str> = list.body["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["version"].as_str().unwrap())
        .collect();
    assert_eq!(
        active,
        ["2"],
        "the new version replaces the old: {}",
        list.text
    );

    // The signature keeps the version and the hash of the text it agreed to.
    let sigs = app
        .get(&format!("/api/v1/waivers/signatures?bookingId={b}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    sigs.assert_status(200);
    let s = &sigs.body["signatures"][0];
    assert_eq!(s["templateVersion"], "1");
    assert_eq!(
        s["contentHash"],
        kairos_domain::waivers::content_hash("I climb at my own risk.")
    );
    assert_eq!(s["signatureData"], format!("data:image/png;base64,{PNG}"));
    assert_eq!(s["method"], "online");

    // Deactivating keeps the signature valid; signing on the old version is refused.
    app.patch(&format!(
        "/api/v1/waivers/templates/{}/deactivate",
        v2.str("id")
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .send()
    .await
    .assert_status(200);
    assert_eq!(status(&app, &t, &b).await["allParticipantsSigned"], true);
    let b2 = booking(
        &app,
        &t,
        &fx,
        1,
        json!([{"firstName": "Bo", "lastName": "K"}]),
    )
    .await;
    let p2 = first_participant(&app, &t, &b2).await;
    let mut old = signer();
    old["templateId"] = json!(v1);
    sign(&app, &t, &b2, &p2, old)
        .await
        .assert_error(409, "TEMPLATE_INACTIVE");
    // With no active waiver left, there is nothing to sign online.
    sign(&app, &t, &b2, &p2, signer())
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
    app.patch(&format!(
        "/api/v1/waivers/templates/{}/deactivate",
        uuid::Uuid::new_v4()
    ))
    .tenant(&t.id)
    .token(&t.owner_token)
    .send()
    .await
    .assert_error(404, "WAIVER_NOT_FOUND");
}

#[tokio::test]
async fn the_active_waiver_is_in_the_signers_language_and_covers_its_products() {
    let (app, t, fx, en) = venue().await;
    let fi = template(
        &app,
        &t,
        json!({"name": "Climbing waiver", "locale": "fi",
        "content": "Kiipeilen omalla vastuullani.", "productIds": [fx.catalog.product_id]}),
    )
    .await;
    fi.assert_status(201);
    let active = |q: String| {
        let app = &app;
        let t = &t;
        async move {
            app.get(&format!("/api/v1/waivers/active?{q}"))
                .tenant(&t.id)
                .send()
                .await
        }
    };
    let res = active(format!("locale=fi&productId={}", fx.catalog.product_id)).await;
    res.assert_status(200);
    assert_eq!(res.body["success"], true);
    assert_eq!(res.body["data"]["locale"], "fi");
    assert_eq!(res.body["data"]["id"], fi.str("id"));
    let res = active(format!("locale=en-GB&productId={}", fx.catalog.product_id)).await;
    assert_eq!(
        res.body["data"]["id"],
        en.as_str(),
        "same language: {}",
        res.text
    );
    // The Finnish text covers only its product.
    let res = active("locale=fi".into()).await;
    assert_eq!(res.body["data"]["locale"], "en");
    // Bad input is a 400 naming the field; unknown products of a tenant without waivers 404.
    active("productId=nope".into())
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let other = app.tenant("other").await;
    app.get("/api/v1/waivers/active")
        .tenant(&other.id)
        .send()
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
    template(
        &app,
        &t,
        json!({"name": "", "locale": "xx_y!", "content": "",
        "productIds": ["nope", uuid::Uuid::new_v4()]}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
}

#[tokio::test]
async fn a_minor_is_signed_for_by_a_guardian_from_the_eighteenth_birthday_in_the_sites_zone() {
    let (app, t, _, _) = venue().await;
    // A site in Auckland: 10:00 there on 22 November is still 21 November in UTC.
    let site = app
        .post("/api/v1/admin/sites")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({"name": "Auckland wall", "timezone": "Pacific/Auckland"}))
        .send()
        .await;
    site.assert_status(200);
    let product = app
        .post("/api/v1/admin/products")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"siteId": site.str("id"), "name": "Wall", "durationMins": 60,
            "capacity": 10, "basePrice": 20.0, "priceType": "per_person", "taxRate": 15,
            "slotIntervalMin": 60, "requiresWaiver": true}),
        )
        .send()
        .await;
    product.assert_status(200);
    app.daily_hours(&t, "site", site.str("id"), "10:00", "12:00")
        .await;
    let res = app
        .post("/api/v1/admin/bookings")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(json!({
            "siteId": site.str("id"), "productId": product.str("id"),
            "startTime": "2026-11-21T21:00:00Z", "partySize": 3, "autoConfirm": true,
            "customerInfo": {"name": "Kiri Parent", "email": "kiri@example.com"},
            "participants": [
                {"firstName": "Eighteen", "lastName": "Today", "dateOfBirth": "2008-11-22"},
                {"firstName": "Eighteen", "lastName": "Tomorrow", "dateOfBirth": "2008-11-23"},
                {"firstName": "Said", "lastName": "Sixteen", "dateOfBirth": "1990-01-01",
                 "ageAtBooking": 16}
            ]
        }))
        .send()
        .await;
    res.assert_status(200);
    let b = res.str("bookingId").to_owned();
    let st = status(&app, &t, &b).await;
    let minors: Vec<(String, bool)> = st["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["participantName"].as_str().unwrap().to_owned(),
                p["isMinor"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        minors,
        [
            ("Eighteen Today".to_owned(), false),
            ("Eighteen Tomorrow".to_owned(), true),
            ("Said Sixteen".to_owned(), true)
        ],
        "18 on the local booking day is an adult; ageAtBooking wins over the birth date"
    );
    let ids: Vec<String> = st["participants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["participantId"].as_str().unwrap().to_owned())
        .collect();
    let mut body = signer();
    body["isGuardianSignature"] = json!(false);
    let adult = sign(&app, &t, &b, &ids[0], body.clone()).await;
    adult.assert_status(200);
    assert_eq!(adult.body["data"]["isMinor"], false);
    assert_eq!(adult.body["data"]["isGuardianSignature"], false);
    body["guardianRelationship"] = json!("parent");
    let minor = sign(&app, &t, &b, &ids[1], body).await;
    minor.assert_status(200);
    assert_eq!(minor.body["data"]["isMinor"], true);
    assert_eq!(
        minor.body["data"]["isGuardianSignature"], true,
        "set for a minor whatever is sent"
    );
    let st = status(&app, &t, &b).await;
    assert_eq!(st["participants"][1]["guardianRelationship"], "parent");
    assert_eq!(st["signedCount"], 2);
    assert_eq!(st["pendingCount"], 1);
    assert_eq!(st["allParticipantsSigned"], false);
}

#[tokio::test]
async fn signing_checks_its_input_and_answers_each_error_code() {
    let (app, t, fx, _) = venue().await;
    let b = booking(
        &app,
        &t,
        &fx,
        2,
        json!([{"firstName": "Ada", "lastName": "L"}]),
    )
    .await;
    let p = first_participant(&app, &t, &b).await;
    let bad = sign(
        &app,
        &t,
        &b,
        &p,
        json!({"signatureData": "R0lGODlhAQABAAAAACw="}),
    )
    .await;
    bad.assert_error(400, "VALIDATION_ERROR");
    let mut fields = bad.error_fields();
    fields.sort();
    assert_eq!(fields, ["signatureData", "signedByEmail", "signedByName"]);
    let script = base64_of("<svg onload=\"alert(1)\"></svg>");
    let mut body = signer();
    body["signatureData"] = json!(script);
    sign(&app, &t, &b, &p, body)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    let mut body = signer();
    body["signatureData"] = json!(base64_of(&format!("<svg>{}</svg>", "x".repeat(300_000))));
    sign(&app, &t, &b, &p, body)
        .await
        .assert_error(400, "VALIDATION_ERROR");
    sign(&app, &t, &b, &uuid::Uuid::new_v4().to_string(), signer())
        .await
        .assert_error(404, "PARTICIPANT_NOT_FOUND");
    sign(&app, &t, &uuid::Uuid::new_v4().to_string(), &p, signer())
        .await
        .assert_error(404, "BOOKING_NOT_FOUND");
    let mut body = signer();
    body["templateId"] = json!(uuid::Uuid::new_v4());
    sign(&app, &t, &b, &p, body)
        .await
        .assert_error(404, "WAIVER_NOT_FOUND");
    sign(&app, &t, &b, &p, signer()).await.assert_status(200);
    let twice = sign(&app, &t, &b, &p, signer()).await;
    twice.assert_error(409, "ALREADY_SIGNED");
    assert!(twice.body["details"]["signatureId"].is_string());
    // Another tenant sees no such booking.
    let other = app.tenant("other").await;
    app.post(&format!(
        "/api/v1/waivers/booking/{b}/participants/{p}/sign"
    ))
    .tenant(&other.id)
    .json(signer())
    .send()
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
}

#[tokio::test]
async fn the_legacy_signature_is_the_bookers_and_signs_for_no_one_in_particular() {
    let (app, t, fx, template_id) = venue().await;
    let b = booking(&app, &t, &fx, 2, json!([])).await;
    let st = app
        .get(&format!("/api/v1/waivers/booking/{b}/status"))
        .tenant(&t.id)
        .send()
        .await;
    st.assert_status(200);
    assert_eq!(st.body["data"]["requiresWaiver"], true);
    assert_eq!(st.body["data"]["waiverSigned"], false);
    let legacy = |body: Value| {
        let app = &app;
        let t = &t;
        async move {
            app.post("/api/v1/waivers/sign")
                .tenant(&t.id)
                .json(body)
                .send()
                .await
        }
    };
    legacy(
        json!({"bookingId": b, "templateId": template_id, "signedByName": "Grace",
        "signedByEmail": "grace@example.com", "ipAddress": "not an ip"}),
    )
    .await
    .assert_error(400, "VALIDATION_ERROR");
    let res = legacy(
        json!({"bookingId": b, "templateId": template_id, "signedByName": "Grace",
        "signedByEmail": "grace@example.com", "signatureData": PNG, "ipAddress": "203.0.113.9"}),
    )
    .await;
    res.assert_status(200);
    assert!(res.body["data"]["signatureId"].is_string());
    let st = app
        .get(&format!("/api/v1/waivers/booking/{b}/status"))
        .tenant(&t.id)
        .send()
        .await;
    assert_eq!(st.body["data"]["waiverSigned"], true);
    assert_eq!(st.body["data"]["signedByName"], "Grace");
    // Each person of the party still signs their own: a stranger with the booking's id
    // cannot make the party's waivers complete.
    let st = status(&app, &t, &b).await;
    assert_eq!(st["allParticipantsSigned"], false);
    assert_eq!(st["pendingCount"], 2);
    let admin = app
        .get(&format!("/api/v1/admin/waivers/booking/{b}"))
        .tenant(&t.id)
        .token(&t.owner_token)
        .send()
        .await;
    assert_eq!(admin.body["allWaiversComplete"], false);
    assert_eq!(admin.body["missingCount"], 2);
    assert_eq!(
        admin.body["requiredWaivers"].as_array().map(Vec::len),
        Some(3),
        "{}",
        admin.text
    );
    assert_eq!(admin.body["requiredWaivers"][2]["status"], "signed");
    legacy(json!({"bookingId": b, "signedByName": "Grace", "signedByEmail": "grace@example.com"}))
        .await
        .assert_error(409, "ALREADY_SIGNED");
    legacy(
        json!({"bookingId": uuid::Uuid::new_v4(), "signedByName": "G",
        "signedByEmail": "g@example.com"}),
    )
    .await
    .assert_error(404, "BOOKING_NOT_FOUND");
}

fn base64_of(s: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(s)
}
