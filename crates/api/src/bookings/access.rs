//! Who may act on a booking through the public endpoints, and loading it for them.

use crate::auth::tokens::TokenKind;
use crate::error::{ApiError, ApiResult, code};
use crate::extract::{AdminAuth, CustomerAuth, Permission, Tenant, bearer_token};
use crate::state::AppState;
use axum::extract::FromRequestParts;
use axum::http::StatusCode;
use axum::http::request::Parts;
use kairos_store::{Actor, Booking};
use std::marker::PhantomData;

/// Header carrying the booking token of the public endpoints.
pub const BOOKING_TOKEN_HEADER: &str = "x-booking-token";

/// 404 `BOOKING_NOT_FOUND`.
pub fn booking_not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        code::BOOKING_NOT_FOUND,
        "Booking not found",
    )
}

/// Who calls a public booking endpoint.
#[derive(Debug, Clone)]
pub enum Caller {
    Admin(AdminAuth),
    Customer(CustomerAuth),
    /// No bearer token; maybe a booking token.
    Anonymous,
}

/// The caller of a public booking endpoint and the booking token it sent, if any.
///
/// `S` states what staff callers need (customers and booking-token holders need no
/// permission): `BookingAccess<can::WriteBookings>` answers 403 to staff without
/// `admin:bookings:write` before the handler runs; `BookingAccess<Anyone>` lets any staff
/// member through.
#[derive(Debug, Clone)]
pub struct BookingAccess<S = Anyone> {
    pub tenant: Tenant,
    pub caller: Caller,
    pub booking_token: Option<String>,
    staff_rule: PhantomData<fn() -> S>,
}

/// What a staff caller of a public booking endpoint needs: a [`Permission`], or nothing.
pub trait StaffRule: Send + Sync + 'static {
    const REQUIRED: Option<&'static str>;
}

impl<P: Permission> StaffRule for P {
    const REQUIRED: Option<&'static str> = Some(P::NAME);
}

/// Any staff member may call the endpoint (hold: staff may book on someone's behalf).
#[derive(Debug, Clone, Copy)]
pub struct Anyone;

impl StaffRule for Anyone {
    const REQUIRED: Option<&'static str> = None;
}

impl<S: StaffRule> FromRequestParts<AppState> for BookingAccess<S> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let tenant = Tenant::from_request_parts(parts, state).await?;
        let caller = match bearer_token(&parts.headers) {
            None => Caller::Anonymous,
            Some(token) => match state.tokens.verify(token, state.now())?.kind {
                TokenKind::Admin => {
                    let staff = AdminAuth::from_request_parts(parts, state).await?;
                    if let Some(permission) = S::REQUIRED {
                        staff.require(permission)?;
                    }
                    Caller::Admin(staff)
                }
                TokenKind::Customer => {
                    Caller::Customer(CustomerAuth::from_request_parts(parts, state).await?)
                }
            },
        };
        let booking_token = parts
            .headers
            .get(BOOKING_TOKEN_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        Ok(BookingAccess {
            tenant,
            caller,
            booking_token,
            staff_rule: PhantomData,
        })
    }
}

impl<S> BookingAccess<S> {
    /// Whether the caller may see and act on `booking`: its token holder, its customer,
    /// or staff (whose permission the extractor checked).
    pub fn may_access(&self, booking: &Booking) -> bool {
        let token_ok = self
            .booking_token
            .as_deref()
            .is_some_and(|t| kairos_domain::ids::secret_hash(t) == booking.token_hash);
        token_ok
            || match &self.caller {
                Caller::Admin(_) => true,
                Caller::Customer(c) => booking.customer.id == Some(c.customer.id),
                Caller::Anonymous => false,
            }
    }

    /// Who is calling, for idempotency: the account behind a bearer token, else
    /// `anonymous` (booking-token holders and anonymous holds share this scope, so their
    /// keys should be unguessable, e.g. UUIDs).
    pub fn caller_key(&self) -> String {
        match &self.caller {
            Caller::Admin(a) => format!("admin:{}", a.user.id),
            Caller::Customer(c) => format!("customer:{}", c.customer.id),
            Caller::Anonymous => "anonymous".to_owned(),
        }
    }

    /// Staff act without the customer's policy window.
    pub fn is_staff(&self) -> bool {
        matches!(self.caller, Caller::Admin(_))
    }

    pub fn actor(&self, booking: &Booking) -> Actor {
        match &self.caller {
            Caller::Admin(a) => a.actor(),
            Caller::Customer(c) => Actor::customer(c.customer.id, Some(&c.customer.display_name())),
            Caller::Anonymous => Actor {
                kind: kairos_domain::auth::ActorKind::Customer,
                id: booking.customer.id.map(|id| id.to_string()),
                name: Some(format!("booking token of {}", booking.reference)),
            },
        }
    }
}

/// Loads a booking the caller may access; 404 `BOOKING_NOT_FOUND` for anyone who may not
/// see it.
pub async fn accessible_booking<S>(
    state: &AppState,
    access: &BookingAccess<S>,
    raw_id: &str,
) -> ApiResult<Booking> {
    let id = kairos_domain::ids::parse_id(raw_id).ok_or_else(booking_not_found)?;
    state
        .store
        .get_booking(access.tenant.id(), id)
        .await?
        .filter(|b| access.may_access(b))
        .ok_or_else(booking_not_found)
}
