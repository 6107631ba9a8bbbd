//! Buying a gift card (spec Part A 2.8, 3.2, 4.10, 6), public with only the tenant
//! header: the purchase (`pending`), its card payment, its status, and the balance of a
//! gift card by code. The provider's success event issues the voucher (`payments/
//! webhooks.rs` → the store's `pay_gift_card`).

use super::error::{gift_card_not_found, purchase_not_found};
use super::products::currency_of;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Tenant, decode_json, timestamp_param};
use crate::idempotency::{RequestKey, answer};
use crate::payments::dto::PaymentAction;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use kairos_app::payments::intents::action_for_payment;
use kairos_domain::FieldErrors;
use kairos_domain::customers::Email;
use kairos_domain::gift_cards::InvalidAmount;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::payments::credentials::{Provider, choose};
use kairos_domain::tenancy::Currency;
use kairos_domain::vouchers::is_redeemed;
use kairos_store::{GiftCardError, GiftCardPurchase, NewGiftCardPurchase, VoucherError};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;

/// Longest personal message, in characters.
const MAX_MESSAGE: usize = 1000;

/// A gift card purchase (spec Part A 2.8).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardPurchaseDto {
    pub purchase_id: Uuid,
    pub gift_card_product_id: Uuid,
    /// Major units of `currency`.
    #[schema(example = 50.0)]
    pub amount: f64,
    #[schema(example = "EUR")]
    pub currency: String,
    /// pending, payment_failed, paid, delivered or cancelled (spec Part A 3.2).
    #[schema(value_type = crate::openapi::schemas::PurchaseStatusSchema)]
    pub status: String,
    /// The newest payment's status (Part B 3.1: PENDING, COMPLETED, FAILED, …); null before
    /// a payment is started.
    pub payment_status: Option<String>,
    /// The gift card's code once paid (GIFT-XXXX-XXXX).
    pub voucher_code: Option<String>,
    pub voucher_expires_at: Option<DateTime<Utc>>,
    /// When the delivery email goes out (null: once paid).
    pub delivery_date: Option<DateTime<Utc>>,
    pub payment_options: PaymentOptions,
    pub created_at: DateTime<Utc>,
}

/// How a purchase can be paid.
#[derive(Debug, Clone, Copy, Serialize, ToSchema)]
pub struct PaymentOptions {
    /// `POST /api/v1/gift-cards/purchase/{id}/payment/cardpay` works.
    pub cardpay: bool,
    /// Bank payments are offered for bookings only: always false for gift cards.
    pub bankpay: bool,
}

pub(super) fn purchase_dto(p: GiftCardPurchase, options: PaymentOptions) -> GiftCardPurchaseDto {
    let amount = Currency::parse(&p.currency).map_or(0.0, |c| to_major(p.amount, c));
    GiftCardPurchaseDto {
        purchase_id: p.id,
        gift_card_product_id: p.product_id,
        amount,
        currency: p.currency,
        status: p.status.as_str().to_owned(),
        payment_status: p.payment_status.map(|s| s.as_str().to_owned()),
        voucher_code: p.voucher_code,
        voucher_expires_at: p.voucher_expires_at,
        delivery_date: p.delivery_date,
        payment_options: options,
        created_at: p.created_at,
    }
}

/// How the tenant (or the gift card's site) can take payment.
async fn payment_options(
    state: &AppState,
    tenant: &Tenant,
    site: Option<Uuid>,
) -> ApiResult<PaymentOptions> {
    let (site_creds, tenant_creds) = state
        .store
        .payment_credentials_for(tenant.id(), Provider::Cardpay, site)
        .await?;
    Ok(PaymentOptions {
        cardpay: choose(Provider::Cardpay, site_creds, tenant_creds, None).is_some(),
        bankpay: false,
    })
}

/// Buy a gift card.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardPurchaseInput {
    #[schema(value_type = Uuid)]
    pub gift_card_product_id: Option<String>,
    /// Major units; required for a custom_range product, ignored for a fixed one.
    #[schema(
        exclusive_minimum = 0,
        maximum = 100000,
        multiple_of = 0.01,
        example = 75.0
    )]
    pub amount: Option<f64>,
    #[schema(max_length = 254, example = "buyer@example.com")]
    pub purchaser_email: Option<String>,
    #[schema(max_length = 200)]
    pub purchaser_name: Option<String>,
    #[schema(max_length = 40)]
    pub purchaser_phone: Option<String>,
    /// Default: the purchaser.
    #[schema(max_length = 254)]
    pub recipient_email: Option<String>,
    #[schema(max_length = 200)]
    pub recipient_name: Option<String>,
    #[schema(max_length = 1000)]
    pub personal_message: Option<String>,
    /// A future instant: the delivery email goes then (absent: once paid).
    pub delivery_date: Option<String>,
}

crate::openapi::schemas::create_form!(
    /// The create form of [`GiftCardPurchaseInput`].
    GiftCardPurchaseForm = GiftCardPurchaseInput,
    "GiftCardPurchaseCreate",
    ["giftCardProductId", "purchaserEmail"]
);

/// An optional text field at most `max` characters long, blank as absent.
fn text(errors: &mut FieldErrors, field: &str, raw: Option<String>, max: usize) -> Option<String> {
    let t = raw.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())?;
    errors.at_most(field, t.chars().count(), max).then_some(t)
}

fn email(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<String> {
    errors
        .check(field, Email::parse(raw?))
        .map(Email::into_string)
}

/// The checked purchase; the amount in minor units.
fn check(
    input: GiftCardPurchaseInput,
    currency: Currency,
    now: DateTime<Utc>,
) -> Result<NewGiftCardPurchase, ApiError> {
    let mut errors = FieldErrors::new();
    let product_id = match input.gift_card_product_id.as_deref() {
        None => {
            errors.add("giftCardProductId", "is required");
            None
        }
        Some(raw) => crate::extract::uuid_param(&mut errors, "giftCardProductId", Some(raw)),
    };
    if input.purchaser_email.is_none() {
        errors.add("purchaserEmail", "is required");
    }
    let purchaser_email = email(
        &mut errors,
        "purchaserEmail",
        input.purchaser_email.as_deref(),
    );
    let recipient_email = email(
        &mut errors,
        "recipientEmail",
        input.recipient_email.as_deref(),
    );
    let amount = input
        .amount
        .and_then(|a| errors.check("amount", from_major(a, currency)));
    if amount.is_some_and(|a| a <= 0) {
        errors.add("amount", "must be more than 0");
    }
    let delivery_date = input
        .delivery_date
        .as_deref()
        .and_then(|raw| timestamp_param(&mut errors, "deliveryDate", raw));
    if delivery_date.is_some_and(|d| d <= now) {
        errors.add(
            "deliveryDate",
            "must be in the future (leave it out to deliver once paid)",
        );
    }
    let new = NewGiftCardPurchase {
        product_id: product_id.unwrap_or_default(),
        amount,
        purchaser_email: purchaser_email.unwrap_or_default(),
        purchaser_name: text(&mut errors, "purchaserName", input.purchaser_name, 200),
        purchaser_phone: text(&mut errors, "purchaserPhone", input.purchaser_phone, 40),
        recipient_email,
        recipient_name: text(&mut errors, "recipientName", input.recipient_name, 200),
        personal_message: text(
            &mut errors,
            "personalMessage",
            input.personal_message,
            MAX_MESSAGE,
        ),
        delivery_date,
    };
    errors.finish().map_err(ApiError::validation)?;
    Ok(new)
}

/// GIFT_CARD_INVALID_AMOUNT with the range in the currency's major units.
fn amount_error(e: GiftCardError, currency: Currency) -> ApiError {
    match e {
        GiftCardError::InvalidAmount(InvalidAmount::OutOfRange { min, max }) => ApiError::from(e)
            .with_details(json!({
                "minValue": to_major(min, currency),
                "maxValue": to_major(max, currency),
            })),
        other => other.into(),
    }
}

/// Buy a gift card: records the purchase `pending` with the product's value (or the
/// `amount` asked, within a custom range) and says how it can be paid; pay it with
/// `POST /api/v1/gift-cards/purchase/{id}/payment/cardpay`. Public (tenant header only).
/// Honours `Idempotency-Key`.
#[utoipa::path(post, path = "/api/v1/gift-cards/purchase", tag = "gift-cards", security(()),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, description = "Makes retries safe: one purchase per key for 24 h")),
    request_body = GiftCardPurchaseForm,
    responses((status = 200, body = GiftCardPurchaseDto),
        (status = 400, description = "VALIDATION_ERROR; GIFT_CARD_INVALID_AMOUNT: missing or outside the product's range (details minValue, maxValue)", body = ErrorBody),
        (status = 404, description = "GIFT_CARD_PRODUCT_NOT_FOUND: missing or inactive", body = ErrorBody),
        (status = 409, description = "IDEMPOTENCY_KEY_IN_FLIGHT", body = ErrorBody),
        (status = 422, description = "IDEMPOTENCY_KEY_REUSED", body = ErrorBody)))]
pub async fn purchase_gift_card(
    State(state): State<AppState>,
    tenant: Tenant,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let key = RequestKey::of(
        &headers,
        "public",
        "POST",
        "/api/v1/gift-cards/purchase",
        &body,
    )?;
    let currency = currency_of(&tenant)?;
    // The product's site decides whose card account takes the payment (display only:
    // the purchase reads the product again in its transaction).
    let product_site = match body["giftCardProductId"]
        .as_str()
        .and_then(kairos_domain::ids::parse_id)
    {
        Some(id) => state
            .store
            .get_gift_card_product(tenant.id(), id)
            .await?
            .and_then(|p| p.fields.site_id),
        None => None,
    };
    let options = payment_options(&state, &tenant, product_site).await?;
    let render = move |p: &GiftCardPurchase| -> (u16, String) {
        (
            StatusCode::OK.as_u16(),
            serde_json::to_string(&purchase_dto(p.clone(), options)).unwrap_or_default(),
        )
    };
    let now = state.now();
    let result = async {
        let input: GiftCardPurchaseInput = decode_json(body)?;
        let new = check(input, currency, now)?;
        state
            .store
            .create_gift_card_purchase(
                tenant.id(),
                new,
                now,
                key.as_ref().map(|k| k.for_store(&render)),
            )
            .await
            .map_err(|e| amount_error(e, currency))
    }
    .await;
    answer(&state, &tenant, key.as_ref(), result, |p| {
        (StatusCode::OK, axum::Json(purchase_dto(p, options))).into_response()
    })
    .await
}

/// The purchase `raw` names, or 404 GIFT_CARD_PURCHASE_NOT_FOUND.
async fn find_purchase(
    state: &AppState,
    tenant: &Tenant,
    raw: &str,
) -> ApiResult<GiftCardPurchase> {
    let id = kairos_domain::ids::parse_id(raw).ok_or_else(purchase_not_found)?;
    state
        .store
        .gift_card_purchase(tenant.id(), id)
        .await?
        .ok_or_else(purchase_not_found)
}

/// Pay a gift card purchase by card: starts (or finds again) its PaymentIntent and answers
/// the client secret for the provider's browser library, the amount in minor units and
/// the currency in lower case. A declined card can be followed by another on the same
/// payment. The provider's success event issues the voucher and sends it. Public.
#[utoipa::path(post, path = "/api/v1/gift-cards/purchase/{id}/payment/cardpay", tag = "gift-cards", security(()),
    params(("id" = Uuid, Path)),
    responses((status = 200, body = PaymentAction),
        (status = 400, description = "PAYMENT_FAILED: cardpay not configured for this venue", body = ErrorBody),
        (status = 404, description = "GIFT_CARD_PURCHASE_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "GIFT_CARD_ALREADY_PAID; INVALID_TRANSITION: the purchase was cancelled", body = ErrorBody),
        (status = 502, description = "PROVIDER_ERROR: retry later", body = ErrorBody)))]
pub async fn pay_purchase_by_card(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PaymentAction>> {
    let purchase = find_purchase(&state, &tenant, &id).await?;
    // Refuse before a payment row exists when the venue cannot take cards.
    kairos_app::payments::accounts::cardpay_account(&state.app, tenant.id(), purchase.site_id)
        .await?;
    let (_, payment) = state
        .store
        .open_gift_card_payment(tenant.id(), purchase.id, state.now())
        .await?;
    Ok(axum::Json(
        action_for_payment(&state.app, tenant.id(), &payment, None, false)
            .await?
            .into(),
    ))
}

/// A purchase's status: `status`, `paymentStatus`, and the voucher's code and expiry once
/// paid. Public: the purchase id is the purchaser's to know.
#[utoipa::path(get, path = "/api/v1/gift-cards/purchase/{id}/status", tag = "gift-cards", security(()),
    params(("id" = Uuid, Path)),
    responses((status = 200, body = GiftCardPurchaseDto),
        (status = 404, description = "GIFT_CARD_PURCHASE_NOT_FOUND", body = ErrorBody)))]
pub async fn purchase_status(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<GiftCardPurchaseDto>> {
    let purchase = find_purchase(&state, &tenant, &id).await?;
    let options = payment_options(&state, &tenant, purchase.site_id).await?;
    Ok(axum::Json(purchase_dto(purchase, options)))
}

/// A gift card's balance (spec Part A 4.10).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GiftCardBalance {
    pub code: String,
    /// Major units.
    pub original_value: f64,
    pub current_balance: f64,
    #[schema(example = "EUR")]
    pub currency: String,
    pub expires_at: Option<DateTime<Utc>>,
    pub is_active: bool,
    /// Used up: no balance (or uses) left.
    pub is_redeemed: bool,
}

/// The balance of a gift card (or any voucher) by its code, any case. Public (tenant
/// header only).
#[utoipa::path(get, path = "/api/v1/gift-cards/balance/{code}", tag = "gift-cards", security(()),
    params(("code" = String, Path, max_length = 64)),
    responses((status = 200, body = GiftCardBalance),
        (status = 404, description = "GIFT_CARD_NOT_FOUND: no gift card has this code", body = ErrorBody)))]
pub async fn gift_card_balance(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(code): Path<String>,
) -> ApiResult<axum::Json<GiftCardBalance>> {
    let code = code.trim();
    if code.is_empty() || code.chars().count() > 64 {
        return Err(gift_card_not_found());
    }
    let voucher = match state.store.voucher_by_code(tenant.id(), code).await {
        Ok(v) => v,
        Err(VoucherError::NotFound) => return Err(gift_card_not_found()),
        Err(e) => return Err(e.into()),
    };
    let currency = currency_of(&tenant)?;
    Ok(axum::Json(GiftCardBalance {
        is_redeemed: is_redeemed(
            voucher.current_balance,
            voucher.usage_count,
            voucher.usage_limit,
        ),
        code: voucher.code,
        original_value: to_major(voucher.original_value, currency),
        current_balance: to_major(voucher.current_balance, currency),
        currency: currency.code().to_owned(),
        expires_at: voucher.expires_at,
        is_active: voucher.is_active,
    }))
}
