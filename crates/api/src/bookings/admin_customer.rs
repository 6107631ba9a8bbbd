//! `PATCH /admin/bookings/{id}/customer`: corrections of the customer details, audited field by field.

use super::admin_detail::load;
use super::admin_status::UpdatedBy;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::{Email, validate_phone};
use kairos_store::{Booking, BookingCustomerPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `PATCH /admin/bookings/{id}/customer`: only the supplied fields change.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerPatchRequest {
    #[schema(min_length = 1, max_length = 200)]
    pub customer_name: Option<String>,
    #[schema(format = Email, max_length = 254)]
    pub customer_email: Option<String>,
    #[schema(pattern = "^(|\\+?[ ().-]*([0-9][ ().-]*){6,20})$")]
    pub customer_phone: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerPatchResponse {
    pub booking_id: String,
    pub customer: super::CustomerDto,
    pub updated_at: DateTime<Utc>,
    pub updated_by: UpdatedBy,
}

/// Correct a booking's customer details.
///
/// Each changed field is written to the audit log with its previous and new value, who
/// (user id and name) and when.
#[utoipa::path(patch, path = "/api/v1/admin/bookings/{id}/customer", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    request_body = CustomerPatchRequest,
    responses(
        (status = 200, body = CustomerPatchResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn update_customer(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(req): Json<CustomerPatchRequest>,
) -> ApiResult<axum::Json<CustomerPatchResponse>> {
    let mut errors = FieldErrors::new();
    let name = req
        .customer_name
        .as_deref()
        .map(str::trim)
        .map(str::to_owned);
    if let Some(n) = &name
        && (n.is_empty() || !super::short_text(n, 200))
    {
        errors.add(
            "customerName",
            "must be 1 to 200 characters without control characters",
        );
    }
    let email = match req.customer_email.as_deref().map(str::trim) {
        None => None,
        Some(raw) => match Email::parse(raw) {
            Ok(e) => Some(e.into_string()),
            Err(message) => {
                errors.add("customerEmail", message);
                None
            }
        },
    };
    let phone = req
        .customer_phone
        .as_deref()
        .map(str::trim)
        .map(str::to_owned);
    if let Some(p) = phone.as_deref().filter(|p| !p.is_empty())
        && let Err(message) = validate_phone(p)
    {
        errors.add("customerPhone", message);
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let view = load(&state, &auth, &id).await?;
    let b: Booking = state
        .store
        .update_booking_customer(
            auth.tenant.id(),
            view.booking.id,
            BookingCustomerPatch { name, email, phone },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(CustomerPatchResponse {
        booking_id: b.id.to_string(),
        customer: super::CustomerDto {
            name: b.customer.name.clone(),
            email: b.customer.email.clone(),
            phone: b.customer.phone.clone(),
        },
        updated_at: b.updated_at,
        updated_by: UpdatedBy {
            id: auth.user.id.to_string(),
            name: auth.user.display_name.clone(),
        },
    }))
}
