//! The tenant's cancellation fee (spec Part B 4.6: "the paid amount minus the cancellation
//! fee of the tenant policy (flat fee, percentage fee, or time-based fee)"): `GET` and
//! `PUT /api/v1/admin/payments/refund-policy`. Time-based (the default) keeps the fee of
//! the site policy's schedule by notice; flat and percentage keep their fee whatever the
//! notice. Staff's cancellations refund everything whichever it is.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, choose};
use crate::openapi::schemas::FeeTypeSchema;
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::payments::refund_policy::{FeeRule, FeeType, MAX_FLAT_FEE};
use kairos_store::RefundPolicy;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The tenant's cancellation fee.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundPolicyDto {
    #[schema(value_type = FeeTypeSchema)]
    pub fee_type: FeeType,
    /// flat: the fee in minor units; otherwise null.
    #[schema(example = 500)]
    pub flat_fee: Option<i64>,
    /// percentage: the share of what was paid (0 to 100); otherwise null.
    pub percentage: Option<i64>,
    /// When it was last set; null: never (time-based by default).
    pub updated_at: Option<DateTime<Utc>>,
}

/// A cancellation fee to set.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundPolicyBody {
    /// Required.
    #[schema(value_type = FeeTypeSchema)]
    pub fee_type: Option<String>,
    /// Required with `flat` (and only then): minor units, 0 to 100000000.
    #[schema(minimum = 0, maximum = 100_000_000, example = 500)]
    pub flat_fee: Option<i64>,
    /// Required with `percentage` (and only then): 0 to 100.
    #[schema(minimum = 0, maximum = 100, example = 10)]
    pub percentage: Option<i64>,
}

fn dto(policy: RefundPolicy) -> RefundPolicyDto {
    let (fee_type, flat_fee, percentage) = policy.rule.parts();
    RefundPolicyDto {
        fee_type,
        flat_fee,
        percentage,
        updated_at: policy.updated_at,
    }
}

/// The tenant's cancellation fee. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/payments/refund-policy", tag = "payments", security(("bearer" = [])),
    responses((status = 200, body = RefundPolicyDto)))]
pub async fn get_refund_policy(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<RefundPolicyDto>> {
    let policy = state.store.refund_policy(auth.tenant.id()).await?;
    Ok(axum::Json(dto(policy)))
}

/// Set the tenant's cancellation fee: what a customer's cancellation keeps of what was
/// paid (spec Part B 4.6). `time_based`: the site policy's schedule by notice (standard,
/// flexible, strict); `flat`: `flatFee` minor units (at most what was paid); `percentage`:
/// `percentage` of what was paid, rounded down. Needs `admin:payments:manage` (owners).
#[utoipa::path(put, path = "/api/v1/admin/payments/refund-policy", tag = "payments", security(("bearer" = [])),
    request_body = RefundPolicyBody,
    responses((status = 200, body = RefundPolicyDto),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody)))]
pub async fn put_refund_policy(
    State(state): State<AppState>,
    auth: Staff<can::ManagePayments>,
    Json(body): Json<RefundPolicyBody>,
) -> ApiResult<axum::Json<RefundPolicyDto>> {
    let mut errors = FieldErrors::new();
    let fee_type = choose(
        &mut errors,
        "feeType",
        body.fee_type.as_deref(),
        FeeType::TimeBased,
        true,
        FeeType::parse,
        FeeType::choices(),
    );
    // Only against a fee type given and known (else feeType's own error says it all).
    let known = body.fee_type.as_deref().and_then(FeeType::parse).is_some();
    let only = |errors: &mut FieldErrors, field: &str, given: bool, wanted: FeeType| {
        if given && known && fee_type != wanted {
            errors.add(field, format!("is for feeType {wanted} only"));
        }
    };
    only(
        &mut errors,
        "flatFee",
        body.flat_fee.is_some(),
        FeeType::Flat,
    );
    only(
        &mut errors,
        "percentage",
        body.percentage.is_some(),
        FeeType::Percentage,
    );
    let rule = match fee_type {
        FeeType::TimeBased => FeeRule::TimeBased,
        FeeType::Flat => match body.flat_fee {
            Some(a) if (0..=MAX_FLAT_FEE).contains(&a) => FeeRule::Flat(a),
            Some(_) => {
                errors.add(
                    "flatFee",
                    format!("must be 0 to {MAX_FLAT_FEE} minor units"),
                );
                FeeRule::TimeBased
            }
            None => {
                errors.add("flatFee", "is required with feeType flat (minor units)");
                FeeRule::TimeBased
            }
        },
        FeeType::Percentage => match body.percentage {
            Some(p) if (0..=100).contains(&p) => FeeRule::Percentage(p),
            Some(_) => {
                errors.add("percentage", "must be 0 to 100");
                FeeRule::TimeBased
            }
            None => {
                errors.add("percentage", "is required with feeType percentage");
                FeeRule::TimeBased
            }
        },
    };
    errors.finish().map_err(ApiError::validation)?;
    let policy = state
        .store
        .put_refund_policy(auth.tenant.id(), rule, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(policy)))
}
