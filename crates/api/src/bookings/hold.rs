//! `POST /bookings/hold`: a hold on a slot's seats.

use super::draft::{DraftInput, HoldRequest, draft};
use super::{BookingAccess, BookingResponse};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{ClientAddress, Json, decode_json};
use crate::idempotency::{self, Rendered, RequestKey};
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_domain::auth::ActorKind;
use kairos_domain::bookings::BookingSource;
use kairos_domain::ids::{new_secret, parse_id};
use kairos_store::{Actor, Booking, CreatedBooking, HoldCaps, NewBooking, SlotChoice};
use serde_json::Value;

fn created(b: &Booking, token: &str) -> Rendered {
    let body = BookingResponse::of(b, Some(token.to_owned()));
    (200, serde_json::to_string(&body).unwrap_or_default())
}

pub(super) fn ok_body(b: &Booking) -> Rendered {
    (
        200,
        serde_json::to_string(&BookingResponse::of(b, None)).unwrap_or_default(),
    )
}

/// Hold capacity on a slot.
///
/// Reserves the seats atomically and returns the booking in status `hold` until
/// `holdExpiresAt` (the site's or tenant's time-to-live, 15 minutes by default), with its
/// price, `pricingHash` and a `bookingToken` for later calls. A hold made with a customer
/// token belongs to that customer. With an `Idempotency-Key`, a repeat of the same request
/// within 24 hours answers the first response (header `idempotent-replayed: true`), the
/// same key with another body is 422 and a repeat while the first runs is 409.
#[utoipa::path(post, path = "/api/v1/bookings/hold", tag = "bookings", security((), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
    ),
    request_body = HoldRequest,
    responses(
        (status = 200, body = BookingResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: unknown or inactive site, product, slot, variant", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: full, started or closed slot; HOLD_LIMIT_REACHED: the customer or the client address already has as many live holds as allowed (details.scope `customer` or `address`, details.limit); IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED with another body", body = ErrorBody),
    ))]
pub async fn hold(
    State(state): State<AppState>,
    access: BookingAccess,
    client: ClientAddress,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let key = RequestKey::of(
        &headers,
        &access.caller_key(),
        "POST",
        "/api/v1/bookings/hold",
        &body,
    )?;
    let (token, token_hash) = new_secret();
    let render = |c: &CreatedBooking| created(&c.booking, &token);
    let result = async {
        let req: HoldRequest = decode_json(body)?;
        let slot_id = match req.slot_id.as_deref() {
            None => return Err(ApiError::invalid_field("slotId", "is required")),
            Some(raw) => parse_id(raw).ok_or_else(|| ApiError::not_found("Slot"))?,
        };
        let mut draft = draft(
            DraftInput {
                site_id: req.site_id.as_deref(),
                product_id: req.product_id.as_deref(),
                variant_id: req.variant_id.as_deref(),
                party_size: req.party_size,
                addons: req.addons.as_deref().unwrap_or_default(),
                customer: req.customer.as_ref(),
                customer_required: false,
                participants: req.participants.as_deref().unwrap_or_default(),
                participant_types: req.participant_types.as_deref().unwrap_or_default(),
                customer_field: "customer",
            },
            state.now().date_naive(),
        )?;
        let caps = HoldCaps {
            per_customer: state.config.holds_per_customer,
            per_address: state.config.holds_per_address,
            address: client.0,
        };
        let mut caps = Some(caps);
        let actor = match &access.caller {
            super::Caller::Customer(c) => {
                let me = &c.customer;
                draft.customer.id = Some(me.id);
                if draft.customer.email.is_empty() {
                    draft.customer.email = me.email.clone();
                }
                if draft.customer.name.is_empty() {
                    draft.customer.name = me.display_name();
                }
                if draft.customer.phone.is_empty() {
                    draft.customer.phone = me.phone.clone().unwrap_or_default();
                }
                Actor::customer(me.id, Some(&me.display_name()))
            }
            super::Caller::Admin(a) => {
                // Staff book for others: no cap.
                caps = None;
                a.actor()
            }
            super::Caller::Anonymous => Actor {
                kind: ActorKind::Customer,
                id: None,
                name: Some("public booking".to_owned()),
            },
        };
        Ok(state
            .store
            .create_booking(
                access.tenant.id(),
                NewBooking {
                    hold_caps: caps,
                    ..draft.into_booking(SlotChoice::Id(slot_id), token_hash, BookingSource::Public)
                },
                &actor,
                state.now(),
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await?)
    }
    .await;
    idempotency::answer(&state, &access.tenant, key.as_ref(), result, |c| {
        (
            StatusCode::OK,
            axum::Json(BookingResponse::of(&c.booking, Some(token.clone()))),
        )
            .into_response()
    })
    .await
}
