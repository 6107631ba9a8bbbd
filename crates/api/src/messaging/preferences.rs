//! `/api/v1/admin/customers/{customerId}/preferences` (spec Part B 4.8): which messages a
//! customer wants. Transactional email (confirmations, receipts, cancellations, waiver
//! reminders, gift cards) is always sent, so `bookingConfirmation` is kept but does not
//! stop it; SMS needs `smsOptIn` and marketing `marketingOptIn` whatever else is chosen.

use super::error::invalid;
use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Json, Staff, can, nullable, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_store::{CustomerPreferences, PreferencesPatch};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use uuid::Uuid;

/// Email choices.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmailChoices {
    /// Kept for the customer's record; confirmations are transactional and always sent.
    pub booking_confirmation: Option<bool>,
    /// The pre-arrival reminder (and the arrival message by email).
    pub reminders: Option<bool>,
    /// Offers; the same as `marketingOptIn`.
    pub marketing: Option<bool>,
    /// The follow-up and the feedback request after a visit.
    pub follow_up: Option<bool>,
}

/// SMS choices (only with `smsOptIn`).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsChoices {
    pub reminders: Option<bool>,
    pub arrival_confirmation: Option<bool>,
}

/// The choices to change; absent fields stay as they are.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesInput {
    pub email_notifications: Option<EmailChoices>,
    pub sms_notifications: Option<SmsChoices>,
    /// A language tag (`fi`, `en`, `pt-BR`) for the templates; null: the site's.
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, pattern = "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$")]
    pub language: Option<Option<String>>,
    /// An IANA time zone, kept for the customer's record (messages about a visit show the
    /// venue's local time).
    #[serde(default, deserialize_with = "nullable")]
    #[schema(value_type = Option<String>, example = "Europe/Helsinki")]
    pub timezone: Option<Option<String>>,
    /// SMS at all.
    pub sms_opt_in: Option<bool>,
    /// Offers at all; wins over `emailNotifications.marketing` when both are given.
    pub marketing_opt_in: Option<bool>,
}

/// A customer's message choices.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreferencesDto {
    pub customer_id: Uuid,
    pub email_notifications: EmailChoices,
    pub sms_notifications: SmsChoices,
    pub language: Option<String>,
    pub timezone: Option<String>,
    pub sms_opt_in: bool,
    pub marketing_opt_in: bool,
    pub updated_at: DateTime<Utc>,
}

fn dto(c: CustomerPreferences) -> PreferencesDto {
    let p = c.prefs;
    PreferencesDto {
        customer_id: c.customer_id,
        email_notifications: EmailChoices {
            booking_confirmation: Some(p.email_booking_confirmation),
            reminders: Some(p.email_reminders),
            marketing: Some(p.marketing_opt_in),
            follow_up: Some(p.email_follow_up),
        },
        sms_notifications: SmsChoices {
            reminders: Some(p.sms_reminders),
            arrival_confirmation: Some(p.sms_arrival_confirmation),
        },
        language: c.language,
        timezone: c.timezone,
        sms_opt_in: p.sms_opt_in,
        marketing_opt_in: p.marketing_opt_in,
        updated_at: c.updated_at,
    }
}

fn customer_id(raw: &str) -> ApiResult<Uuid> {
    path_id(raw, "Customer").map_err(ApiError::shape_b)
}

/// A customer's message choices. Needs `admin:customers:read`.
#[utoipa::path(get, path = "/api/v1/admin/customers/{customerId}/preferences", tag = "messaging", security(("bearer" = [])),
    params(("customerId" = Uuid, Path)),
    responses((status = 200, body = PreferencesDto),
        (status = 404, description = "Customer not found (shape B)", body = ShapeBBody)))]
pub async fn get_preferences(
    State(state): State<AppState>,
    auth: Staff<can::ReadCustomers>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PreferencesDto>> {
    let id = customer_id(&id)?;
    let prefs = state
        .store
        .customer_preferences(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Customer").shape_b())?;
    Ok(axum::Json(dto(prefs)))
}

/// Change a customer's message choices (on their request). Needs `admin:bookings:write`.
#[utoipa::path(patch, path = "/api/v1/admin/customers/{customerId}/preferences", tag = "messaging", security(("bearer" = [])),
    params(("customerId" = Uuid, Path)),
    request_body = PreferencesInput,
    responses((status = 200, body = PreferencesDto),
        (status = 400, description = "Shape B with errors[]: a bad language or time zone", body = ShapeBBody),
        (status = 404, description = "Customer not found (shape B)", body = ShapeBBody)))]
pub async fn update_preferences(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Path(id): Path<String>,
    Json(input): Json<PreferencesInput>,
) -> ApiResult<axum::Json<PreferencesDto>> {
    let id = customer_id(&id)?;
    let mut errors = FieldErrors::new();
    let language = match input.language {
        Some(Some(l)) if !super::fields::valid_language(&l) => {
            errors.add("language", "must be a language tag such as en, fi or pt-BR");
            None
        }
        other => other,
    };
    let timezone = match input.timezone {
        Some(Some(z)) if kairos_domain::tenancy::parse_time_zone(&z).is_err() => {
            errors.add(
                "timezone",
                "must be an IANA time zone such as Europe/Helsinki",
            );
            None
        }
        other => other,
    };
    errors.finish().map_err(invalid)?;
    let email = input.email_notifications.unwrap_or_default();
    let sms = input.sms_notifications.unwrap_or_default();
    let prefs = state
        .store
        .update_customer_preferences(
            auth.tenant.id(),
            id,
            PreferencesPatch {
                sms_opt_in: input.sms_opt_in,
                marketing_opt_in: input.marketing_opt_in.or(email.marketing),
                email_booking_confirmation: email.booking_confirmation,
                email_reminders: email.reminders,
                email_follow_up: email.follow_up,
                sms_reminders: sms.reminders,
                sms_arrival_confirmation: sms.arrival_confirmation,
                language,
                timezone,
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(dto(prefs)))
}
