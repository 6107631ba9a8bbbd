//! Customer booking history (spec Part A 2.3 and 4.11): the administrator's view of one
//! customer's bookings with lifetime statistics, and the customer's own bookings.

use super::BookingResponse;
use super::admin_search::Pagination;
use super::notes::NoteDto;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AdminAuth, CustomerAuth, Query, Staff, bool_param, can, page_param};
use crate::openapi::schemas::BookingStatusSchema;
use crate::state::AppState;
use axum::extract::{Path, State};
use chrono::{DateTime, NaiveDate, NaiveTime, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::ids::parse_id;
use kairos_store::{BookingFilter, BookingSort, BookingView, Customer};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use utoipa::{IntoParams, ToSchema};

/// The largest `limit` the history endpoints accept.
pub const MAX_LIMIT: u32 = 100;

// ─────────────────────── administrator: a customer's history ───────────────────────

/// Query of `GET /admin/customers/{identifier}/bookings` (camelCase).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct CustomerHistoryQuery {
    /// List completed bookings (default true).
    #[param(value_type = Option<bool>)]
    pub include_completed: Option<String>,
    /// List canceled and expired bookings (default false).
    #[param(value_type = Option<bool>)]
    pub include_cancelled: Option<String>,
    /// How many bookings to list, newest start first: 1 to 100, default 50.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

/// Who the customer is and what they have booked, over all their bookings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerSummary {
    /// The identifier of the path, trimmed (an email in lower case).
    pub identifier: String,
    /// The name on the most recently made booking that has one, else the account's
    /// display name.
    pub name: String,
    /// Every booking found, in any status (holds, cancellations and expired holds too).
    pub total_bookings: u64,
    /// Sum of the grand totals of the bookings in status tentative, confirmed, part_paid,
    /// paid, arrived, completed or no_show, in major units of `currency`.
    pub lifetime_value: f64,
    /// The currency of the money amounts (that of the customer's most recent booking, else
    /// the tenant's).
    #[schema(example = "EUR")]
    pub currency: String,
    /// The earliest start time of any of the customer's bookings.
    pub first_booking_date: Option<DateTime<Utc>>,
    /// The latest start time of any of the customer's bookings.
    pub last_booking_date: Option<DateTime<Utc>>,
}

/// A booking in a customer's history.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryBooking {
    pub booking_id: String,
    #[schema(example = "K7QXM2PA")]
    pub booking_reference: String,
    #[schema(value_type = BookingStatusSchema, example = "confirmed")]
    pub status: String,
    pub start_time: DateTime<Utc>,
    /// The product's name.
    pub product: String,
    /// The site's name.
    pub site: String,
    pub party_size: i32,
    /// Grand total in major units of `currency`.
    pub total: f64,
    #[schema(example = "EUR")]
    pub currency: String,
    /// The booking's notes, oldest first.
    pub notes: Vec<NoteDto>,
    /// Issues logged against the booking, newest first.
    pub issues: Vec<crate::issues::IssueSummary>,
}

/// Statistics over all the customer's bookings (not only the listed ones).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CustomerStatistics {
    /// Bookings in status completed.
    pub completed_bookings: u64,
    /// Bookings in status canceled (expired holds are not counted).
    pub cancelled_bookings: u64,
    /// Bookings in status no_show.
    pub no_shows: u64,
    /// Mean party size of every booking that did not expire (0 when none), to 2 decimals.
    pub average_party_size: f64,
    /// Lifetime value divided by the number of bookings it sums (0 when none), rounded
    /// to the currency's minor unit.
    pub average_booking_value: f64,
    /// The product name booked most often (ties: the alphabetically first); null without
    /// bookings.
    pub favorite_product: Option<String>,
    /// The site name booked at most often (ties: the alphabetically first); null without
    /// bookings.
    pub favorite_site: Option<String>,
}

/// `GET /admin/customers/{identifier}/bookings`.
#[derive(Debug, Serialize, ToSchema)]
pub struct CustomerHistory {
    pub customer: CustomerSummary,
    pub bookings: Vec<HistoryBooking>,
    pub statistics: CustomerStatistics,
}

/// Who an identifier names: the customer account (if any) and the bookings found.
struct Found {
    identifier: String,
    account: Option<Customer>,
    bookings: Vec<BookingView>,
}

/// Resolves an identifier: an email (contains '@'; bookings with that email and those of
/// the account with it), a customer account id (the account's bookings and those made
/// with its email), else a phone number (bookings whose phone has the same digits).
async fn find(state: &AppState, auth: &AdminAuth, raw: &str) -> ApiResult<Found> {
    let tenant = auth.tenant.id();
    let raw = raw.trim();
    if raw.contains('@') {
        let email = raw.to_lowercase();
        let account = state.store.find_customer_by_email(tenant, &email).await?;
        let bookings = state
            .store
            .bookings_of_customer(
                tenant,
                account.as_ref().map(|c| c.id),
                Some(email.clone()),
                None,
            )
            .await?;
        return Ok(Found {
            identifier: email,
            account,
            bookings,
        });
    }
    if let Some(id) = parse_id(raw) {
        // An id that names no customer account names nobody.
        let account = state
            .store
            .get_customer(tenant, id)
            .await?
            .ok_or_else(|| ApiError::not_found("Customer"))?;
        let bookings = state
            .store
            .bookings_of_customer(tenant, Some(account.id), Some(account.email.clone()), None)
            .await?;
        return Ok(Found {
            identifier: raw.to_owned(),
            account: Some(account),
            bookings,
        });
    }
    let bookings = state
        .store
        .bookings_of_customer(tenant, None, None, Some(raw.to_owned()))
        .await?;
    Ok(Found {
        identifier: raw.to_owned(),
        account: None,
        bookings,
    })
}

/// The most frequent name; ties go to the alphabetically first. `None` without names.
fn favorite<'a>(names: impl Iterator<Item = &'a str>) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for name in names {
        *counts.entry(name).or_default() += 1;
    }
    let mut best: Option<(&str, usize)> = None;
    for (name, count) in counts {
        if best.is_none_or(|(_, c)| count > c) {
            best = Some((name, count));
        }
    }
    best.map(|(name, _)| name.to_owned())
}

fn count(views: &[BookingView], status: BookingStatus) -> u64 {
    views.iter().filter(|v| v.booking.status == status).count() as u64
}

/// Summary and statistics over every booking found (see the field documentation).
fn summarize(found: &Found, tenant_currency: &str) -> (CustomerSummary, CustomerStatistics) {
    let views = &found.bookings;
    let currency = views.first().map_or_else(
        || tenant_currency.to_owned(),
        |v| v.booking.price.currency.clone(),
    );
    let valued: Vec<i64> = views
        .iter()
        .filter(|v| v.booking.status.is_revenue())
        .map(|v| v.booking.price.total)
        .collect();
    let lifetime: i64 = valued.iter().sum();
    let average_value = if valued.is_empty() {
        0.0
    } else {
        let avg_minor = (lifetime as f64 / valued.len() as f64).round() as i64;
        super::major(avg_minor, &currency)
    };
    let parties: Vec<i64> = views
        .iter()
        .filter(|v| v.booking.status != BookingStatus::Expired)
        .map(|v| i64::from(v.booking.party_size))
        .collect();
    let average_party = if parties.is_empty() {
        0.0
    } else {
        let mean = parties.iter().sum::<i64>() as f64 / parties.len() as f64;
        (mean * 100.0).round() / 100.0
    };
    let name = views
        .iter()
        .filter(|v| !v.booking.customer.name.trim().is_empty())
        .max_by_key(|v| (v.booking.created_at, v.booking.id))
        .map(|v| v.booking.customer.name.clone())
        .or_else(|| found.account.as_ref().map(Customer::display_name))
        .unwrap_or_else(|| found.identifier.clone());
    let summary = CustomerSummary {
        identifier: found.identifier.clone(),
        name,
        total_bookings: views.len() as u64,
        lifetime_value: super::major(lifetime, &currency),
        currency,
        first_booking_date: views.iter().map(|v| v.booking.starts_at).min(),
        last_booking_date: views.iter().map(|v| v.booking.starts_at).max(),
    };
    let statistics = CustomerStatistics {
        completed_bookings: count(views, BookingStatus::Completed),
        cancelled_bookings: count(views, BookingStatus::Canceled),
        no_shows: count(views, BookingStatus::NoShow),
        average_party_size: average_party,
        average_booking_value: average_value,
        favorite_product: favorite(views.iter().map(|v| v.product_name.as_str())),
        favorite_site: favorite(views.iter().map(|v| v.site_name.as_str())),
    };
    (summary, statistics)
}

/// A customer's booking history.
///
/// `identifier` is an email (anything containing '@': bookings made with that email plus
/// those of the customer account with it), a customer account id (the account's bookings
/// plus those made with its email) or a phone number (bookings whose phone has the same
/// digits). An identifier that matches no booking and no account, or an id that names no
/// customer account, is 404.
///
/// `bookings` lists up to `limit` bookings, newest start first: completed ones unless
/// `includeCompleted=false`, canceled and expired ones only with `includeCancelled=true`;
/// each with its notes. `customer` and `statistics` always cover every booking found,
/// whatever the filters: see their fields for the exact definitions. Money is in major
/// units.
#[utoipa::path(get, path = "/api/v1/admin/customers/{identifier}/bookings", tag = "admin-bookings",
    security(("bearer" = [])),
    params(
        ("identifier" = String, Path, description = "Email, customer account id or phone number (URL-encoded)"),
        CustomerHistoryQuery,
    ),
    responses(
        (status = 200, description = "The customer's summary, bookings and statistics", body = CustomerHistory),
        (status = 400, description = "VALIDATION_ERROR naming includeCompleted, includeCancelled or limit", body = ErrorBody),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS: needs admin:customers:read", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no booking and no account matches the identifier", body = ErrorBody),
    ))]
pub async fn customer_bookings(
    State(state): State<AppState>,
    auth: Staff<can::ReadCustomers>,
    Path(identifier): Path<String>,
    Query(q): Query<CustomerHistoryQuery>,
) -> ApiResult<axum::Json<CustomerHistory>> {
    let mut errors = FieldErrors::new();
    let include_completed = bool_param(
        &mut errors,
        "includeCompleted",
        q.include_completed.as_deref(),
        true,
    );
    let include_cancelled = bool_param(
        &mut errors,
        "includeCancelled",
        q.include_cancelled.as_deref(),
        false,
    );
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 50, MAX_LIMIT);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let found = find(&state, &auth, &identifier).await?;
    if found.bookings.is_empty() && found.account.is_none() {
        return Err(ApiError::not_found("Customer"));
    }
    let (customer, statistics) = summarize(&found, &auth.tenant.0.currency);
    let listed: Vec<&BookingView> = found
        .bookings
        .iter()
        .filter(|v| match v.booking.status {
            BookingStatus::Completed => include_completed,
            BookingStatus::Canceled | BookingStatus::Expired => include_cancelled,
            _ => true,
        })
        .take(usize::try_from(limit).unwrap_or(50))
        .collect();
    let mut notes: HashMap<uuid::Uuid, Vec<NoteDto>> = HashMap::new();
    for note in state
        .store
        .list_notes(
            auth.tenant.id(),
            listed.iter().map(|v| v.booking.id).collect(),
        )
        .await?
    {
        notes
            .entry(note.booking_id)
            .or_default()
            .push(NoteDto::from(&note));
    }
    let now = state.now();
    let mut issues: HashMap<uuid::Uuid, Vec<crate::issues::IssueSummary>> = HashMap::new();
    for issue in state
        .store
        .issues_of_bookings(
            auth.tenant.id(),
            listed.iter().map(|v| v.booking.id).collect(),
        )
        .await?
    {
        if let Some(b) = issue.booking_id {
            issues
                .entry(b)
                .or_default()
                .push(crate::issues::IssueSummary::of(&issue, now));
        }
    }
    let bookings = listed
        .into_iter()
        .map(|v| {
            let b = &v.booking;
            HistoryBooking {
                booking_id: b.id.to_string(),
                booking_reference: b.reference.clone(),
                status: b.status.as_str().to_owned(),
                start_time: b.starts_at,
                product: v.product_name.clone(),
                site: v.site_name.clone(),
                party_size: b.party_size,
                total: super::major(b.price.total, &b.price.currency),
                currency: b.price.currency.clone(),
                notes: notes.remove(&b.id).unwrap_or_default(),
                issues: issues.remove(&b.id).unwrap_or_default(),
            }
        })
        .collect();
    Ok(axum::Json(CustomerHistory {
        customer,
        bookings,
        statistics,
    }))
}

// ─────────────────────────── customer: my bookings ───────────────────────────

/// Query of `GET /customers/me/bookings`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MyBookingsQuery {
    /// Only these statuses; repeat the parameter for several (`status=paid&status=confirmed`)
    /// or separate them with commas. Default: every status.
    #[serde(default)]
    #[param(value_type = Vec<BookingStatusSchema>)]
    pub status: Vec<String>,
    /// YYYY-MM-DD: bookings starting on or after this UTC day.
    #[param(example = "2026-11-01", value_type = Option<chrono::NaiveDate>)]
    pub from: Option<String>,
    /// YYYY-MM-DD: bookings starting on or before this UTC day (inclusive).
    #[param(example = "2026-11-30", value_type = Option<chrono::NaiveDate>)]
    pub to: Option<String>,
    /// Page number, from 1 (default 1).
    #[param(value_type = Option<u32>, minimum = 1)]
    pub page: Option<String>,
    /// Bookings per page: 1 to 100, default 20.
    #[param(value_type = Option<u32>, minimum = 1, maximum = 100)]
    pub limit: Option<String>,
}

/// `GET /customers/me/bookings`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MyBookings {
    pub bookings: Vec<BookingResponse>,
    pub pagination: Pagination,
}

/// An optional date filter (empty: none).
fn date_param(errors: &mut FieldErrors, field: &str, raw: Option<&str>) -> Option<NaiveDate> {
    let raw = raw.map(str::trim).filter(|s| !s.is_empty())?;
    crate::extract::date_param(errors, field, raw)
}

fn start_of(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

/// The signed-in customer's bookings, newest start first.
///
/// Lists the bookings that belong to the customer's account: those made while signed in,
/// and those staff made for the account's email once the account existed. Anonymous
/// bookings under the same email are not included (anyone can type an email). `from` and `to` are UTC days on the start time, both
/// inclusive; `totalPages` is 0 when nothing matches and a page past the end is empty.
#[utoipa::path(get, path = "/api/v1/customers/me/bookings", tag = "customers",
    security(("bearer" = [])),
    params(
        MyBookingsQuery,
    ),
    responses(
        (status = 200, description = "A page of the customer's bookings", body = MyBookings),
        (status = 400, description = "VALIDATION_ERROR naming status, from, to, page or limit", body = ErrorBody),
        (status = 401, description = "UNAUTHORIZED: missing or invalid token", body = ErrorBody),
        (status = 403, description = "Not a customer token, or another tenant's", body = ErrorBody),
    ))]
pub async fn my_bookings(
    State(state): State<AppState>,
    auth: CustomerAuth,
    Query(q): Query<MyBookingsQuery>,
) -> ApiResult<axum::Json<MyBookings>> {
    let mut errors = FieldErrors::new();
    let mut statuses = Vec::new();
    for value in q.status.iter().flat_map(|s| s.split(',')) {
        let value = value.trim();
        if value.is_empty() {
            continue;
        }
        match BookingStatus::parse(value) {
            Some(s) if !statuses.contains(&s) => statuses.push(s),
            Some(_) => {}
            None => {
                let all: Vec<&str> = BookingStatus::ALL.iter().map(|s| s.as_str()).collect();
                errors.add(
                    "status",
                    format!("'{value}' is not a status; use {}", all.join(", ")),
                );
            }
        }
    }
    let from = date_param(&mut errors, "from", q.from.as_deref());
    let to = date_param(&mut errors, "to", q.to.as_deref());
    if let (Some(f), Some(t)) = (from, to)
        && t < f
    {
        errors.add("to", "must not be before from");
    }
    let page = page_param(&mut errors, "page", q.page.as_deref(), 1, u32::MAX);
    let limit = page_param(&mut errors, "limit", q.limit.as_deref(), 20, MAX_LIMIT);
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let filter = BookingFilter {
        customer_id: Some(auth.customer.id),
        statuses,
        starts_from: from.map(start_of),
        starts_before: to.and_then(|t| t.succ_opt()).map(start_of),
        ..Default::default()
    };
    let found = state
        .store
        .search_bookings(
            auth.tenant.id(),
            filter,
            BookingSort::StartTime,
            true,
            page,
            limit,
        )
        .await?;
    Ok(axum::Json(MyBookings {
        bookings: found
            .items
            .iter()
            .map(|v| BookingResponse::of(&v.booking, None))
            .collect(),
        pagination: Pagination::new(page, limit, found.total),
    }))
}

#[cfg(test)]
mod tests {
    use super::favorite;

    #[test]
    fn favorite_is_the_most_frequent_name_and_ties_go_alphabetically() {
        assert_eq!(favorite(std::iter::empty()), None);
        assert_eq!(
            favorite(["Kayak", "Archery", "Kayak"].into_iter()),
            Some("Kayak".to_owned())
        );
        assert_eq!(
            favorite(["Kayak", "Climbing", "Archery", "Kayak", "Archery"].into_iter()),
            Some("Archery".to_owned())
        );
        assert_eq!(favorite(["b", "a"].into_iter()), Some("a".to_owned()));
    }
}
