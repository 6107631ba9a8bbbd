//! The tenant's no-show fee policy: `GET` and `PUT /api/v1/admin/no-show/policy`.
//! Disabled (the default): a no-show carries no fee unless staff give one.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Json, Staff, can, choose};
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::fees::{MAX_FEE, NoShowFee, NoShowFeeType, NoShowPolicy};
use kairos_store::StoredNoShowPolicy;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The tenant's no-show fee policy.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoShowPolicyDto {
    /// Whether a no-show is assessed a fee (staff's and the detection job's).
    pub enabled: bool,
    /// flat or percentage.
    #[schema(example = "percentage")]
    pub fee_type: String,
    /// flat: the fee in minor units (at most the booking's total); otherwise null.
    pub flat_fee: Option<i64>,
    /// percentage: the share of the booking's total, rounded down; otherwise null.
    pub percentage: Option<i64>,
    /// Charge the card on file as soon as the fee is assessed.
    pub auto_charge: bool,
    /// When it was last set; null: never (disabled).
    pub updated_at: Option<DateTime<Utc>>,
}

/// A no-show fee policy to set.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoShowPolicyBody {
    /// Required.
    pub enabled: Option<bool>,
    /// flat or percentage (required).
    #[schema(example = "percentage")]
    pub fee_type: Option<String>,
    /// Required with flat (and only then): minor units, 0 to 100000000.
    #[schema(minimum = 0, maximum = 100_000_000)]
    pub flat_fee: Option<i64>,
    /// Required with percentage (and only then): 0 to 100.
    #[schema(minimum = 0, maximum = 100, example = 50)]
    pub percentage: Option<i64>,
    /// Default false.
    pub auto_charge: Option<bool>,
}

fn dto(p: StoredNoShowPolicy) -> NoShowPolicyDto {
    let (fee_type, flat_fee, percentage) = p.policy.rule.parts();
    NoShowPolicyDto {
        enabled: p.policy.enabled,
        fee_type: fee_type.as_str().to_owned(),
        flat_fee,
        percentage,
        auto_charge: p.policy.auto_charge,
        updated_at: p.updated_at,
    }
}

/// The tenant's no-show fee policy. Needs `admin:read`.
#[utoipa::path(get, path = "/api/v1/admin/no-show/policy", tag = "no-shows", security(("bearer" = [])),
    responses((status = 200, body = NoShowPolicyDto),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody)))]
pub async fn get_no_show_policy(
    State(state): State<AppState>,
    auth: Staff<can::Read>,
) -> ApiResult<axum::Json<NoShowPolicyDto>> {
    Ok(axum::Json(dto(state
        .store
        .no_show_policy(auth.tenant.id())
        .await?)))
}

/// Set the tenant's no-show fee policy: a `flat` fee (minor units, at most the booking's
/// total) or a `percentage` of the booking's total (rounded down), and whether it is
/// charged to the card on file at once (`autoCharge`). Needs `admin:payments:manage`
/// (owners).
#[utoipa::path(put, path = "/api/v1/admin/no-show/policy", tag = "no-shows", security(("bearer" = [])),
    request_body = NoShowPolicyBody,
    responses((status = 200, body = NoShowPolicyDto),
        (status = 400, description = "VALIDATION_ERROR naming each bad field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:payments:manage", body = ErrorBody)))]
pub async fn put_no_show_policy(
    State(state): State<AppState>,
    auth: Staff<can::ManagePayments>,
    Json(body): Json<NoShowPolicyBody>,
) -> ApiResult<axum::Json<NoShowPolicyDto>> {
    let mut errors = FieldErrors::new();
    if body.enabled.is_none() {
        errors.add("enabled", "is required");
    }
    let fee_type = choose(
        &mut errors,
        "feeType",
        body.fee_type.as_deref(),
        NoShowFeeType::Percentage,
        true,
        NoShowFeeType::parse,
        NoShowFeeType::choices(),
    );
    let known = body
        .fee_type
        .as_deref()
        .and_then(NoShowFeeType::parse)
        .is_some();
    let rule = match fee_type {
        NoShowFeeType::Flat => {
            if body.percentage.is_some() && known {
                errors.add("percentage", "is for feeType percentage only");
            }
            match body.flat_fee {
                Some(a) if (0..=MAX_FEE).contains(&a) => NoShowFee::Flat(a),
                Some(_) => {
                    errors.add("flatFee", format!("must be 0 to {MAX_FEE} minor units"));
                    NoShowFee::Flat(0)
                }
                None => {
                    errors.add("flatFee", "is required with feeType flat (minor units)");
                    NoShowFee::Flat(0)
                }
            }
        }
        NoShowFeeType::Percentage => {
            if body.flat_fee.is_some() && known {
                errors.add("flatFee", "is for feeType flat only");
            }
            match body.percentage {
                Some(p) if (0..=100).contains(&p) => NoShowFee::Percentage(p),
                Some(_) => {
                    errors.add("percentage", "must be 0 to 100");
                    NoShowFee::Percentage(0)
                }
                None => {
                    errors.add("percentage", "is required with feeType percentage");
                    NoShowFee::Percentage(0)
                }
            }
        }
    };
    errors.finish().map_err(ApiError::validation)?;
    let policy = NoShowPolicy {
        enabled: body.enabled.unwrap_or(false),
        rule,
        auto_charge: body.auto_charge.unwrap_or(false),
    };
    let stored = state
        .store
        .put_no_show_policy(auth.tenant.id(), policy, &auth.actor(), state.now())
        .await?;
    Ok(axum::Json(dto(stored)))
}
