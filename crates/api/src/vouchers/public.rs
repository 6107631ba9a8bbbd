//! `GET /api/v1/vouchers/{code}/balance` (spec Part A 4.7): what a code is worth.

use super::admin::{VoucherDto, voucher_dto};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Tenant;
use crate::state::AppState;
use axum::extract::{Path, State};
use kairos_domain::tenancy::Currency;
use serde::Serialize;
use utoipa::ToSchema;

/// `{voucher}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct BalanceResponse {
    pub voucher: VoucherDto,
}

/// A voucher's balance, by its code (any case). No token is needed: the code is the
/// secret. Who it was issued to is not shown.
#[utoipa::path(get, path = "/api/v1/vouchers/{code}/balance", tag = "vouchers", security(()),
    params(("code" = String, Path, description = "The voucher's code, any case", max_length = 50)),
    responses((status = 200, body = BalanceResponse),
        (status = 400, description = "VALIDATION_ERROR: a code longer than a code can be", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no voucher has this code", body = ErrorBody)))]
pub async fn voucher_balance(
    State(state): State<AppState>,
    tenant: Tenant,
    Path(code): Path<String>,
) -> ApiResult<axum::Json<BalanceResponse>> {
    let currency = Currency::parse(&tenant.0.currency).map_err(ApiError::internal)?;
    if code.chars().count() > 50 {
        return Err(ApiError::invalid_field(
            "code",
            "must be at most 50 characters",
        ));
    }
    let voucher = state.store.voucher_by_code(tenant.id(), &code).await?;
    let mut dto = voucher_dto(voucher, currency);
    dto.customer_email = None;
    Ok(axum::Json(BalanceResponse { voucher: dto }))
}
