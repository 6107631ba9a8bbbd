//! `GET /admin/day-sheet`: a site's day at the front desk, every slot with its seats and the
//! bookings in it, read at one moment. Answers an `ETag`; a desk polling with
//! `If-None-Match` gets 304 until something on the sheet changes.

use super::admin_search::SearchCustomer;
use super::major;
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{Query, Staff, can, date_param};
use crate::openapi::schemas::BookingStatusSchema;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDate, Utc};
use kairos_domain::FieldErrors;
use kairos_domain::bookings::{Trigger, transition};
use kairos_domain::ids::parse_id;
use kairos_domain::scheduling::{local_date, start_of_day};
use kairos_domain::tenancy::parse_time_zone;
use kairos_store::{DaySheet, DaySheetBooking, DaySheetResource};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};

/// Query of `GET /admin/day-sheet`.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query, rename_all = "camelCase")]
pub struct DaySheetQuery {
    /// The site (required).
    #[param(value_type = uuid::Uuid)]
    pub site_id: Option<String>,
    /// The day in the site's time zone, YYYY-MM-DD; default today there.
    #[param(value_type = Option<String>, format = Date)]
    pub date: Option<String>,
}

/// A site's day: its products, each with its slots and their bookings.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaySheetDto {
    pub site_id: String,
    pub site_name: String,
    /// The day, in the site's time zone.
    #[schema(format = Date, example = "2026-11-22")]
    pub date: String,
    /// IANA name of the site's time zone: times are shown in it.
    #[schema(example = "Europe/Helsinki")]
    pub timezone: String,
    /// ISO 4217; every amount on the sheet is in it, in major units.
    #[schema(example = "EUR")]
    pub currency: String,
    /// When the sheet was read.
    pub generated_at: DateTime<Utc>,
    pub products: Vec<DaySheetProduct>,
    pub totals: DaySheetTotals,
}

/// A product with its slots of the day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaySheetProduct {
    pub product_id: String,
    pub product_name: String,
    pub slots: Vec<DaySheetSlotDto>,
}

/// A slot with its seats and the bookings starting in it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaySheetSlotDto {
    pub slot_id: String,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    pub capacity: i32,
    /// Seats taken, holds included.
    pub booked: i32,
    /// Seats still free (never below 0).
    pub available: i32,
    /// The schedule no longer has this slot; its bookings are kept (spec Part B 4.12).
    pub orphaned: bool,
    /// Every booking of the slot but expired holds, cancelled ones included.
    pub bookings: Vec<DaySheetBookingDto>,
    /// What the session was given while it has a booking: the rooms and equipment its
    /// product needs, and the staff chosen for its skills.
    pub resources: Vec<SheetResourceDto>,
}

/// A room, piece of equipment or staff member in use, and when.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SheetResourceDto {
    pub resource_id: String,
    pub name: String,
    /// ROOM, EQUIPMENT, VEHICLE, STAFF or OTHER.
    pub resource_type: String,
    /// The skill a staff member serves the session with.
    pub skill_name: Option<String>,
    pub starts_at: DateTime<Utc>,
    pub ends_at: DateTime<Utc>,
}

fn resource_dto(r: &DaySheetResource) -> SheetResourceDto {
    SheetResourceDto {
        resource_id: r.resource_id.to_string(),
        name: r.name.clone(),
        resource_type: r.resource_type.clone(),
        skill_name: r.skill_name.clone(),
        starts_at: r.starts_at,
        ends_at: r.ends_at,
    }
}

/// A booking as the desk sees it.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaySheetBookingDto {
    pub booking_id: String,
    pub booking_reference: String,
    #[schema(value_type = BookingStatusSchema)]
    pub status: String,
    pub party_size: i32,
    pub customer: SearchCustomer,
    pub grand_total: f64,
    pub paid_amount: f64,
    /// grandTotal less paidAmount, never below 0.
    pub balance_due: f64,
    /// The method it was confirmed with (poa, cardpay, …); null for a hold.
    pub payment_method: Option<String>,
    /// Staff's internal notes given when it was created.
    pub admin_notes: Option<String>,
    /// Notes on the booking (`GET /admin/bookings/{bookingId}/notes`).
    pub notes_count: i64,
    /// Issues on the booking still open or in progress (`GET /admin/issues`).
    pub open_issues: i64,
    /// What the desk may do to it now by the status table (spec Part A 3.1): any of
    /// mark_paid, mark_arrived, mark_completed, mark_no_show, cancel.
    #[schema(example = json!(["mark_arrived", "mark_no_show", "cancel"]))]
    pub actions: Vec<String>,
    /// The booking's resource add-ons (a party room after the activity).
    pub resources: Vec<SheetResourceDto>,
}

/// The desk's actions, in the order a page offers them.
const DESK_ACTIONS: [Trigger; 5] = [
    Trigger::MarkPaid,
    Trigger::MarkArrived,
    Trigger::MarkCompleted,
    Trigger::MarkNoShow,
    Trigger::Cancel,
];

/// Counts of the day over every slot, cancelled bookings left out.
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaySheetTotals {
    pub bookings: u32,
    /// People expected: party sizes of bookings not cancelled, no-show or held.
    pub guests: i64,
    /// People already arrived or completed.
    pub arrived: i64,
    pub no_shows: u32,
}

fn booking_dto(
    b: &DaySheetBooking,
    resources: &[DaySheetResource],
    currency: &str,
) -> DaySheetBookingDto {
    let k = &b.booking;
    DaySheetBookingDto {
        booking_id: k.id.to_string(),
        booking_reference: k.reference.clone(),
        status: k.status.as_str().to_owned(),
        party_size: k.party_size,
        customer: SearchCustomer {
            name: k.customer.name.clone(),
            email: k.customer.email.clone(),
            phone: k.customer.phone.clone(),
        },
        grand_total: major(k.price.total, currency),
        paid_amount: major(k.paid_amount, currency),
        balance_due: major((k.price.total - k.paid_amount).max(0), currency),
        payment_method: k.payment_method.map(|m| m.as_str().to_owned()),
        admin_notes: k.admin_notes.clone(),
        notes_count: b.notes,
        open_issues: b.open_issues,
        actions: DESK_ACTIONS
            .into_iter()
            .filter(|t| {
                transition(k.status, *t).is_ok()
                    // The balance of a part-paid booking is taken at the desk too.
                    || (*t == Trigger::MarkPaid && k.status == kairos_domain::bookings::BookingStatus::PartPaid)
            })
            .map(|t| t.name().to_owned())
            .collect(),
        resources: resources
            .iter()
            .filter(|r| r.booking_id == Some(k.id))
            .map(resource_dto)
            .collect(),
    }
}

fn sheet_products(
    sheet: DaySheet,
    currency: &str,
    totals: &mut DaySheetTotals,
) -> Vec<DaySheetProduct> {
    use kairos_domain::bookings::BookingStatus as S;
    let mut products: Vec<DaySheetProduct> = Vec::new();
    for s in sheet.slots {
        let slot = s.slot;
        let bookings: Vec<DaySheetBookingDto> = sheet
            .bookings
            .iter()
            .filter(|b| b.booking.slot_id == slot.id)
            .map(|b| {
                let status = b.booking.status;
                if status != S::Canceled {
                    totals.bookings += 1;
                }
                match status {
                    S::Arrived | S::Completed => {
                        totals.arrived += i64::from(b.booking.party_size);
                        totals.guests += i64::from(b.booking.party_size);
                    }
                    S::NoShow => totals.no_shows += 1,
                    S::Tentative | S::Confirmed | S::PartPaid | S::Paid => {
                        totals.guests += i64::from(b.booking.party_size);
                    }
                    S::Hold | S::Canceled | S::Expired => {}
                }
                booking_dto(b, &sheet.resources, currency)
            })
            .collect();
        let dto = DaySheetSlotDto {
            slot_id: slot.id.to_string(),
            start_time: slot.starts_at,
            end_time: slot.ends_at,
            capacity: slot.capacity,
            booked: slot.booked,
            available: (slot.capacity - slot.booked).max(0),
            orphaned: slot.is_orphaned,
            bookings,
            resources: sheet
                .resources
                .iter()
                .filter(|r| r.slot_id == slot.id && r.booking_id.is_none())
                .map(resource_dto)
                .collect(),
        };
        match products.last_mut() {
            Some(p) if p.product_id == slot.product_id.to_string() => p.slots.push(dto),
            _ => products.push(DaySheetProduct {
                product_id: slot.product_id.to_string(),
                product_name: s.product_name,
                slots: vec![dto],
            }),
        }
    }
    products
}

/// A site's day at the front desk: every slot of every product starting that day (in the
/// site's time zone) with its capacity and seats taken, and every booking in it but
/// expired holds, with its status, party, customer, money, and counts of notes and open
/// issues. Needs `admin:bookings:read`. The answer carries an `ETag`; a request with the
/// header `If-None-Match` of the same value is answered 304 with no body (HTTP's
/// conditional request, which browsers make on their own), so desks can poll.
#[utoipa::path(get, path = "/api/v1/admin/day-sheet", tag = "bookings", security(("bearer" = [])),
    params(DaySheetQuery),
    responses(
        (status = 200, body = DaySheetDto,
            headers(("ETag" = String, description = "Changes whenever the sheet does"))),
        (status = 304, description = "The sheet is unchanged since the ETag given"),
        (status = 400, description = "VALIDATION_ERROR", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "NOT_FOUND: no such site", body = ErrorBody)))]
pub async fn day_sheet(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    headers: HeaderMap,
    Query(q): Query<DaySheetQuery>,
) -> ApiResult<Response> {
    let mut errors = FieldErrors::default();
    let site_id = match q.site_id.as_deref().map(str::trim) {
        None | Some("") => {
            errors.add("siteId", "is required");
            None
        }
        Some(raw) => parse_id(raw).or_else(|| {
            errors.add("siteId", "must be a site id");
            None
        }),
    };
    let date: Option<NaiveDate> = q
        .date
        .as_deref()
        .filter(|d| !d.trim().is_empty())
        .and_then(|d| date_param(&mut errors, "date", d));
    let Some(site_id) = site_id else {
        return Err(ApiError::validation(errors));
    };
    if !errors.is_empty() {
        return Err(ApiError::validation(errors));
    }
    let tenant = auth.tenant.id();
    let site = state
        .store
        .get_site(tenant, site_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Site"))?;
    let tz = parse_time_zone(&site.timezone)
        .map_err(|_| ApiError::internal("the site's time zone is unknown"))?;
    let now = state.now();
    let date = date.unwrap_or_else(|| local_date(&tz, now));
    let bounds = date
        .succ_opt()
        .and_then(|next| Some((start_of_day(&tz, date)?, start_of_day(&tz, next)?)));
    let Some((from, to)) = bounds else {
        return Err(ApiError::invalid_field(
            "date",
            "is outside the supported range",
        ));
    };
    let sheet = state.store.day_sheet(tenant, site_id, from, to).await?;
    let mut totals = DaySheetTotals::default();
    let products = sheet_products(sheet, &site.currency, &mut totals);
    let body = DaySheetDto {
        site_id: site.id.to_string(),
        site_name: site.name,
        date: date.to_string(),
        timezone: site.timezone,
        currency: site.currency,
        generated_at: now,
        products,
        totals,
    };
    // The ETag covers the sheet, not when it was read.
    let mut digest = Sha256::new();
    digest.update(serde_json::to_vec(&(&body.products, &body.site_name)).unwrap_or_default());
    let etag = format!("\"{:x}\"", digest.finalize());
    let etag_value = HeaderValue::from_str(&etag).map_err(|_| ApiError::internal("etag"))?;
    if crate::etag::unchanged(&headers, &etag) {
        return Ok((StatusCode::NOT_MODIFIED, [(header::ETAG, etag_value)]).into_response());
    }
    Ok((
        [
            (header::ETAG, etag_value),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        axum::Json(body),
    )
        .into_response())
}
