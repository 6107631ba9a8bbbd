//! The staff endpoints of booking groups (spec Part B 4.3; permission `manage_bookings`).

use super::dto::{BookingGroupDto, GroupPricingDto};
use super::group_not_found;
use super::public::{customer_fields, group_kind, party};
use crate::bookings::{clean, free_text};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Query, Staff, can, optional_choice, page_param, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use kairos_domain::FieldErrors;
use kairos_domain::booking_groups::GroupStatus;
use kairos_domain::bookings::BookingSource;
use kairos_domain::customers::Email;
use kairos_domain::ids::new_secret;
use kairos_domain::ids::parse_id;
use kairos_domain::new_id;
use kairos_store::{GroupCustomer, GroupFilter, GroupItem, GroupPatch, NewGroup};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /admin/booking-groups`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct GroupsQuery {
    /// DRAFT, HOLD, CONFIRMED, COMPLETED, PARTIALLY_CANCELED, CANCELED or EXPIRED.
    #[param(max_length = 20)]
    pub status: Option<String>,
    /// Exact, case-insensitive.
    #[param(max_length = 254)]
    pub customer_email: Option<String>,
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub per_page: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingGroupList {
    pub groups: Vec<BookingGroupDto>,
    pub total: i64,
    pub page: u32,
    pub per_page: u32,
}

/// Booking groups, newest first, with the filters status (derived from the bookings)
/// and customerEmail. Needs `manage_bookings`.
#[utoipa::path(get, path = "/api/v1/admin/booking-groups", tag = "booking-groups", security(("bearer" = [])),
    params(GroupsQuery),
    responses(
        (status = 200, body = BookingGroupList),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
    ))]
pub async fn list_groups(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Query(q): Query<GroupsQuery>,
) -> ApiResult<axum::Json<BookingGroupList>> {
    let now = state.now();
    let mut errors = FieldErrors::new();
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        GroupStatus::parse,
        GroupStatus::choices,
    );
    let customer_email = clean(q.customer_email.as_deref()).and_then(|e| {
        errors
            .check("customerEmail", Email::parse(&e))
            .map(Email::into_string)
    });
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let per_page = page_param(&mut errors, "perPage", q.per_page.as_deref(), 50, 100);
    errors.finish().map_err(ApiError::validation)?;
    let (groups, total) = state
        .store
        .list_booking_groups(
            auth.tenant.id(),
            &GroupFilter {
                status,
                customer_email,
                limit: i64::from(per_page),
                offset: i64::from(page - 1) * i64::from(per_page),
            },
            now,
        )
        .await?;
    Ok(axum::Json(BookingGroupList {
        groups: groups
            .iter()
            .map(|g| BookingGroupDto::of(g, now, true))
            .collect(),
        total,
        page,
        per_page,
    }))
}

/// `POST /admin/booking-groups`: a DRAFT group.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NewGroupBody {
    /// PACKAGE or CUSTOM (default CUSTOM).
    pub group_type: Option<String>,
    #[schema(value_type = Option<uuid::Uuid>)]
    pub package_id: Option<String>,
    /// 1 to 500 (required): the party each activity is added for unless it says otherwise.
    #[schema(minimum = 1, maximum = 500)]
    pub party_size: Option<i64>,
    #[schema(max_length = 200)]
    pub customer_name: Option<String>,
    #[schema(format = Email, max_length = 254)]
    pub customer_email: Option<String>,
    pub customer_phone: Option<String>,
    /// At most 5000 characters; staff only.
    pub internal_notes: Option<String>,
}

fn notes(errors: &mut FieldErrors, raw: Option<&str>) -> Option<String> {
    let text = clean(raw);
    if text.as_deref().is_some_and(|t| !free_text(t, 5000)) {
        errors.add(
            "internalNotes",
            "must be at most 5000 characters without control characters",
        );
    }
    text
}

/// Create a DRAFT group: plan its activities, then hold them together. Needs
/// `manage_bookings`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups", tag = "booking-groups", security(("bearer" = [])),
    request_body = NewGroupBody,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: an unknown package", body = ErrorBody),
    ))]
pub async fn create_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Json(body): Json<NewGroupBody>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let mut errors = FieldErrors::new();
    let (group_type, package) = group_kind(
        &mut errors,
        body.group_type.as_deref(),
        false,
        body.package_id.as_deref(),
    );
    let party_size = party(&mut errors, body.party_size, true);
    let (name, email, phone) = customer_fields(
        &mut errors,
        body.customer_name.as_deref(),
        body.customer_email.as_deref(),
        body.customer_phone.as_deref(),
    );
    let internal_notes = notes(&mut errors, body.internal_notes.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    // Checked again, in the hold's transaction, when the group is held.
    let package_id = match package.as_deref() {
        None => None,
        Some(raw) => {
            let id = parse_id(raw).ok_or_else(|| ApiError::not_found("Package"))?;
            state
                .store
                .package(auth.tenant.id(), id)
                .await?
                .filter(|p| p.is_active)
                .ok_or_else(|| ApiError::not_found("Package"))?;
            Some(id)
        }
    };
    let group = state
        .store
        .create_booking_group(
            auth.tenant.id(),
            NewGroup {
                group_type,
                package_id,
                party_size: party_size.unwrap_or(1),
                customer: GroupCustomer {
                    id: None,
                    name: name.unwrap_or_default(),
                    email: email.unwrap_or_default(),
                    phone: phone.unwrap_or_default(),
                },
                internal_notes,
                // Staff reach the group with their own token.
                token_hash: new_secret().1,
                source: BookingSource::Admin,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// A group with its plan, bookings, price and internal notes. Needs `manage_bookings`.
#[utoipa::path(get, path = "/api/v1/admin/booking-groups/{id}", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn admin_get_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let id = path_id(&id, "Booking group")?;
    let group = state
        .store
        .booking_group(auth.tenant.id(), id)
        .await?
        .ok_or_else(group_not_found)?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// `PATCH /admin/booking-groups/{id}`: every field optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GroupPatchBody {
    #[schema(min_length = 1, max_length = 200)]
    pub customer_name: Option<String>,
    #[schema(format = Email, max_length = 254)]
    pub customer_email: Option<String>,
    /// An empty string clears it.
    pub customer_phone: Option<String>,
    /// At most 5000 characters; an empty string clears them.
    pub internal_notes: Option<String>,
}

/// Change a group's customer details and internal notes (any status; its bookings keep
/// the customer details they were made with). Needs `manage_bookings`.
#[utoipa::path(patch, path = "/api/v1/admin/booking-groups/{id}", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = GroupPatchBody,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
    ))]
pub async fn patch_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
    Json(body): Json<GroupPatchBody>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let id = path_id(&id, "Booking group")?;
    let mut errors = FieldErrors::new();
    let (name, email, phone) = customer_fields(
        &mut errors,
        body.customer_name.as_deref(),
        body.customer_email.as_deref(),
        body.customer_phone.as_deref(),
    );
    if body.customer_name.is_some() && name.is_none() && errors.is_empty() {
        errors.add("customerName", "must not be empty");
    }
    if body.customer_email.is_some() && email.is_none() && errors.is_empty() {
        errors.add("customerEmail", "must not be empty");
    }
    let internal_notes = notes(&mut errors, body.internal_notes.as_deref());
    errors.finish().map_err(ApiError::validation)?;
    let patch = GroupPatch {
        customer_name: name,
        customer_email: email,
        customer_phone: body
            .customer_phone
            .as_ref()
            .map(|_| phone.unwrap_or_default()),
        internal_notes: body.internal_notes.as_ref().map(|_| internal_notes),
    };
    let group = state
        .store
        .patch_booking_group(auth.tenant.id(), id, patch, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// Delete a DRAFT group (one that was never held). Needs `manage_bookings`.
#[utoipa::path(delete, path = "/api/v1/admin/booking-groups/{id}", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the group is not DRAFT", body = ErrorBody),
    ))]
pub async fn delete_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    let id = path_id(&id, "Booking group")?;
    state
        .store
        .delete_booking_group(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /admin/booking-groups/{id}/bookings`: one planned activity.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddBookingBody {
    #[schema(value_type = uuid::Uuid)]
    pub product_id: Option<String>,
    #[schema(value_type = uuid::Uuid)]
    pub site_id: Option<String>,
    #[schema(value_type = uuid::Uuid)]
    pub slot_id: Option<String>,
    /// 1 to 500; default the group's.
    #[schema(minimum = 1, maximum = 500)]
    pub party_size: Option<i64>,
}

/// Add an activity to a DRAFT group's plan: the product must belong to the site, the slot
/// to the product, and the party fit the product. Nothing is held until the group is.
/// Needs `manage_bookings`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/bookings", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    request_body = AddBookingBody,
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR (a group plans at most 20 activities)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the group, the product at this site, or the product's slot", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the group is not DRAFT; SLOT_UNAVAILABLE: the slot has started", body = ErrorBody),
    ))]
pub async fn add_booking(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
    Json(body): Json<AddBookingBody>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let id = path_id(&id, "Booking group")?;
    let mut errors = FieldErrors::new();
    for (field, value) in [
        ("productId", &body.product_id),
        ("siteId", &body.site_id),
        ("slotId", &body.slot_id),
    ] {
        if clean(value.as_deref()).is_none() {
            errors.add(field, "is required");
        }
    }
    let party_size = party(&mut errors, body.party_size, false);
    errors.finish().map_err(ApiError::validation)?;
    let id_of = |raw: &Option<String>, what: &str| {
        raw.as_deref()
            .and_then(kairos_domain::ids::parse_id)
            .ok_or_else(|| ApiError::not_found(what))
    };
    let item = GroupItem {
        id: new_id(),
        product_id: id_of(&body.product_id, "Product at this site")?,
        site_id: id_of(&body.site_id, "Product at this site")?,
        slot_id: id_of(&body.slot_id, "Slot")?,
        // 0: the group's party, read with the group in the write.
        party_size: party_size.unwrap_or(0),
    };
    let group = state
        .store
        .add_booking_group_item(auth.tenant.id(), id, item, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// Remove an activity from a DRAFT group's plan. Needs `manage_bookings`.
#[utoipa::path(delete, path = "/api/v1/admin/booking-groups/{id}/bookings/{bookingId}", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path), ("bookingId" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such group; BOOKING_NOT_FOUND: no such activity in it", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the group is not DRAFT", body = ErrorBody),
    ))]
pub async fn remove_booking(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path((id, booking_id)): Path<(String, String)>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let id = path_id(&id, "Booking group")?;
    let booking_id =
        kairos_domain::ids::parse_id(&booking_id).ok_or_else(crate::bookings::booking_not_found)?;
    let group = state
        .store
        .remove_booking_group_item(auth.tenant.id(), id, booking_id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// Hold a DRAFT group's activities: every booking in one transaction, all expiring at
/// the same time, or nothing held when any slot lacks capacity (the answer names the
/// activity: `details.activityIndex`, `details.slotId`). Needs `manage_bookings`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/hold", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = BookingGroupDto),
        (status = 400, description = "VALIDATION_ERROR: no activities planned, or an activity's party no longer fits (activities[i].partySize)", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the group, or an activity's product, site or slot", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: the group is not DRAFT; SLOT_UNAVAILABLE: an activity's slot is full or started", body = ErrorBody),
    ))]
pub async fn admin_hold_group(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingGroupDto>> {
    let id = path_id(&id, "Booking group")?;
    let group = state
        .store
        .hold_booking_group(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(BookingGroupDto::of(&group, state.now(), true)))
}

/// The group's price with each booking's part: its bookings' prices once held, else its
/// plan priced from the catalog as it is now. The allocations sum exactly to the grand
/// total in minor units. Needs `manage_bookings`.
#[utoipa::path(post, path = "/api/v1/admin/booking-groups/{id}/calculate-pricing", tag = "booking-groups", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path)),
    responses(
        (status = 200, body = GroupPricingDto),
        (status = 400, description = "VALIDATION_ERROR: a planned activity's party no longer fits", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: the group, or a planned activity's product, site or slot", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: a planned activity's slot has started", body = ErrorBody),
    ))]
pub async fn calculate_pricing(
    State(state): State<AppState>,
    auth: Staff<can::ManageBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<GroupPricingDto>> {
    let id = path_id(&id, "Booking group")?;
    let pricing = state
        .store
        .price_booking_group(auth.tenant.id(), id, state.now())
        .await?;
    Ok(axum::Json(GroupPricingDto::of(&pricing)))
}
