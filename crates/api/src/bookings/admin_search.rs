//! `GET /admin/bookings`: staff search with filters, sorting, pages and a summary (spec Part A 4.1).

use super::major;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Staff, can, page_param, range_bound};
use crate::openapi::schemas::BookingStatusSchema;
use crate::state::AppState;
use axum::extract::State;
use chrono::{DateTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::ids::parse_id;
use kairos_domain::money::from_major;
use kairos_domain::tenancy::Currency;
use kairos_store::{BookingFilter, BookingSort, BookingView};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use utoipa::{IntoParams, ToSchema};

/// Admin search page size (spec Part A 8).
pub const SEARCH_DEFAULT_LIMIT: u32 = 50;
pub const SEARCH_MAX_LIMIT: u32 = 100;

/// Query of `GET /admin/bookings` (camelCase).
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct SearchQuery {
    /// Partial, case-insensitive match on the customer's email.
    pub customer_email: Option<String>,
    /// Matched on its digits: `+358 40 123` finds `+35840123`.
    pub customer_phone: Option<String>,
    /// Partial, case-insensitive match on the customer's name.
    pub customer_name: Option<String>,
    /// Repeat for several values: `bookingStatus=paid&bookingStatus=confirmed`.
    #[serde(default)]
    #[param(value_type = Vec<BookingStatusSchema>)]
    pub booking_status: Vec<String>,
    #[param(value_type = Option<uuid::Uuid>)]
    pub site_id: Option<String>,
    #[param(value_type = Option<uuid::Uuid>)]
    pub product_id: Option<String>,
    /// On the slot's start: a timestamp, or a date (start of that UTC day).
    pub date_from: Option<String>,
    /// On the slot's start, inclusive: a timestamp, or a date (the whole UTC day).
    pub date_to: Option<String>,
    /// On the grand total, in major units.
    #[param(value_type = Option<f64>, minimum = 0, maximum = 10000000000000.0)]
    pub min_amount: Option<String>,
    #[param(value_type = Option<f64>, minimum = 0, maximum = 10000000000000.0)]
    pub max_amount: Option<String>,
    /// Default 1.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 1000000)]
    pub page: Option<String>,
    /// Default 50, at most 100.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
    /// createdAt (default), startTime, grandTotal, customerName, status, bookingReference.
    pub sort_by: Option<String>,
    /// asc or desc (default desc).
    pub sort_order: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchCustomer {
    pub name: String,
    pub email: String,
    pub phone: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchSlot {
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    pub site_name: String,
    pub product_name: String,
}

/// A booking search item (spec Part A 2.1).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    pub booking_id: String,
    pub booking_reference: String,
    pub customer: SearchCustomer,
    pub slot: SearchSlot,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    pub grand_total: f64,
    pub paid_amount: f64,
    pub created_at: DateTime<Utc>,
}

/// A page of a list.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    pub page: u32,
    pub limit: u32,
    /// Items matching the filters, over all pages.
    pub total: u64,
    /// `ceil(total / limit)`; 0 when nothing matches.
    pub total_pages: u64,
}

impl Pagination {
    pub fn new(page: u32, limit: u32, total: u64) -> Self {
        Pagination {
            page,
            limit,
            total,
            total_pages: total.div_ceil(u64::from(limit.max(1))),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchSummary {
    pub total_bookings: u64,
    /// Grand totals of the filtered bookings in revenue statuses (tentative, confirmed,
    /// part_paid, paid, arrived, completed, no_show), in major units.
    pub total_revenue: f64,
    /// Count per status of the whole filtered set.
    pub status_breakdown: BTreeMap<String, u64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SearchResponse {
    pub bookings: Vec<SearchItem>,
    pub pagination: Pagination,
    pub summary: SearchSummary,
}

impl From<&BookingView> for SearchItem {
    fn from(v: &BookingView) -> Self {
        let b = &v.booking;
        SearchItem {
            booking_id: b.id.to_string(),
            booking_reference: b.reference.clone(),
            customer: SearchCustomer {
                name: b.customer.name.clone(),
                email: b.customer.email.clone(),
                phone: b.customer.phone.clone(),
            },
            slot: SearchSlot {
                start_time: b.starts_at,
                end_time: b.ends_at,
                site_name: v.site_name.clone(),
                product_name: v.product_name.clone(),
            },
            status: b.status.as_str().to_owned(),
            grand_total: major(b.price.total, &b.price.currency),
            paid_amount: major(b.paid_amount, &b.price.currency),
            created_at: b.created_at,
        }
    }
}

pub(super) fn amount(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    currency: Currency,
) -> Option<i64> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    match raw.parse::<f64>().ok().map(|v| from_major(v, currency)) {
        Some(Ok(v)) if v >= 0 => Some(v),
        _ => {
            errors.add(field, "must be a non-negative amount");
            None
        }
    }
}

/// A text search parameter: trimmed, at most 200 characters, no control characters; a
/// phone must contain digits (it is matched on them).
fn text_filter(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<String> {
    let text = raw.map(str::trim).filter(|s| !s.is_empty())?;
    if !super::short_text(text, 200) {
        errors.add(
            field,
            "must be at most 200 characters without control characters",
        );
        return None;
    }
    if field == "customerPhone" && !text.chars().any(|c| c.is_ascii_digit()) {
        errors.add(field, "must contain digits");
        return None;
    }
    Some(text.to_owned())
}

fn optional_id(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<uuid::Uuid> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    let id = parse_id(raw);
    if id.is_none() {
        errors.add(field, "must be an id");
    }
    id
}

/// Search bookings.
///
/// Every filter is optional and they combine with AND. The summary covers the whole
/// filtered set, not just the page. Sort by createdAt (default), startTime, grandTotal,
/// customerName, status or bookingReference; sortOrder asc or desc (default desc).
#[utoipa::path(get, path = "/api/v1/admin/bookings", tag = "admin-bookings",
    security(("bearer" = [])),
    params(SearchQuery),
    responses(
        (status = 200, body = SearchResponse),
        (status = 400, description = "VALIDATION_ERROR naming the bad parameter", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:read", body = ErrorBody),
    ))]
pub async fn search(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Query(q): Query<SearchQuery>,
) -> ApiResult<axum::Json<SearchResponse>> {
    let currency = Currency::parse(&auth.tenant.0.currency).map_err(ApiError::internal)?;
    let mut errors = FieldErrors::new();
    let mut statuses = Vec::new();
    for s in &q.booking_status {
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match BookingStatus::parse(part) {
                Some(st) => statuses.push(st),
                None => errors.add("bookingStatus", format!("'{part}' is not a booking status")),
            }
        }
    }
    let filter = BookingFilter {
        email_contains: text_filter(&mut errors, "customerEmail", q.customer_email.as_deref()),
        phone: text_filter(&mut errors, "customerPhone", q.customer_phone.as_deref()),
        name_contains: text_filter(&mut errors, "customerName", q.customer_name.as_deref()),
        statuses,
        site_id: optional_id(&mut errors, "siteId", q.site_id.as_deref()),
        product_id: optional_id(&mut errors, "productId", q.product_id.as_deref()),
        customer_id: None,
        starts_from: range_bound(&mut errors, "dateFrom", q.date_from.as_deref(), false),
        starts_before: range_bound(&mut errors, "dateTo", q.date_to.as_deref(), true),
        min_total: amount(&mut errors, "minAmount", q.min_amount.as_deref(), currency),
        max_total: amount(&mut errors, "maxAmount", q.max_amount.as_deref(), currency),
    };
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, 1_000_000);
    let limit = page_param(
        &mut errors,
        "limit",
        q.limit.as_deref(),
        SEARCH_DEFAULT_LIMIT,
        SEARCH_MAX_LIMIT,
    );
    let sort = match q.sort_by.as_deref().map(str::trim) {
        None | Some("") | Some("createdAt") => BookingSort::CreatedAt,
        Some("startTime") => BookingSort::StartTime,
        Some("grandTotal") => BookingSort::GrandTotal,
        Some("customerName") => BookingSort::CustomerName,
        Some("status") => BookingSort::Status,
        Some("bookingReference") => BookingSort::Reference,
        Some(_) => {
            errors.add(
                "sortBy",
                "must be createdAt, startTime, grandTotal, customerName, status or bookingReference",
            );
            BookingSort::CreatedAt
        }
    };
    let descending = match q.sort_order.as_deref().map(str::trim) {
        None | Some("") | Some("desc") => true,
        Some("asc") => false,
        Some(_) => {
            errors.add("sortOrder", "must be asc or desc");
            true
        }
    };
    if let (Some(a), Some(b)) = (filter.min_total, filter.max_total)
        && a > b
    {
        errors.add("minAmount", "must not exceed maxAmount");
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let result = state
        .store
        .search_bookings(auth.tenant.id(), filter, sort, descending, page, limit)
        .await?;
    let revenue: i64 = result
        .by_status
        .iter()
        .filter(|(s, _, _)| s.is_revenue())
        .map(|(_, _, sum)| sum)
        .sum();
    Ok(axum::Json(SearchResponse {
        bookings: result.items.iter().map(SearchItem::from).collect(),
        pagination: Pagination::new(page, limit, result.total),
        summary: SearchSummary {
            total_bookings: result.total,
            total_revenue: kairos_domain::money::to_major(revenue, currency),
            status_breakdown: result
                .by_status
                .iter()
                .map(|(s, n, _)| (s.as_str().to_owned(), *n))
                .collect(),
        },
    }))
}
