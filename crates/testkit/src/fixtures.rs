//! Fixtures made through the API as a user would: a catalog, a bookable product, holds,
//! a sandbox card account, and the capacity invariant check.

use crate::{TenantFixture, TestApp, TestResponse};
use kairos_domain::TenantId;
use serde_json::json;

/// A site and a product made through the admin API by [`TestApp::catalog`].
#[derive(Debug, Clone)]
pub struct CatalogFixture {
    pub site_id: String,
    pub product_id: String,
}

impl TestApp {
    /// Creates a Helsinki site and a product (60-minute slots every 60 minutes, capacity
    /// 10, 20.00 per person incl. 24 % tax) in `tenant`, with no schedule yet.
    pub async fn catalog(&self, tenant: &TenantFixture) -> CatalogFixture {
        let site = self
            .post("/api/v1/admin/sites")
            .tenant(&tenant.id)
            .token(&tenant.owner_token)
            .json(json!({"name": "Main hall", "timezone": "Europe/Helsinki"}))
            .send()
            .await;
        site.assert_status(200);
        let site_id = site.str("id").to_owned();
        let product = self
            .post("/api/v1/admin/products")
            .tenant(&tenant.id)
            .token(&tenant.owner_token)
            .json(json!({
                "siteId": site_id, "name": "Climbing session", "durationMins": 60,
                "capacity": 10, "basePrice": 20.0, "priceType": "per_person", "taxRate": 24,
                "slotIntervalMin": 60, "labelCodes": ["beginner_friendly"]
            }))
            .send()
            .await;
        product.assert_status(200);
        CatalogFixture {
            site_id,
            product_id: product.str("id").to_owned(),
        }
    }

    /// Adds a daily template `start`–`end` to a scope and returns the response body.
    pub async fn daily_hours(
        &self,
        tenant: &TenantFixture,
        scope_type: &str,
        scope_id: &str,
        start: &str,
        end: &str,
    ) -> serde_json::Value {
        let res = self
            .post("/api/v1/admin/schedules/templates")
            .tenant(&tenant.id)
            .token(&tenant.owner_token)
            .json(json!({
                "scopeType": scope_type, "scopeId": scope_id, "recurrenceKind": "daily",
                "startTime": start, "endTime": end
            }))
            .send()
            .await;
        res.assert_status(200);
        res.body
    }

    /// `GET /availability` for one local date range, returning the response.
    pub async fn availability(
        &self,
        tenant: &str,
        fixture: &CatalogFixture,
        from: &str,
        to: &str,
        party: u32,
    ) -> TestResponse {
        self.get(&format!(
            "/api/v1/availability?product_id={}&site_id={}&date_from={from}&date_to={to}&party_size={party}",
            fixture.product_id, fixture.site_id
        ))
        .tenant(tenant)
        .send()
        .await
    }
}

/// A bookable catalog: [`CatalogFixture`] with the site open 10:00–14:00 daily, so the
/// product has four 60-minute slots (capacity 10) a day.
#[derive(Debug, Clone)]
pub struct BookingFixture {
    pub catalog: CatalogFixture,
    /// Tomorrow's slot ids (2026-11-22, 10:00–13:00 Helsinki), in order.
    pub slots: Vec<String>,
}

impl TestApp {
    /// Builds a [`BookingFixture`] in `tenant`.
    pub async fn bookable(&self, tenant: &TenantFixture) -> BookingFixture {
        let catalog = self.catalog(tenant).await;
        self.daily_hours(tenant, "site", &catalog.site_id, "10:00", "14:00")
            .await;
        let res = self
            .availability(&tenant.id, &catalog, "2026-11-22", "2026-11-22", 1)
            .await;
        res.assert_status(200);
        let slots = slot_ids(&res.body);
        assert_eq!(slots.len(), 4, "four slots tomorrow: {}", res.text);
        BookingFixture { catalog, slots }
    }

    /// `POST /bookings/hold` for `party` people on `slot` (anonymous, with a customer).
    pub async fn hold(
        &self,
        tenant: &str,
        fixture: &BookingFixture,
        slot: &str,
        party: u32,
    ) -> TestResponse {
        self.hold_in(tenant, &fixture.catalog, slot, party).await
    }

    /// `POST /bookings/hold` for `party` people on `slot` of `catalog`'s product.
    pub async fn hold_in(
        &self,
        tenant: &str,
        catalog: &CatalogFixture,
        slot: &str,
        party: u32,
    ) -> TestResponse {
        self.hold_for(tenant, catalog, slot, party, "ada@example.com")
            .await
    }

    /// `POST /bookings/hold` for `party` people on `slot`, anonymous, for the customer
    /// with `email`.
    pub async fn hold_for(
        &self,
        tenant: &str,
        catalog: &CatalogFixture,
        slot: &str,
        party: u32,
        email: &str,
    ) -> TestResponse {
        self.post("/api/v1/bookings/hold")
            .tenant(tenant)
            .json(json!({
                "siteId": catalog.site_id, "productId": catalog.product_id,
                "slotId": slot, "partySize": party,
                "customer": {"name": "Ada Lovelace", "email": email, "phone": "+358 40 123 4567"}
            }))
            .send()
            .await
    }

    /// Gives `tenant` a sandbox cardpay account (the built-in provider): card payments
    /// work end to end in process. Returns the account's secret key.
    pub async fn sandbox_cardpay(&self, tenant: &TenantFixture) -> String {
        let key = format!("sk_sandbox_{}_{}", tenant.id, uuid::Uuid::new_v4().simple());
        self.put("/api/v1/admin/payments/credentials/cardpay")
            .tenant(&tenant.id)
            .token(&tenant.owner_token)
            .json(json!({"secretKey": key, "sandbox": true}))
            .send()
            .await
            .assert_status(200);
        key
    }

    /// Asserts that every slot's booked count equals the party sizes of the bookings
    /// holding seats in it (the capacity invariant).
    pub async fn assert_capacity_invariant(&self, tenant: &str) {
        let tenant = TenantId::parse(tenant).unwrap_or_else(|e| panic!("{e}"));
        let mismatches = self
            .store
            .capacity_mismatches(&tenant)
            .await
            .unwrap_or_else(|e| panic!("invariant query: {e}"));
        assert!(
            mismatches.is_empty(),
            "slots whose booked count differs from their bookings (slot, booked, held): {mismatches:?}"
        );
    }
}

/// The slot ids of an availability answer, in its order.
pub fn slot_ids(availability: &serde_json::Value) -> Vec<String> {
    availability["slots"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s["slotId"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
