//! `GET /api/v1/admin/promotions/{id}/stats` (spec Part A 4.8): figures from the
//! promotion's use records (held and final uses; released ones are given back).

use super::admin::tenant_currency;
use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Staff, can, path_id};
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::money::to_major;
use kairos_domain::promotions::stats::stats;
use serde::Serialize;
use utoipa::ToSchema;

/// The promotion the figures are about.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatsPromotionDto {
    pub id: String,
    pub code: String,
    pub name: String,
}

/// One day (UTC) of uses.
#[derive(Debug, Serialize, ToSchema)]
pub struct UsageDayDto {
    #[schema(value_type = String, format = Date, example = "2026-11-23")]
    pub date: NaiveDate,
    pub usage_count: i64,
    pub total_discount: f64,
}

/// The figures. Money in major units of the tenant's currency.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatisticsDto {
    /// Uses taken by holds and confirmed bookings (= the promotion's usage_count).
    pub total_usage_count: i64,
    /// null = unlimited.
    pub usage_limit: Option<i32>,
    /// null = unlimited.
    pub remaining_uses: Option<i32>,
    /// What the uses take off their bookings now.
    pub total_discount_given: f64,
    pub average_discount_per_use: f64,
    /// Distinct accounts, else emails (a booking naming neither counts as one customer).
    pub unique_customers: i64,
    pub bookings_with_promotion: i64,
    pub first_used_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The day (UTC) with the most uses; the earliest of equal days.
    #[schema(value_type = Option<String>, format = Date)]
    pub peak_usage_day: Option<NaiveDate>,
    /// Days with uses, oldest first.
    pub usage_by_day: Vec<UsageDayDto>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PromotionStatsResponse {
    pub promotion: StatsPromotionDto,
    pub statistics: StatisticsDto,
}

/// A promotion's usage statistics. Needs `admin:write`.
#[utoipa::path(get, path = "/api/v1/admin/promotions/{id}/stats", tag = "promotions", security(("bearer" = [])),
    params(("id" = uuid::Uuid, Path, description = "Promotion id")),
    responses((status = 200, body = PromotionStatsResponse),
        (status = 404, description = "NOT_FOUND (also once deleted)", body = ErrorBody)))]
pub async fn promotion_stats(
    State(state): State<AppState>,
    auth: Staff<can::Write>,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<PromotionStatsResponse>> {
    let currency = tenant_currency(&auth)?;
    let id = path_id(&id, "Promotion")?;
    let promotion = state.store.promotion(auth.tenant.id(), id).await?;
    let uses = state.store.promotion_uses(auth.tenant.id(), id).await?;
    let s = stats(&uses);
    let m = |v| to_major(v, currency);
    Ok(axum::Json(PromotionStatsResponse {
        statistics: StatisticsDto {
            total_usage_count: s.uses,
            usage_limit: promotion.settings.usage_limit,
            remaining_uses: promotion.usage_remaining(),
            total_discount_given: m(s.total_discount),
            average_discount_per_use: m(s.average_discount),
            unique_customers: s.unique_customers,
            bookings_with_promotion: s.bookings,
            first_used_at: s.first_used_at,
            last_used_at: s.last_used_at,
            peak_usage_day: s.peak_day,
            usage_by_day: s
                .by_day
                .iter()
                .map(|d| UsageDayDto {
                    date: d.date,
                    usage_count: d.uses,
                    total_discount: m(d.discount),
                })
                .collect(),
        },
        promotion: StatsPromotionDto {
            id: promotion.id.to_string(),
            code: promotion.settings.code,
            name: promotion.settings.name,
        },
    }))
}
