//! The public group endpoints (tenant header; the group's token, its customer's token, or
//! staff with `manage_bookings`): hold several activities at once, read the group.

use super::dto::BookingGroupDto;
use super::{activity_error, group_not_found};
use crate::bookings::{BookingAccess, Caller, clean, short_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{ClientAddress, Json, can, choose, decode_json};
use crate::idempotency::{self, RequestKey};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_domain::auth::ActorKind;
use kairos_domain::booking_groups::{GroupType, MAX_ACTIVITIES, MAX_PARTY};
use kairos_domain::bookings::BookingSource;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::ids::{new_secret, parse_id, secret_hash};
use kairos_domain::new_id;
use kairos_store::{
    Actor, BookingGroup, GroupCustomer, GroupError, GroupItem, HoldCaps, NewGroup, NewGroupHold,
};
use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

/// One activity of a group hold.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlotSelection {
    #[schema(value_type = uuid::Uuid)]
    pub product_id: Option<String>,
    #[schema(value_type = uuid::Uuid)]
    pub site_id: Option<String>,
    #[schema(value_type = uuid::Uuid)]
    pub slot_id: Option<String>,
}

/// `POST /booking-groups/hold` (spec Part B 2.5).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupHoldRequest {
    /// The package (groupType PACKAGE); null for CUSTOM.
    #[schema(value_type = Option<uuid::Uuid>)]
    pub package_id: Option<String>,
    /// PACKAGE or CUSTOM (required).
    #[schema(example = "CUSTOM")]
    pub group_type: Option<String>,
    /// 1 to 500 (required): everyone takes part in every activity.
    #[schema(minimum = 1, maximum = 500)]
    pub party_size: Option<i64>,
    /// Required, at most 200 characters.
    #[schema(min_length = 1, max_length = 200)]
    pub customer_name: Option<String>,
    /// Required.
    #[schema(format = Email, max_length = 254)]
    pub customer_email: Option<String>,
    #[schema(pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$")]
    pub customer_phone: Option<String>,
    /// 1 to 20 activities.
    #[schema(min_items = 1, max_items = 20)]
    pub slot_selections: Option<Vec<SlotSelection>>,
}

/// The customer fields of a group (hold, admin create and patch): name at most 200
/// characters, a valid email, a phone number.
pub(super) fn customer_fields(
    errors: &mut FieldErrors,
    name: Option<&str>,
    email: Option<&str>,
    phone: Option<&str>,
) -> (Option<String>, Option<String>, Option<String>) {
    let name = clean(name);
    if name.as_deref().is_some_and(|n| !short_text(n, 200)) {
        errors.add(
            "customerName",
            "must be at most 200 characters without control characters",
        );
    }
    let email = clean(email).and_then(|e| match Email::parse(&e) {
        Ok(e) => Some(e.into_string()),
        Err(message) => {
            errors.add("customerEmail", message);
            None
        }
    });
    let phone = clean(phone).and_then(|p| match validate_phone(&p) {
        Ok(()) => Some(p),
        Err(message) => {
            errors.add("customerPhone", message);
            None
        }
    });
    (name, email, phone)
}

/// The group type and package: a PACKAGE names its package; a CUSTOM group has none.
pub(super) fn group_kind(
    errors: &mut FieldErrors,
    raw_type: Option<&str>,
    required: bool,
    package: Option<&str>,
) -> (GroupType, Option<String>) {
    let group_type = choose(
        errors,
        "groupType",
        raw_type,
        GroupType::Custom,
        required,
        GroupType::parse,
        GroupType::choices(),
    );
    let package = clean(package);
    match (group_type, &package) {
        (GroupType::Package, None) => errors.add("packageId", "is required for groupType PACKAGE"),
        (GroupType::Custom, Some(_)) => {
            errors.add("packageId", "must be null for groupType CUSTOM")
        }
        _ => {}
    }
    (group_type, package)
}

/// A party size of 1 to 500.
pub(super) fn party(errors: &mut FieldErrors, raw: Option<i64>, required: bool) -> Option<i32> {
    match raw {
        None if required => {
            errors.add("partySize", "is required");
            None
        }
        None => None,
        Some(n) if !(1..=i64::from(MAX_PARTY)).contains(&n) => {
            errors.add("partySize", format!("must be between 1 and {MAX_PARTY}"));
            None
        }
        Some(n) => i32::try_from(n).ok(),
    }
}

/// Hold several activities together.
///
/// Holds every selected slot for `partySize` people in one transaction, all expiring at
/// the same `holdExpiresAt`; if any activity cannot be held (full, started, unknown) nothing
/// is held and the answer names it (`details.activityIndex`, `details.slotId`). The answer
/// carries `groupToken`, returned once. A group counts as one hold against the hold caps.
/// With an `Idempotency-Key`, a repeat answers the first response.
#[utoipa::path(post, path = "/api/v1/booking-groups/hold", tag = "booking-groups", security((), ("bearer" = [])),
    params(
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one effect per key and caller for 24 h; use an unguessable value such as a UUID"),
    ),
    request_body = GroupHoldRequest,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR naming every bad field (an activity's as slotSelections[i].field)", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: staff without manage_bookings; CUSTOMER_BLOCKED", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: an unknown package, or an activity's product, site or slot (details.activityIndex, details.slotId)", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: an activity's slot is full, started or closed (details.activityIndex, details.slotId); HOLD_LIMIT_REACHED; IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED with another body", body = ErrorBody),
    ))]
pub async fn hold_group(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    client: ClientAddress,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let key = RequestKey::of(
        &headers,
        &access.caller_key(),
        "POST",
        "/api/v1/booking-groups/hold",
        &body,
    )?;
    let (token, token_hash) = new_secret();
    let now = state.now();
    let render = |g: &BookingGroup| {
        let mut dto = BookingGroupDto::of(g, now, false);
        dto.group_token = Some(token.clone());
        (200, serde_json::to_string(&dto).unwrap_or_default())
    };
    let result = async {
        let req: GroupHoldRequest = decode_json(body)?;
        let mut errors = FieldErrors::new();
        let (group_type, package) = group_kind(
            &mut errors,
            req.group_type.as_deref(),
            true,
            req.package_id.as_deref(),
        );
        let party_size = party(&mut errors, req.party_size, true);
        let (name, email, phone) = customer_fields(
            &mut errors,
            req.customer_name.as_deref(),
            req.customer_email.as_deref(),
            req.customer_phone.as_deref(),
        );
        let selections = req.slot_selections.unwrap_or_default();
        if selections.is_empty() {
            errors.add("slotSelections", "is required: one activity or more");
        } else if selections.len() > MAX_ACTIVITIES {
            errors.add(
                "slotSelections",
                format!("must list at most {MAX_ACTIVITIES} activities"),
            );
        }
        for (i, s) in selections.iter().enumerate() {
            for (field, value) in [
                ("productId", &s.product_id),
                ("siteId", &s.site_id),
                ("slotId", &s.slot_id),
            ] {
                if clean(value.as_deref()).is_none() {
                    errors.add(format!("slotSelections[{i}].{field}"), "is required");
                }
            }
        }
        let mut caps = Some(HoldCaps {
            per_customer: state.config.holds_per_customer,
            per_address: state.config.holds_per_address,
            address: client.0.clone(),
        });
        let (customer_id, actor) = match &access.caller {
            Caller::Customer(c) => (
                Some(c.customer.id),
                Actor::customer(c.customer.id, Some(&c.customer.display_name())),
            ),
            Caller::Admin(a) => {
                caps = None;
                (None, a.actor())
            }
            Caller::Anonymous => (
                None,
                Actor {
                    kind: ActorKind::Customer,
                    id: None,
                    name: Some("public booking".to_owned()),
                },
            ),
        };
        let (name, email) = match (&access.caller, name, email) {
            (Caller::Customer(c), name, email) => (
                name.or_else(|| Some(c.customer.display_name())),
                email.or_else(|| Some(c.customer.email.clone())),
            ),
            (_, name, email) => (name, email),
        };
        if name.is_none() && errors.as_slice().iter().all(|e| e.field != "customerName") {
            errors.add("customerName", "is required");
        }
        if email.is_none() && errors.as_slice().iter().all(|e| e.field != "customerEmail") {
            errors.add("customerEmail", "is required");
        }
        errors.finish().map_err(ApiError::validation)?;
        // A package is checked (offered, its products each once) in the hold's transaction.
        let package_id = match package.as_deref() {
            None => None,
            Some(raw) => Some(parse_id(raw).ok_or_else(|| ApiError::not_found("Package"))?),
        };
        let mut items = Vec::with_capacity(selections.len());
        for (i, s) in selections.iter().enumerate() {
            let id = |raw: &Option<String>, what: &str| {
                raw.as_deref().and_then(parse_id).ok_or_else(|| {
                    ApiError::not_found(what).with_details(serde_json::json!({"activityIndex": i}))
                })
            };
            items.push(GroupItem {
                id: new_id(),
                product_id: id(&s.product_id, "Product")?,
                site_id: id(&s.site_id, "Product at this site")?,
                slot_id: id(&s.slot_id, "Slot")?,
                party_size: party_size.unwrap_or(1),
            });
        }
        let hold = NewGroupHold {
            group: NewGroup {
                group_type,
                package_id,
                party_size: party_size.unwrap_or(1),
                customer: GroupCustomer {
                    id: customer_id,
                    name: name.unwrap_or_default(),
                    email: email.unwrap_or_default(),
                    phone: phone.unwrap_or_default(),
                },
                internal_notes: None,
                token_hash: token_hash.clone(),
                source: BookingSource::Public,
            },
            items,
            caps,
        };
        state
            .store
            .hold_new_booking_group(
                access.tenant.id(),
                hold,
                &actor,
                now,
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await
            .map_err(|e| match e {
                GroupError::Activity {
                    index,
                    slot_id,
                    error,
                } => activity_error("slotSelections", index, slot_id, *error),
                other => other.into(),
            })
    }
    .await;
    idempotency::answer(&state, &access.tenant, key.as_ref(), result, |g| {
        let mut dto = BookingGroupDto::of(&g, now, false);
        dto.group_token = Some(token.clone());
        (StatusCode::OK, axum::Json(dto)).into_response()
    })
    .await
}

/// Whether the caller may see and act on `group`: its token holder, its customer, or
/// staff (whose permission the extractor checked).
pub(super) fn may_access<S>(access: &BookingAccess<S>, group: &BookingGroup) -> bool {
    access
        .booking_token
        .as_deref()
        .is_some_and(|t| secret_hash(t) == group.token_hash)
        || match &access.caller {
            Caller::Admin(_) => true,
            Caller::Customer(c) => group.customer.id == Some(c.customer.id),
            Caller::Anonymous => false,
        }
}

/// Who acts on `group`: the staff member, the customer, or the holder of its token.
pub(super) fn group_actor<S>(access: &BookingAccess<S>, group: &BookingGroup) -> Actor {
    match &access.caller {
        Caller::Admin(a) => a.actor(),
        Caller::Customer(c) => Actor::customer(c.customer.id, Some(&c.customer.display_name())),
        Caller::Anonymous => Actor {
            kind: kairos_domain::auth::ActorKind::Customer,
            id: group.customer.id.map(|id| id.to_string()),
            name: Some(format!("group token of {}", group.reference)),
        },
    }
}

/// The group `id` as the caller may see it; 404 otherwise.
pub(super) async fn accessible_group<S>(
    state: &AppState,
    access: &BookingAccess<S>,
    id: &str,
) -> ApiResult<BookingGroup> {
    let id = parse_id(id).ok_or_else(group_not_found)?;
    state
        .store
        .booking_group(access.tenant.id(), id)
        .await?
        .filter(|g| may_access(access, g))
        .ok_or_else(group_not_found)
}

/// A group with its bookings and price.
///
/// For the group's token (`x-booking-token`), its customer, or staff with
/// `manage_bookings`; anyone else gets 404.
#[utoipa::path(get, path = "/api/v1/booking-groups/{id}", tag = "booking-groups", security((), ("bearer" = [])),
    params(("id" = uuid::Uuid, Path), ("x-booking-token" = Option<String>, Header, description = "The group's token from the hold")),
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: staff without manage_bookings", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group, or not the caller's", body = ErrorBody),
    ))]
pub async fn get_group(
    State(state): State<AppState>,
    access: BookingAccess<can::ManageBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let group = accessible_group(&state, &access, &id).await?;
    Ok(axum::Json(BookingGroupDto::of(
        &group,
        state.now(),
        access.is_staff(),
    )))
}
