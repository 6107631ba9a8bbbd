//! `POST /promotions/validate` (snake_case, spec Part A 4.7): whether a code applies,
//! before any booking exists. Nothing is written and no use is taken.

use super::apply::typed_code;
use crate::error::{ApiError, ApiResult, code};
use crate::extract::{Json, Tenant, decode_json};
use crate::openapi::schemas::PromotionTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use kairos_domain::FieldErrors;
use kairos_domain::money::{from_major, to_major};
use kairos_domain::promotions::{Cart, Context, Discount, Ineligible, discount_of, eligibility};
use kairos_domain::tenancy::Currency;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

/// `POST /promotions/validate`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ValidateRequest {
    /// The code as the customer typed it (any case).
    #[schema(required = true, min_length = 1, max_length = 50)]
    pub code: Option<String>,
    /// Check the promotion's sites against this one.
    #[schema(format = Uuid)]
    pub site_id: Option<String>,
    /// Check the promotion's products against this one.
    #[schema(format = Uuid)]
    pub product_id: Option<String>,
    /// The subtotal (before discounts, as priced) in major units: checked against the
    /// minimum spend, and the base of `estimated_discount`.
    #[schema(minimum = 0)]
    pub cart_subtotal: Option<f64>,
    /// People in the party: the base of the estimate for buy_x_get_y and bundle.
    #[schema(minimum = 1, maximum = 10000)]
    pub party_size: Option<u32>,
}

/// The promotion a valid code names.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidatedPromotionDto {
    pub id: String,
    pub code: String,
    pub name: String,
    #[serde(rename = "type")]
    #[schema(value_type = PromotionTypeSchema)]
    pub promotion_type: String,
    /// By type: percent, amount, free people, or bundle price.
    pub discount_value: f64,
    /// What it would take off `cart_subtotal` on its own (0 without a subtotal).
    pub estimated_discount: f64,
    /// Always true here: an invalid code is a 400.
    pub applicable: bool,
}

/// `{valid: true, promotion, warnings}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidateResponse {
    pub valid: bool,
    pub promotion: ValidatedPromotionDto,
    /// What was not checked, or what may still refuse the code when it is applied.
    pub warnings: Vec<String>,
}

/// The 400 of this operation: shape A; for an invalid code (`INVALID_PROMOTION`) also
/// `valid` false and the `reason`.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvalidPromotionBody {
    #[schema(example = "INVALID_PROMOTION")]
    pub error: String,
    pub message: String,
    #[schema(example = 400)]
    pub code: u16,
    /// `{valid: false, reason}` (VALIDATION_ERROR: the bad fields).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// INVALID_PROMOTION: always false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub valid: Option<bool>,
    /// INVALID_PROMOTION: not_found, inactive, not_started, expired, usage_limit_reached,
    /// per_customer_limit_reached, not_applicable_site, not_applicable_product or
    /// min_spend_not_met.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::openapi::schemas::IneligibleSchema>)]
    pub reason: Option<String>,
}

fn invalid(reason: Ineligible) -> Response {
    let body = InvalidPromotionBody {
        error: code::INVALID_PROMOTION.to_owned(),
        message: reason.message().to_owned(),
        code: 400,
        details: Some(json!({"valid": false, "reason": reason.as_str()})),
        valid: Some(false),
        reason: Some(reason.as_str().to_owned()),
    };
    (StatusCode::BAD_REQUEST, axum::Json(body)).into_response()
}

/// Check a promotion code.
///
/// Whether the code applies now, at the site and product and for the subtotal when given.
/// The reasons a code is refused are checked in this order: not_found, inactive,
/// not_started, expired, usage_limit_reached, per_customer_limit_reached,
/// not_applicable_site, not_applicable_product, min_spend_not_met. The per-customer limit
/// is checked when the code is applied to a booking (it needs to know the customer).
#[utoipa::path(post, path = "/api/v1/promotions/validate", tag = "promotions", security(()),
    request_body = ValidateRequest,
    responses(
        (status = 200, body = ValidateResponse),
        (status = 400, description = "INVALID_PROMOTION with valid false and the reason; VALIDATION_ERROR", body = InvalidPromotionBody),
    ))]
pub async fn validate_promotion(
    State(state): State<AppState>,
    tenant: Tenant,
    Json(body): Json<Value>,
) -> ApiResult<Response> {
    let currency = Currency::parse(&tenant.0.currency).map_err(ApiError::internal)?;
    let req: ValidateRequest = decode_json(body)?;
    let mut errors = FieldErrors::new();
    let typed = typed_code(&mut errors, "code", req.code.as_deref());
    let mut id_of = |field: &str, raw: Option<String>| {
        let raw = raw.filter(|r| !r.trim().is_empty())?;
        let id = kairos_domain::ids::parse_id(&raw);
        if id.is_none() {
            errors.add(field, "is not an id");
        }
        id
    };
    let site = id_of("site_id", req.site_id);
    let product = id_of("product_id", req.product_id);
    let subtotal = req
        .cart_subtotal
        .and_then(|v| match from_major(v, currency) {
            Ok(minor) if minor >= 0 => Some(minor),
            Ok(_) => {
                errors.add("cart_subtotal", "must be at least 0");
                None
            }
            Err(e) => {
                errors.add("cart_subtotal", e.to_string());
                None
            }
        });
    if req.party_size.is_some_and(|n| !(1..=10_000).contains(&n)) {
        errors.add("party_size", "must be between 1 and 10000");
    }
    errors.finish().map_err(ApiError::validation)?;
    let Some(promotion) = state.store.promotion_by_code(tenant.id(), &typed).await? else {
        return Ok(invalid(Ineligible::NotFound));
    };
    let context = Context {
        now: state.now(),
        site,
        product,
        subtotal,
        customer_uses: None,
    };
    if let Err(reason) = eligibility(&promotion.rules(), &context) {
        return Ok(invalid(reason));
    }
    let discount = promotion.settings.discount;
    let mut warnings = Vec::new();
    if promotion.settings.per_customer_limit.is_some() {
        warnings
            .push("per_customer_limit: checked when the code is applied to a booking".to_owned());
    }
    if subtotal.is_none() {
        warnings.push("cart_subtotal not given: the minimum spend was not checked and no discount is estimated".to_owned());
    }
    let people_based = matches!(
        discount,
        Discount::BuyXGetY { .. } | Discount::Bundle { .. }
    );
    if people_based && req.party_size.is_none() {
        warnings.push(
            "party_size not given: a buy_x_get_y or bundle discount is not estimated".to_owned(),
        );
    }
    let estimated = subtotal.map_or(0, |s| {
        let party = req.party_size.unwrap_or(1);
        let cart = Cart {
            subtotal: s,
            party_size: party,
            // Without the product, one person's share of the subtotal.
            unit_price: Some(s / i64::from(party.max(1))),
            places: &[],
        };
        if people_based && req.party_size.is_none() {
            0
        } else {
            discount_of(&discount, &cart, s)
        }
    });
    let shown = super::fields::discount_fields(&discount, currency);
    Ok(axum::Json(ValidateResponse {
        valid: true,
        promotion: ValidatedPromotionDto {
            id: promotion.id.to_string(),
            code: promotion.settings.code.clone(),
            name: promotion.settings.name.clone(),
            promotion_type: promotion.promotion_type().as_str().to_owned(),
            discount_value: shown.value,
            estimated_discount: to_major(estimated, currency),
            applicable: true,
        },
        warnings,
    })
    .into_response())
}
