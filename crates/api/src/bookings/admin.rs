//! Booking administration (spec Part A 4.1, 4.2 and 4.4): search, creation, the full
//! record, status changes through the status machine and customer corrections.

use super::public::{AddonRequest, CustomerInput, DraftInput, Participant, draft};
use super::{PriceDto, booking_error, booking_not_found, hold_ttl, major};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, Json, Query, page_param};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::auth::perm;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::customers::{Email, validate_phone};
use kairos_domain::ids::{new_secret, parse_id};
use kairos_domain::money::from_major;
use kairos_domain::tenancy::Currency;
use kairos_store::{
    Booking, BookingAction, BookingCustomerPatch, BookingFilter, BookingSort, BookingSource,
    BookingView, NewBooking, SeatPolicy,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
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
    pub booking_status: Vec<String>,
    pub site_id: Option<String>,
    pub product_id: Option<String>,
    /// On the slot's start: a timestamp, or a date (start of that UTC day).
    pub date_from: Option<String>,
    /// On the slot's start, inclusive: a timestamp, or a date (the whole UTC day).
    pub date_to: Option<String>,
    /// On the grand total, in major units.
    pub min_amount: Option<String>,
    pub max_amount: Option<String>,
    /// Default 1.
    pub page: Option<String>,
    /// Default 50, at most 100.
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

/// Parses `YYYY-MM-DD` or an RFC 3339 timestamp as a bound on start times. A lower bound
/// is the instant (a date: the start of its UTC day); with `inclusive_upper`, the result
/// is the exclusive end of what the input includes (a date: the start of the next UTC
/// day; a timestamp: one microsecond after it).
fn instant(
    errors: &mut FieldErrors,
    field: &str,
    raw: Option<&str>,
    inclusive_upper: bool,
) -> Option<DateTime<Utc>> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    if let Ok(t) = DateTime::parse_from_rfc3339(raw) {
        let t = t.with_timezone(&Utc);
        return Some(if inclusive_upper {
            t + chrono::Duration::microseconds(1)
        } else {
            t
        });
    }
    match NaiveDate::parse_from_str(raw, "%Y-%m-%d") {
        Ok(d) => {
            let d = if inclusive_upper { d.succ_opt()? } else { d };
            Some(d.and_hms_opt(0, 0, 0)?.and_utc())
        }
        Err(_) => {
            errors.add(
                field,
                "must be a date (YYYY-MM-DD) or an ISO 8601 timestamp",
            );
            None
        }
    }
}

fn amount(
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
    params(("x-tenant-id" = String, Header, description = "Tenant id"), SearchQuery),
    responses(
        (status = 200, body = SearchResponse),
        (status = 400, description = "VALIDATION_ERROR naming the bad parameter", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:read", body = ErrorBody),
    ))]
pub async fn search(
    State(state): State<AppState>,
    auth: AdminAuth,
    Query(q): Query<SearchQuery>,
) -> ApiResult<axum::Json<SearchResponse>> {
    auth.require(perm::BOOKINGS_READ)?;
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
        starts_from: instant(&mut errors, "dateFrom", q.date_from.as_deref(), false),
        starts_before: instant(&mut errors, "dateTo", q.date_to.as_deref(), true),
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

/// `POST /admin/bookings` (spec Part A 2.2).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCreateRequest {
    pub site_id: Option<String>,
    pub product_id: Option<String>,
    pub variant_id: Option<String>,
    /// The start of an existing slot of the product.
    pub start_time: Option<DateTime<Utc>>,
    pub party_size: Option<i64>,
    /// Name and email required; phone optional.
    pub customer_info: Option<CustomerInput>,
    pub addons: Option<Vec<AddonRequest>>,
    pub participants: Option<Vec<Participant>>,
    /// Internal, not visible to the customer.
    pub admin_notes: Option<String>,
    /// Book a slot that has started or no longer matches the schedule.
    pub skip_availability_check: Option<bool>,
    /// Take the seats beyond capacity; needs admin:capacity:override.
    pub bypass_capacity: Option<bool>,
    /// Default false: the booking is a hold to confirm. True: confirmed, no payment collected.
    pub auto_confirm: Option<bool>,
    /// Default true: queue the confirmation email when the booking is confirmed.
    pub send_confirmation_email: Option<bool>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Breakdown {
    pub base_price: f64,
    pub addons: Vec<super::AddonLineDto>,
    pub tax: f64,
    pub total: f64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlotTimes {
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
}

/// Response of admin creation (spec Part A 4.2), with the hold's expiry, pricing hash
/// and booking token for confirming it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdminCreateResponse {
    pub booking_id: String,
    pub booking_reference: String,
    pub status: String,
    pub grand_total: f64,
    pub breakdown: Breakdown,
    pub slot: SlotTimes,
    /// What was overridden: capacity_exceeded, slot_started, slot_orphaned.
    pub warnings: Vec<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub pricing_hash: String,
    pub booking_token: String,
}

/// Create a booking for a customer (phone, walk-in, correction).
///
/// Books the product's slot starting at `startTime`. Without `autoConfirm` the booking is
/// a hold to confirm through `POST /bookings/{id}/confirm`; with it, it is `confirmed` and
/// nothing is collected. `skipAvailabilityCheck` allows a slot that has started or left the
/// schedule; `bypassCapacity` (admin:capacity:override) takes the seats even when full.
#[utoipa::path(post, path = "/api/v1/admin/bookings", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id")),
    request_body = AdminCreateRequest,
    responses(
        (status = 201, body = AdminCreateResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: admin:bookings:create; bypassCapacity needs admin:capacity:override", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: site, product, variant", body = ErrorBody),
        (status = 409, description = "SLOT_UNAVAILABLE: no slot at startTime, full, started or closed", body = ErrorBody),
    ))]
pub async fn create(
    State(state): State<AppState>,
    auth: AdminAuth,
    Json(req): Json<AdminCreateRequest>,
) -> ApiResult<(StatusCode, axum::Json<AdminCreateResponse>)> {
    auth.require(perm::BOOKINGS_CREATE)?;
    let bypass = req.bypass_capacity.unwrap_or(false);
    if bypass {
        auth.require(perm::CAPACITY_OVERRIDE)?;
    }
    let skip = req.skip_availability_check.unwrap_or(false);
    let auto_confirm = req.auto_confirm.unwrap_or(false);
    let Some(start) = req.start_time else {
        let mut errors = FieldErrors::new();
        errors.add("startTime", "is required");
        return Err(ApiError::validation(errors));
    };
    let admin_notes = req
        .admin_notes
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if admin_notes
        .as_ref()
        .is_some_and(|n| n.chars().count() > 5000)
    {
        return Err(ApiError::invalid_field(
            "adminNotes",
            "must be at most 5000 characters",
        ));
    }
    let tenant = auth.tenant.clone();
    let draft = draft(
        &state,
        &tenant,
        DraftInput {
            site_id: req.site_id.as_deref(),
            product_id: req.product_id.as_deref(),
            variant_id: req.variant_id.as_deref(),
            party_size: req.party_size,
            addons: req.addons.as_deref().unwrap_or_default(),
            customer: req.customer_info.as_ref(),
            customer_required: true,
            participants: req.participants.as_deref().unwrap_or_default(),
            customer_field: "customerInfo",
        },
    )
    .await?;
    let now = state.now();
    let slot = state
        .store
        .list_slots(
            tenant.id(),
            draft.product.id,
            start,
            start + chrono::Duration::seconds(1),
        )
        .await?
        .into_iter()
        .find(|s| s.starts_at == start)
        .ok_or_else(|| {
            ApiError::conflict(
                crate::error::code::SLOT_UNAVAILABLE,
                "The product has no slot starting at startTime",
            )
        })?;
    let mut warnings = Vec::new();
    let started = slot.starts_at <= now;
    if (started || slot.is_orphaned) && !skip {
        return Err(ApiError::conflict(
            crate::error::code::SLOT_UNAVAILABLE,
            if started {
                "The slot has started; use skipAvailabilityCheck to book it anyway"
            } else {
                "The slot no longer matches the schedule; use skipAvailabilityCheck to book it anyway"
            },
        ));
    }
    if started {
        warnings.push("slot_started".to_owned());
    }
    if slot.is_orphaned {
        warnings.push("slot_orphaned".to_owned());
    }
    if bypass && slot.booked + draft.party_size > slot.capacity {
        warnings.push("capacity_exceeded".to_owned());
    }
    let (token, token_hash) = new_secret();
    let ttl = hold_ttl(&tenant, &draft.site);
    let booking = state
        .store
        .create_booking(
            tenant.id(),
            NewBooking {
                status: if auto_confirm {
                    BookingStatus::Confirmed
                } else {
                    BookingStatus::Hold
                },
                hold_expires_at: (!auto_confirm).then_some(now + ttl),
                admin_notes,
                send_confirmation: req.send_confirmation_email.unwrap_or(true),
                seats: if bypass {
                    SeatPolicy::BypassCapacity
                } else if skip {
                    SeatPolicy::SkipAvailability
                } else {
                    SeatPolicy::Checked
                },
                ..draft.into_booking(slot.id, token_hash, BookingSource::Admin)
            },
            &auth.actor(),
            now,
            None,
        )
        .await
        .map_err(|e| match e {
            kairos_store::StoreError::NotFound => ApiError::conflict(
                crate::error::code::SLOT_UNAVAILABLE,
                "The slot no longer exists",
            ),
            other => other.into(),
        })?;
    let price = PriceDto::from(&booking.price);
    Ok((
        StatusCode::CREATED,
        axum::Json(AdminCreateResponse {
            booking_id: booking.id.to_string(),
            booking_reference: booking.reference.clone(),
            status: booking.status.as_str().to_owned(),
            grand_total: price.total,
            breakdown: Breakdown {
                base_price: price.base_price,
                addons: price.addons,
                tax: price.tax,
                total: price.total,
            },
            slot: SlotTimes {
                start_time: booking.starts_at,
                end_time: booking.ends_at,
            },
            warnings,
            hold_expires_at: booking.hold_expires_at,
            pricing_hash: booking.price.pricing_hash.clone(),
            booking_token: token,
        }),
    ))
}

async fn load(state: &AppState, auth: &AdminAuth, raw: &str) -> ApiResult<BookingView> {
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
    pub method: String,
    pub method_reference: Option<String>,
    /// pending, succeeded, failed, canceled.
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// One change of status, from the audit log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusChange {
    /// Null for the booking's creation.
    pub from: Option<String>,
    pub to: String,
    pub trigger: Option<String>,
    pub reason: Option<String>,
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
    pub status: String,
    /// public or admin.
    pub source: String,
    pub customer: DetailCustomer,
    pub slot: DetailSlot,
    pub site: Named,
    pub product: Named,
    pub variant_id: Option<String>,
    pub party_size: i32,
    #[schema(value_type = Vec<Object>)]
    pub participants: Value,
    pub price: PriceDto,
    pub pricing_hash: String,
    pub grand_total: f64,
    pub paid_amount: f64,
    pub balance_due: f64,
    pub payment_method: Option<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub admin_notes: Option<String>,
    pub send_confirmation_email: bool,
    pub payments: Vec<PaymentDto>,
    pub notes: Vec<super::notes::NoteDto>,
    pub status_history: Vec<StatusChange>,
    pub created_by: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub confirmed_at: Option<DateTime<Utc>>,
    pub canceled_at: Option<DateTime<Utc>>,
}

/// The full record of a booking: customer, slot, product, site, participants, price,
/// payments, notes and status history.
#[utoipa::path(get, path = "/api/v1/admin/bookings/{id}", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    responses(
        (status = 200, body = BookingDetail),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:read", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn detail(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
) -> ApiResult<axum::Json<BookingDetail>> {
    auth.require(perm::BOOKINGS_READ)?;
    let view = load(&state, &auth, &id).await?;
    let b = &view.booking;
    let tenant = auth.tenant.id();
    let payments = state.store.list_payments(tenant, b.id).await?;
    let notes = state.store.list_notes(tenant, vec![b.id]).await?;
    let audit = state
        .store
        .list_audit(tenant, "booking", &b.id.to_string())
        .await?;
    let currency = &b.price.currency;
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
                actor_type: e.actor_type,
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
        source: b.source.clone(),
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
        participants: b.participants.clone(),
        price: PriceDto::from(&b.price),
        pricing_hash: b.price.pricing_hash.clone(),
        grand_total: major(b.price.total, currency),
        paid_amount: major(b.paid_amount, currency),
        balance_due: major((b.price.total - b.paid_amount).max(0), currency),
        payment_method: b.payment_method.clone(),
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
                status: p.status,
                created_at: p.created_at,
            })
            .collect(),
        notes: notes.iter().map(super::notes::NoteDto::from).collect(),
        status_history: history,
        created_by: b.created_by.clone(),
        created_at: b.created_at,
        updated_at: b.updated_at,
        confirmed_at: b.confirmed_at,
        canceled_at: b.canceled_at,
    }))
}

/// `PATCH /admin/bookings/{id}/status`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusRequest {
    /// The status to move to; the status machine decides whether it may.
    pub status: Option<String>,
    pub reason: Option<String>,
    /// Replaces the booking's internal notes when given.
    pub admin_notes: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdatedBy {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatusResponse {
    pub booking_id: String,
    pub previous_status: String,
    pub status: String,
    pub reason: Option<String>,
    pub admin_notes: Option<String>,
    pub hold_expires_at: Option<DateTime<Utc>>,
    pub updated_at: DateTime<Utc>,
    pub updated_by: UpdatedBy,
}

/// Change a booking's status through the status machine (spec Part A 3.1).
///
/// The target must be reachable from the current status by one row of the table (for
/// example paid → arrived, arrived → completed, expired → hold, which takes the seats
/// again); anything else is 409 `INVALID_TRANSITION` and changes nothing. Canceling
/// releases the seats. Every change is audited with actor, time, from, to and reason.
#[utoipa::path(patch, path = "/api/v1/admin/bookings/{id}/status", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    request_body = StatusRequest,
    responses(
        (status = 200, body = StatusResponse),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
        (status = 409, description = "INVALID_TRANSITION; SLOT_UNAVAILABLE when re-holding a full slot", body = ErrorBody),
    ))]
pub async fn set_status(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(req): Json<StatusRequest>,
) -> ApiResult<axum::Json<StatusResponse>> {
    auth.require(perm::BOOKINGS_WRITE)?;
    let status = match req.status.as_deref().map(str::trim) {
        None | Some("") => return Err(ApiError::invalid_field("status", "is required")),
        Some(s) => BookingStatus::parse(s).ok_or_else(|| {
            ApiError::invalid_field(
                "status",
                "must be hold, tentative, confirmed, part_paid, paid, arrived, completed, canceled, no_show or expired",
            )
        })?,
    };
    if status == BookingStatus::PartPaid {
        // Part payment needs its amount: there is nothing to derive it from.
        return Err(ApiError::invalid_field(
            "status",
            "part_paid is reached by recording the payment: POST /api/v1/bookings/{id}/mark-paid with its amount",
        ));
    }
    let reason = super::public::reason_of(req.reason.as_deref())?;
    let admin_notes = req
        .admin_notes
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if admin_notes
        .as_ref()
        .is_some_and(|n| !super::free_text(n, 5000))
    {
        return Err(ApiError::invalid_field(
            "adminNotes",
            "must be at most 5000 characters without control characters",
        ));
    }
    let view = load(&state, &auth, &id).await?;
    let site = state
        .store
        .get_site(auth.tenant.id(), view.booking.site_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let previous = view.booking.status;
    let b = state
        .store
        .apply_booking_action(
            auth.tenant.id(),
            view.booking.id,
            BookingAction::SetStatus {
                status,
                reason: reason.clone(),
                admin_notes,
                hold_ttl: hold_ttl(&auth.tenant, &site),
            },
            &auth.actor(),
            state.now(),
            None,
        )
        .await
        .map_err(booking_error)?;
    Ok(axum::Json(StatusResponse {
        booking_id: b.id.to_string(),
        previous_status: previous.as_str().to_owned(),
        status: b.status.as_str().to_owned(),
        reason,
        admin_notes: b.admin_notes.clone(),
        hold_expires_at: b.hold_expires_at,
        updated_at: b.updated_at,
        updated_by: UpdatedBy {
            id: auth.user.id.to_string(),
            name: auth.user.display_name.clone(),
        },
    }))
}

/// `PATCH /admin/bookings/{id}/customer`: only the supplied fields change.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerPatchRequest {
    pub customer_name: Option<String>,
    pub customer_email: Option<String>,
    pub customer_phone: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerPatchResponse {
    pub booking_id: String,
    pub customer: super::CustomerDto,
    pub updated_at: DateTime<Utc>,
    pub updated_by: UpdatedBy,
}

/// Correct a booking's customer details.
///
/// Each changed field is written to the audit log with its previous and new value, who
/// (user id and name) and when.
#[utoipa::path(patch, path = "/api/v1/admin/bookings/{id}/customer", tag = "admin-bookings",
    security(("bearer" = [])),
    params(("x-tenant-id" = String, Header, description = "Tenant id"), ("id" = String, Path, description = "Booking id")),
    request_body = CustomerPatchRequest,
    responses(
        (status = 200, body = CustomerPatchResponse),
        (status = 400, description = "VALIDATION_ERROR naming every bad field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:bookings:write", body = ErrorBody),
        (status = 404, description = "BOOKING_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn update_customer(
    State(state): State<AppState>,
    auth: AdminAuth,
    Path(id): Path<String>,
    Json(req): Json<CustomerPatchRequest>,
) -> ApiResult<axum::Json<CustomerPatchResponse>> {
    auth.require(perm::BOOKINGS_WRITE)?;
    let mut errors = FieldErrors::new();
    let name = req
        .customer_name
        .as_deref()
        .map(str::trim)
        .map(str::to_owned);
    if let Some(n) = &name
        && (n.is_empty() || !super::short_text(n, 200))
    {
        errors.add(
            "customerName",
            "must be 1 to 200 characters without control characters",
        );
    }
    let email = match req.customer_email.as_deref().map(str::trim) {
        None => None,
        Some(raw) => match Email::parse(raw) {
            Ok(e) => Some(e.into_string()),
            Err(message) => {
                errors.add("customerEmail", message);
                None
            }
        },
    };
    let phone = req
        .customer_phone
        .as_deref()
        .map(str::trim)
        .map(str::to_owned);
    if let Some(p) = phone.as_deref().filter(|p| !p.is_empty())
        && let Err(message) = validate_phone(p)
    {
        errors.add("customerPhone", message);
    }
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let view = load(&state, &auth, &id).await?;
    let b: Booking = state
        .store
        .update_booking_customer(
            auth.tenant.id(),
            view.booking.id,
            BookingCustomerPatch { name, email, phone },
            &auth.actor(),
            state.now(),
        )
        .await
        .map_err(booking_error)?;
    Ok(axum::Json(CustomerPatchResponse {
        booking_id: b.id.to_string(),
        customer: super::CustomerDto {
            name: b.customer.name.clone(),
            email: b.customer.email.clone(),
            phone: b.customer.phone.clone(),
        },
        updated_at: b.updated_at,
        updated_by: UpdatedBy {
            id: auth.user.id.to_string(),
            name: auth.user.display_name.clone(),
        },
    }))
}
