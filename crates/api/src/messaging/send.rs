//! `POST /api/v1/admin/messaging/send` (spec Part B 4.8): staff send one message to a
//! customer, or to a booking's customer, from a template (`booking_reminder`,
//! `booking_update`, `special_offer`, `follow_up`, `issue_resolution`, or any key the
//! tenant has templates for), with their own words in `variables.message`.

use super::error::invalid;
use crate::error::{ApiResult, ShapeBBody};
use crate::extract::{Json, Staff, can};
use crate::openapi::schemas::TemplateTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use kairos_domain::FieldErrors;
use kairos_domain::messaging::{Channel, Priority};
use kairos_store::{SendRequest, SendTo};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

/// Most variables a message may carry.
const VARIABLES_MAX: usize = 50;

/// A message to send.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendInput {
    /// `customer` (a customer account) or `booking` (its customer, with the booking's
    /// variables).
    #[schema(example = "booking")]
    pub recipient_type: Option<String>,
    #[schema(value_type = Option<Uuid>)]
    pub recipient_id: Option<String>,
    /// Default `email`.
    #[schema(value_type = Option<TemplateTypeSchema>)]
    pub channel: Option<String>,
    /// The template key: booking_reminder, booking_update, special_offer (needs marketing
    /// opt-in), follow_up, issue_resolution, or a key of the tenant's own templates.
    #[schema(example = "booking_update", pattern = "^[a-z][a-z0-9_]{0,63}$")]
    pub template_id: Option<String>,
    /// Laid over the recipient's variables; `message` is the text of the staff templates.
    #[schema(value_type = Option<Object>)]
    pub variables: Option<Value>,
    /// low, normal (default) or high (sent first).
    #[schema(example = "normal")]
    pub priority: Option<String>,
    /// Record opens and clicks of an email (an open pixel and tracked links).
    pub track_delivery: Option<bool>,
}

crate::openapi::schemas::create_form!(
    /// A message to send.
    SendForm = SendInput,
    "SendMessage",
    ["recipientType", "recipientId", "templateId"]
);

/// The queued message.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SendResult {
    pub success: bool,
    pub message_id: Uuid,
    /// `queued`: delivery follows within seconds (see its status).
    pub status: String,
    #[schema(value_type = TemplateTypeSchema)]
    pub channel: String,
}

/// Send a message. Needs `admin:bookings:write`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/send", tag = "messaging", security(("bearer" = [])),
    request_body = SendForm,
    responses((status = 200, body = SendResult),
        (status = 400, description = "Shape B with errors[]: a missing or bad field, no template of templateId for the channel, variables the template cannot render", body = ShapeBBody),
        (status = 404, description = "The customer or booking does not exist (shape B)", body = ShapeBBody),
        (status = 409, description = "CONFLICT: the customer's choices forbid it (no SMS opt-in, no marketing opt-in, no address or phone) (shape B)", body = ShapeBBody)))]
pub async fn send_message(
    State(state): State<AppState>,
    auth: Staff<can::WriteBookings>,
    Json(input): Json<SendInput>,
) -> ApiResult<axum::Json<SendResult>> {
    let mut errors = FieldErrors::new();
    let id = match input.recipient_id.as_deref() {
        None => {
            errors.add("recipientId", "is required");
            None
        }
        Some(raw) => {
            let id = kairos_domain::ids::parse_id(raw);
            if id.is_none() {
                errors.add("recipientId", "must be a UUID");
            }
            id
        }
    };
    let to = match input.recipient_type.as_deref() {
        None => {
            errors.add("recipientType", "is required");
            None
        }
        Some("customer") => id.map(SendTo::Customer),
        Some("booking") => id.map(SendTo::Booking),
        Some(_) => {
            errors.add("recipientType", "must be customer or booking");
            None
        }
    };
    let channel = match input.channel.as_deref() {
        None => Channel::Email,
        Some(raw) => Channel::parse(raw).unwrap_or_else(|| {
            errors.add("channel", format!("must be {}", Channel::choices()));
            Channel::Email
        }),
    };
    let template_key = input.template_id.map(|k| k.trim().to_owned());
    match &template_key {
        None => errors.add("templateId", "is required"),
        Some(k) if !super::fields::valid_key(k) => {
            errors.add("templateId", super::fields::KEY_RULE)
        }
        _ => {}
    }
    match &input.variables {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) if map.len() <= VARIABLES_MAX => {}
        Some(Value::Object(_)) => {
            errors.add(
                "variables",
                format!("must have at most {VARIABLES_MAX} entries"),
            );
        }
        Some(_) => errors.add("variables", "must be an object"),
    }
    let priority = match input.priority.as_deref() {
        None => Priority::Normal,
        Some(raw) => Priority::parse(raw).unwrap_or_else(|| {
            errors.add("priority", format!("must be {}", Priority::choices()));
            Priority::Normal
        }),
    };
    errors.finish().map_err(invalid)?;
    let (Some(to), Some(template_key)) = (to, template_key) else {
        return Err(invalid(FieldErrors::new()));
    };
    let message_id = state
        .store
        .send_message(
            auth.tenant.id(),
            SendRequest {
                to,
                channel,
                template_key,
                variables: input.variables.filter(|v| !v.is_null()),
                priority,
                track_delivery: input.track_delivery.unwrap_or(false),
            },
            &auth.actor(),
            state.now(),
        )
        .await?;
    Ok(axum::Json(SendResult {
        success: true,
        message_id,
        status: "queued".to_owned(),
        channel: channel.as_str().to_owned(),
    }))
}
