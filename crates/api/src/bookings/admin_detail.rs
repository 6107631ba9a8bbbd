//! `GET /admin/bookings/{id}`: the full record of a booking.

use super::{PriceDto, booking_not_found, major};
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Staff, can};
use crate::openapi::schemas::{
    ActorKindSchema, BookingSourceSchema, BookingStatusSchema, PaymentMethodSchema,
    PaymentStatusSchema,
};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::ids::parse_id;
use kairos_store::BookingView;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

pub(super) async fn load(state: &AppState, auth: &AdminAuth, raw: &str) -> ApiResult<BookingView> {
    let id = parse_id(raw).ok_or_else(booking_not_found)?;
    state
        .store
        .get_booking_view(auth.tenant.id(), id)
        .await?
        .ok_or_else(booking_not_found)
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Named {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetailCustomer {
    /// The customer account the booking belongs to, if any.
    pub id: Option<String>,
    pub name: String,
    pub email: String,
    pub phone: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DetailSlot {
    pub slot_id: String,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
}

/// A payment; amounts in integer minor units (spec Part A 1.1).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaymentDto {
    pub payment_id: String,
    pub amount: i64,
    pub currency: String,
    /// A confirmation's method (cardpay, bankpay, comp, invoice) or what staff recorded
    /// with mark-paid (cash, card_terminal, manual, …).
    pub method: String,
    pub method_reference: Option<String>,
    #[schema(value_type = PaymentStatusSchema)]
    pub status: String,
    /// Minor units refunded so far (card and bank payments).
    pub refunded_amount: i64,
    pub created_at: DateTime<Utc>,
}

/// One change of status, from the audit log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusChange {
    /// Null for the booking's creation.
    #[schema(value_type = Option<BookingStatusSchema>)]
    pub from: Option<String>,
    #[schema(value_type = BookingStatusSchema)]
    pub to: String,
    pub trigger: Option<String>,
    pub reason: Option<String>,
    #[schema(value_type = ActorKindSchema)]
    pub actor_type: String,
    pub actor_id: Option<String>,
    pub actor_name: Option<String>,
    pub at: DateTime<Utc>,
}

/// One entry of the booking's audit log: what was done, by whom, when.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditItem {
    /// `booking.created`, `booking.status_changed`, `booking.customer_updated`,
    /// `booking.moved`, `booking.rescheduled`, `booking.move_failed`,
    /// `booking.party_reduced`, `booking.payment_recorded`, `booking.promotion_applied`,
    /// `booking.promotion_removed`, `booking.voucher_applied`, `booking.note_added`,
    /// `booking.note_updated`, `booking.note_deleted`, `booking.resource_addons_changed`.
    #[schema(example = "booking.customer_updated")]
    pub action: String,
    /// What changed: `{field: {from, to}}` for each edited field (for
    /// `booking.customer_updated`: customerName, customerEmail, customerPhone), and the
    /// action's own details for the others.
    #[schema(value_type = Object, example = json!({"customerEmail": {"from": "ada@example.com", "to": "ada@lovelace.dev"}}))]
    pub changes: Value,
    #[schema(value_type = ActorKindSchema)]
    pub actor_type: String,
    pub actor_id: Option<String>,
    pub actor_name: Option<String>,
    pub at: DateTime<Utc>,
}

/// The full booking record.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BookingDetail {
    pub booking_id: String,
    pub booking_reference: String,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    #[schema(value_type = BookingSourceSchema)]
    pub source: String,
    pub customer: DetailCustomer,
    pub slot: DetailSlot,
    pub site: Named,
    pub product: Named,
    pub variant_id: Option<String>,
    pub party_size: i32,
    pub participants: Vec<super::participants::ParticipantDto>,
    pub price: PriceDto,
    pub pricing_hash: String,
    pub grand_total: f64,
    pub paid_amount: f64,
    pub balance_due: f64,
    /// The method the booking was confirmed with.
    #[schema(value_type = Option<PaymentMethodSchema>)]
    pub payment_method: Option<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub admin_notes: Option<String>,
    pub send_confirmation_email: bool,
    pub payments: Vec<PaymentDto>,
    pub notes: Vec<super::notes::NoteDto>,
    /// Issues logged against the booking, newest first.
    pub issues: Vec<crate::issues::IssueSummary>,
    pub status_history: Vec<StatusChange>,
    /// Everything done to the booking, oldest first (the status changes above among
    /// them): who (user id and name), when, and each changed field's previous and new
    /// value.
    pub audit_log: Vec<AuditItem>,
    pub created_by: Option<String>,
    /// Why staff created it: phone_booking, walk_in, comp, correction or other; null for
    /// a customer's own booking or when not given.
    #[schema(example = "phone_booking")]
    pub created_reason: Option<String>,
    /// When staff accepted the terms on the customer's behalf; null if they did not.
    pub terms_accepted_at: Option<DateTime<Utc>>,
    /// The staff member who accepted them.
    pub terms_accepted_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub canceled_at: Option<DateTime<Utc>>,
}

/// The full record of a booking: customer, slot, product, site, participants, price,
/// payments, notes and status history.
#[utoipa::path(get, path = "/api/v1/admin/bookings/{id}", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Booking id")),
    responses(
        (status = 200, body = BookingDetail),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn detail(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingDetail>> {
    let view = load(&state, &auth, &id).await?;
    let b = &view.booking;
    let tenant = auth.tenant.id();
    let payments = state.store.list_payments(tenant, b.id).await?;
    let notes = state.store.list_notes(tenant, vec![b.id]).await?;
    let (issues, _) = state
        .store
        .list_issues(
            tenant,
            &kairos_store::IssueFilter {
                booking_id: Some(b.id),
                limit: 100,
                ..Default::default()
            },
        )
        .await?;
    let now = state.now();
    let issues = issues
        .iter()
        .map(|i| crate::issues::IssueSummary::of(i, now))
        .collect();
    let audit = state
        .store
        .list_audit(tenant, "booking", &b.id.to_string())
        .await?;
    let currency = &b.price.currency;
    let audit_log = audit
        .iter()
        .map(|e| AuditItem {
            action: e.action.clone(),
            changes: e.changes.clone(),
            actor_type: e.actor_type.as_str().to_owned(),
            actor_id: e.actor_id.clone(),
            actor_name: e.actor_name.clone(),
            at: e.occurred_at,
        })
        .collect();
    let history = audit
        .into_iter()
        .filter(|e| e.action == "booking.created" || e.action == "booking.status_changed")
        .filter_map(|e| {
            let status = e.changes.get("status")?;
            Some(StatusChange {
                from: status
                    .get("from")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                to: status.get("to").and_then(Value::as_str)?.to_owned(),
                trigger: e
                    .changes
                    .get("trigger")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                reason: e
                    .changes
                    .get("reason")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                actor_type: e.actor_type.as_str().to_owned(),
                actor_id: e.actor_id,
                actor_name: e.actor_name,
                at: e.occurred_at,
            })
        })
        .collect();
    Ok(axum::Json(BookingDetail {
        booking_id: b.id.to_string(),
        booking_reference: b.reference.clone(),
        status: b.status.as_str().to_owned(),
        source: b.source.as_str().to_owned(),
        customer: DetailCustomer {
            id: b.customer.id.map(|id| id.to_string()),
            name: b.customer.name.clone(),
            email: b.customer.email.clone(),
            phone: b.customer.phone.clone(),
        },
        slot: DetailSlot {
            slot_id: b.slot_id.to_string(),
            start_time: b.starts_at,
            end_time: b.ends_at,
        },
        site: Named {
            id: b.site_id.to_string(),
            name: view.site_name.clone(),
        },
        product: Named {
            id: b.product_id.to_string(),
            name: view.product_name.clone(),
        },
        variant_id: b.variant_id.map(|v| v.to_string()),
        party_size: b.party_size,
        participants: super::participants::ParticipantDto::list(&b.participants, true),
        price: PriceDto::from(&b.price),
        pricing_hash: b.price.pricing_hash.clone(),
        grand_total: major(b.price.total, currency),
        paid_amount: major(b.paid_amount, currency),
        balance_due: major((b.price.total - b.paid_amount).max(0), currency),
        payment_method: b.payment_method.map(|m| m.as_str().to_owned()),
        hold_expires_at: b.hold_expires_at,
        admin_notes: b.admin_notes.clone(),
        send_confirmation_email: b.send_confirmation,
        payments: payments
            .into_iter()
            .map(|p| PaymentDto {
                payment_id: p.id.to_string(),
                amount: p.amount,
                currency: p.currency,
                method: p.method,
                method_reference: p.method_reference,
                refunded_amount: p.refunded_amount,
                status: p.status.as_str().to_owned(),
                created_at: p.created_at,
            })
            .collect(),
        notes: notes.iter().map(super::notes::NoteDto::from).collect(),
        issues,
        status_history: history,
        audit_log,
        created_by: b.created_by.clone(),
        created_reason: b.created_reason.map(|r| r.as_str().to_owned()),
        terms_accepted_at: b.terms_accepted_at,
        terms_accepted_by: b.terms_accepted_by.clone(),
        created_at: b.created_at,
        updated_at: b.updated_at,
        confirmed_at: b.confirmed_at,
        canceled_at: b.canceled_at,
    }))
}
