//! Gift card purchases, administered (spec Part A 4.10): the list with its filters
//! (`admin:read`) and resending the delivery email (`admin:write`).

use super::error::purchase_not_found;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Staff, can, optional_choice, page_param, range_bound};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::customers::Email;
use kairos_domain::gift_cards::PurchaseStatus;
use kairos_domain::money::to_major;
use kairos_domain::tenancy::Currency;
use kairos_store::{GiftCardPurchase, GiftCardPurchaseFilter};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// A gift card purchase as staff see it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminGiftCardPurchase {
    pub purchase_id: Uuid,
    pub gift_card_product_id: Uuid,
    pub product_name: String,
    /// The product's site at purchase (null: every site).
    pub site_id: Option<Uuid>,
    /// Major units of `currency`.
    pub amount: f64,
    pub currency: String,
    #[schema(value_type = crate::openapi::schemas::PurchaseStatusSchema)]
    pub status: String,
    pub payment_status: Option<String>,
    pub purchaser_email: String,
    pub purchaser_name: Option<String>,
    pub purchaser_phone: Option<String>,
    pub recipient_email: String,
    pub recipient_name: Option<String>,
    pub personal_message: Option<String>,
    pub delivery_date: Option<DateTime<Utc>>,
    pub voucher_id: Option<Uuid>,
    pub voucher_code: Option<String>,
    pub voucher_expires_at: Option<DateTime<Utc>>,
    /// The latest delivery email (see `GET /api/v1/admin/messaging/messages/{id}`).
    pub delivery_message_id: Option<Uuid>,
    pub paid_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn admin_dto(p: GiftCardPurchase) -> AdminGiftCardPurchase {
    let amount = Currency::parse(&p.currency).map_or(0.0, |c| to_major(p.amount, c));
    AdminGiftCardPurchase {
        purchase_id: p.id,
        gift_card_product_id: p.product_id,
        product_name: p.product_name,
        site_id: p.site_id,
        amount,
        currency: p.currency,
        status: p.status.as_str().to_owned(),
        payment_status: p.payment_status.map(|s| s.as_str().to_owned()),
        purchaser_email: p.purchaser_email,
        purchaser_name: p.purchaser_name,
        purchaser_phone: p.purchaser_phone,
        recipient_email: p.recipient_email,
        recipient_name: p.recipient_name,
        personal_message: p.personal_message,
        delivery_date: p.delivery_date,
        voucher_id: p.voucher_id,
        voucher_code: p.voucher_code,
        voucher_expires_at: p.voucher_expires_at,
        delivery_message_id: p.delivery_message_id,
        paid_at: p.paid_at,
        delivered_at: p.delivered_at,
        created_at: p.created_at,
        updated_at: p.updated_at,
    }
}

/// Query of the purchases list.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct PurchaseListQuery {
    /// From 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// 1 to 100, default 20.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    #[param(value_type = Option<crate::openapi::schemas::PurchaseStatusSchema>)]
    pub status: Option<String>,
    /// Exact, any case.
    #[param(max_length = 254)]
    pub purchaser_email: Option<String>,
    /// Bought from (a date: its start in UTC; or an RFC 3339 instant).
    #[param(max_length = 40)]
    pub date_from: Option<String>,
    /// Bought up to (a date: through its end in UTC; or an RFC 3339 instant).
    #[param(max_length = 40)]
    pub date_to: Option<String>,
}

/// A page of purchases, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct GiftCardPurchasePage {
    pub items: Vec<AdminGiftCardPurchase>,
    pub total: i64,
    pub page: u32,
    pub limit: u32,
}

/// The tenant's gift card purchases, newest first. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/gift-card-purchases", tag = "gift-cards", security(("bearer" = [])),
    params(PurchaseListQuery),
    responses((status = 200, body = GiftCardPurchasePage),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody)))]
pub async fn list_purchases(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
    Query(q): Query<PurchaseListQuery>,
) -> ApiResult<axum::Json<GiftCardPurchasePage>> {
    let mut errors = FieldErrors::new();
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 20, 100);
    let status = optional_choice(
        &mut errors,
        "status",
        q.status.as_deref(),
        PurchaseStatus::parse,
        PurchaseStatus::choices,
    );
    let purchaser_email = q
        .purchaser_email
        .as_deref()
        .and_then(|e| errors.check("purchaserEmail", Email::parse(e)))
        .map(Email::into_string);
    let from = range_bound(&mut errors, "dateFrom", q.date_from.as_deref(), false);
    let to = range_bound(&mut errors, "dateTo", q.date_to.as_deref(), true);
    if let (Some(f), Some(t)) = (from, to)
        && f >= t
    {
        errors.add("dateFrom", "must be before dateTo");
    }
    errors.finish().map_err(ApiError::validation)?;
    let (items, total) = state
        .store
        .list_gift_card_purchases(
            auth.tenant.id(),
            &GiftCardPurchaseFilter {
                status,
                purchaser_email,
                from,
                to,
                page,
                limit,
            },
        )
        .await?;
    Ok(axum::Json(GiftCardPurchasePage {
        items: items.into_iter().map(admin_dto).collect(),
        total,
        page,
        limit,
    }))
}

/// Send the delivery email of a paid gift card again, now, to its recipient (the same
/// voucher code). Needs `admin:write`.
#[utoipa::path(post, path = "/api/v1/admin/gift-card-purchases/{id}/resend", tag = "gift-cards", security(("bearer" = [])),
    params(("id" = Uuid, Path)),
    responses((status = 200, description = "The purchase; `deliveryMessageId` is the new email", body = AdminGiftCardPurchase),
        (status = 404, description = "GIFT_CARD_PURCHASE_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION: not paid yet (no voucher to send)", body = ErrorBody)))]
pub async fn resend_delivery(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<AdminGiftCardPurchase>> {
    let id = kairos_domain::ids::parse_id(&id).ok_or_else(purchase_not_found)?;
    let purchase = state
        .store
        .resend_gift_card_delivery(auth.tenant.id(), id, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(admin_dto(purchase)))
}
