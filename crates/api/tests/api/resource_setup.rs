//! A bookable product with a resource add-on, for the resource add-on tests.

use kairos_testkit::{BookingFixture, TenantFixture, TestApp, TestResponse};
use serde_json::{Value, json};

pub struct Room {
    pub app: TestApp,
    pub t: TenantFixture,
    pub fx: BookingFixture,
    pub resource: String,
    pub config: String,
}

/// A resource of `mode` and `capacity` offered by the fixture's product through a
/// configuration: FIXED 60 minutes at a flat 10.00, before, during or after, with the
/// fields of `config` on top.
pub async fn room(mode: &str, capacity: u32, config: Value) -> Room {
    room_cached(mode, capacity, config, std::time::Duration::ZERO).await
}

/// [`room`] on an instance that keeps availability answers for `ttl`.
pub async fn room_cached(
    mode: &str,
    capacity: u32,
    config: Value,
    ttl: std::time::Duration,
) -> Room {
    let app = TestApp::builder()
        .limits(kairos_api::rate_limit::Limits::UNLIMITED)
        .availability_cache(ttl)
        .spawn()
        .await;
    let t = app.tenant("acme").await;
    let fx = app.bookable(&t).await;
    let resource = app
        .post("/api/v1/admin/resources")
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"siteId": fx.catalog.site_id, "name": "Party room", "resourceType": "ROOM",
            "sharedMode": mode, "capacity": capacity}),
        )
        .send()
        .await;
    resource.assert_status(200);
    let addon = app
        .post(&format!(
            "/api/v1/admin/products/{}/addons",
            fx.catalog.product_id
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(
            json!({"name": "Party room", "addonType": "resource", "mode": "yesno",
            "priceType": "fixed", "price": 0}),
        )
        .send()
        .await;
    addon.assert_status(200);
    let mut body = json!({"addonId": addon.str("id"), "resourceId": resource.str("id"),
        "durationMode": "FIXED", "fixedDurationMins": 60, "pricingMode": "FLAT",
        "flatPrice": 10});
    if let (Some(b), Some(extra)) = (body.as_object_mut(), config.as_object()) {
        for (k, v) in extra {
            b.insert(k.clone(), v.clone());
        }
    }
    let config = app
        .post(&format!(
            "/api/v1/admin/products/{}/resource-addons",
            fx.catalog.product_id
        ))
        .tenant(&t.id)
        .token(&t.owner_token)
        .json(body)
        .send()
        .await;
    config.assert_status(200);
    let (resource, config) = (resource.str("id").to_owned(), config.str("id").to_owned());
    Room {
        app,
        t,
        fx,
        resource,
        config,
    }
}

impl Room {
    /// A hold of `party` on slot `slot` made by staff (no hold caps).
    pub async fn hold(&self, slot: usize, party: u32) -> TestResponse {
        self.hold_for(slot, party, "ada@example.com").await
    }

    /// A hold for the customer with `email`.
    pub async fn hold_for(&self, slot: usize, party: u32, email: &str) -> TestResponse {
        let res = self
            .app
            .post("/api/v1/bookings/hold")
            .tenant(&self.t.id)
            .token(&self.t.owner_token)
            .json(json!({
                "siteId": self.fx.catalog.site_id, "productId": self.fx.catalog.product_id,
                "slotId": self.fx.slots[slot], "partySize": party,
                "customer": {"name": "Ada Lovelace", "email": email}
            }))
            .send()
            .await;
        res.assert_status(200);
        res
    }

    /// `POST /bookings/{id}/resource-addons` with one window of the configuration.
    pub async fn add(&self, booking: &str, starts: &str, ends: &str, mins: i64) -> TestResponse {
        self.app
            .post(&format!("/api/v1/bookings/{booking}/resource-addons"))
            .tenant(&self.t.id)
            .token(&self.t.owner_token)
            .json(
                json!({"selections": [{"configId": self.config, "startsAt": starts,
                "endsAt": ends, "durationMins": mins}]}),
            )
            .send()
            .await
    }

    pub async fn addons(&self, booking: &str) -> TestResponse {
        let res = self
            .app
            .get(&format!("/api/v1/bookings/{booking}/resource-addons"))
            .tenant(&self.t.id)
            .token(&self.t.owner_token)
            .send()
            .await;
        res.assert_status(200);
        res
    }
}

impl Room {
    /// A booking of two on the `slot`th session four days ahead (the standard policy
    /// then refunds everything), with the room for the hour after it when `with_room`,
    /// confirmed by card through the sandbox (set up by the caller) and paid: the hold's
    /// answer.
    pub async fn card_paid(&self, slot: usize, with_room: bool) -> TestResponse {
        let (app, t, fx) = (&self.app, &self.t, &self.fx);
        let later = app
            .availability(&t.id, &fx.catalog, "2026-11-25", "2026-11-25", 2)
            .await;
        let hold = app
            .hold(&t.id, fx, &kairos_testkit::slot_ids(&later.body)[slot], 2)
            .await;
        let id = hold.str("id");
        let mut hash = json!(hold.str("pricingHash"));
        if with_room {
            let end = hold.str("endTime");
            let added = self.add(id, end, &shift(end, 60), 60).await;
            added.assert_status(200);
            hash = added.body["pricingUpdate"]["pricingHash"].clone();
        }
        app.post(&format!("/api/v1/bookings/{id}/confirm"))
            .tenant(&t.id)
            .header("x-booking-token", hold.str("bookingToken"))
            .json(json!({"pricingHash": hash, "paymentMethod": "cardpay",
                "paymentMethodId": "pm_card_visa"}))
            .send()
            .await
            .assert_status(200);
        self.reaches(id, "paid").await;
        hold
    }

    /// The booking (staff view) once its status is `status`: the provider's events
    /// arrive on their own.
    pub async fn reaches(&self, id: &str, status: &str) -> Value {
        let mut b = json!(null);
        for _ in 0..100 {
            b = crate::payments_cancellation::booking(&self.app, &self.t, id).await;
            if b["status"] == status {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(b["status"], status, "{b}");
        b
    }

    /// `PATCH /bookings/{id}/resource-addons` with the booking's token `token`.
    pub async fn change(&self, booking: &str, token: &str, body: Value) -> TestResponse {
        self.app
            .patch(&format!("/api/v1/bookings/{booking}/resource-addons"))
            .tenant(&self.t.id)
            .header("x-booking-token", token)
            .json(body)
            .send()
            .await
    }
}

/// `at` moved by `minutes` (RFC 3339).
pub fn shift(at: &str, minutes: i64) -> String {
    let t = chrono::DateTime::parse_from_rfc3339(at).unwrap_or_else(|e| panic!("{at}: {e}"));
    (t + chrono::Duration::minutes(minutes))
        .with_timezone(&chrono::Utc)
        .to_rfc3339()
}

/// A request as the tenant's owner, with `body` as JSON when given.
pub async fn call(
    app: &TestApp,
    t: &TenantFixture,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> TestResponse {
    let req = match method {
        "GET" => app.get(path),
        "POST" => app.post(path),
        "PUT" => app.put(path),
        "PATCH" => app.patch(path),
        _ => app.delete(path),
    }
    .tenant(&t.id)
    .token(&t.owner_token);
    match body {
        Some(b) => req.json(b).send().await,
        None => req.send().await,
    }
}

/// A resource at `site` with the fields of `body`; its id.
pub async fn resource(app: &TestApp, t: &TenantFixture, site: &str, body: Value) -> String {
    let mut b = json!({"siteId": site});
    if let (Some(o), Some(extra)) = (b.as_object_mut(), body.as_object()) {
        o.extend(extra.clone());
    }
    let r = call(app, t, "POST", "/api/v1/admin/resources", Some(b)).await;
    r.assert_status(200);
    r.str("id").to_owned()
}
