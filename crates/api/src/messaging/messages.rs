//! The message log: what was sent to whom and how delivery went (spec Part B 4.8
//! `GET /admin/messaging/{messageId}/status`), and the recent messages staff can read
//! with their bodies, so a demo shows what a customer would get.

use crate::error::{ApiError, ApiResult, ShapeBBody};
use crate::extract::{Query, Staff, can, optional_choice, page_param, path_id, uuid_param};
use crate::openapi::schemas::TemplateTypeSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::messaging::{Channel, MessageStatus};
use kairos_store::{Message, MessageFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A message as sent (or to be sent).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageDto {
    pub id: Uuid,
    #[schema(value_type = TemplateTypeSchema)]
    pub channel: String,
    /// The template it was made from; null for a message written by hand.
    pub template_key: Option<String>,
    /// automation, booking, send or bulk.
    pub source: String,
    /// The email address or phone number.
    pub recipient: String,
    pub recipient_name: String,
    pub customer_id: Option<Uuid>,
    pub booking_id: Option<Uuid>,
    /// The bulk send it belongs to.
    pub bulk_id: Option<Uuid>,
    pub subject: String,
    /// HTML for email, text for SMS.
    pub body: String,
    /// queued, delivered, failed (in the dead-letter queue) or canceled.
    #[schema(example = "delivered")]
    pub status: String,
    pub attempts: i32,
    pub last_error: Option<String>,
    pub send_after: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

fn message_dto(m: Message) -> MessageDto {
    MessageDto {
        id: m.id,
        channel: m.channel.as_str().to_owned(),
        template_key: m.template_key,
        source: m.source,
        recipient: m.recipient,
        recipient_name: m.recipient_name,
        customer_id: m.customer_id,
        booking_id: m.booking_id,
        bulk_id: m.bulk_id,
        subject: m.subject,
        body: m.body,
        status: m.status.as_str().to_owned(),
        attempts: m.attempts,
        last_error: m.last_error,
        send_after: m.send_after,
        sent_at: m.sent_at,
        delivered_at: m.delivered_at,
        created_at: m.created_at,
    }
}

/// Query of `GET /admin/messaging/messages`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct MessagesQuery {
    #[param(value_type = Option<Uuid>)]
    pub booking_id: Option<String>,
    #[param(value_type = Option<Uuid>)]
    pub customer_id: Option<String>,
    #[param(value_type = Option<TemplateTypeSchema>, inline)]
    pub channel: Option<String>,
    /// queued, delivered, failed or canceled.
    #[param(max_length = 20)]
    pub status: Option<String>,
    /// The messages of one bulk send.
    #[param(value_type = Option<Uuid>)]
    pub bulk_id: Option<String>,
    /// 1 to 500, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 500)]
    pub limit: Option<String>,
}

/// `{messages}`, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageList {
    pub messages: Vec<MessageDto>,
}

/// Recent messages, newest first, with their bodies as sent. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/messages", tag = "messaging", security(("bearer" = [])),
    params(MessagesQuery),
    responses((status = 200, body = MessageList),
        (status = 400, description = "Shape B with errors[]", body = ShapeBBody)))]
pub async fn list_messages(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<MessagesQuery>,
) -> ApiResult<axum::Json<MessageList>> {
    let mut errors = FieldErrors::new();
    let booking_id = uuid_param(&mut errors, "bookingId", q.booking_id.as_deref());
    let customer_id = uuid_param(&mut errors, "customerId", q.customer_id.as_deref());
    let bulk_id = uuid_param(&mut errors, "bulkId", q.bulk_id.as_deref());
    let channel = optional_choice(
        &mut errors,
        "channel",
        q.channel.as_deref(),
        Channel::parse,
        Channel::choices,
    );
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        MessageStatus::parse,
        MessageStatus::choices,
    );
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 50, 500);
    errors
        .finish()
        .map_err(|e| ApiError::validation(e).shape_b())?;
    let messages = state
        .store
        .list_messages(
            auth.tenant.id(),
            &MessageFilter {
                booking_id,
                customer_id,
                channel,
                status,
                bulk_id,
                limit,
            },
        )
        .await?;
    Ok(axum::Json(MessageList {
        messages: messages.into_iter().map(message_dto).collect(),
    }))
}

async fn load(state: &AppState, auth: &Staff<can::ReadBookings>, raw: &str) -> ApiResult<Message> {
    let id = path_id(raw, "Message").map_err(ApiError::shape_b)?;
    state
        .store
        .get_message(auth.tenant.id(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Message").shape_b())
}

/// Delivery status of a message (spec Part B 4.8).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageStatusDto {
    pub message_id: Uuid,
    /// queued, delivered, failed or canceled.
    pub status: String,
    #[schema(value_type = TemplateTypeSchema)]
    pub channel: String,
    /// When the mail server or SMS provider accepted it.
    pub sent_at: Option<DateTime<Utc>>,
    /// When delivery was confirmed: Kairos counts a message delivered when the next hop
    /// accepts it, so this equals `sentAt`.
    pub delivered_at: Option<DateTime<Utc>>,
    /// First open of a tracked email (its pixel loaded).
    pub opened_at: Option<DateTime<Utc>>,
    /// First click on a link of a tracked email.
    pub clicked_at: Option<DateTime<Utc>>,
}

/// Delivery status of a message. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/messaging/{messageId}/status", tag = "messaging", security(("bearer" = [])),
    params(("messageId" = Uuid, Path)),
    responses((status = 200, body = MessageStatusDto),
        (status = 404, description = "Message not found (shape B)", body = ShapeBBody)))]
pub async fn message_status(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<MessageStatusDto>> {
    let m = load(&state, &auth, &id).await?;
    Ok(axum::Json(MessageStatusDto {
        message_id: m.id,
        status: m.status.as_str().to_owned(),
        channel: m.channel.as_str().to_owned(),
        sent_at: m.sent_at,
        delivered_at: m.delivered_at,
        opened_at: m.opened_at,
        clicked_at: m.clicked_at,
    }))
}
