//! Declarative permissions: a handler states the permission it needs in its signature.
//!
//! `Staff<can::WriteBookings>` is an [`AdminAuth`] whose user holds
//! `admin:bookings:write`; without it the request is answered 403
//! `INSUFFICIENT_PERMISSIONS` before the handler runs. The permission matrix test
//! (`tests/api/permissions.rs`) checks every route against every role.

use super::auth::AdminAuth;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use std::marker::PhantomData;
use std::ops::Deref;

/// A permission a route requires, named by a marker type of [`can`].
pub trait Permission: Send + Sync + 'static {
    /// The permission string (spec Part A section 5).
    const NAME: &'static str;
}

/// A staff member of the request's tenant holding the permission `P`.
#[derive(Debug, Clone)]
pub struct Staff<P> {
    auth: AdminAuth,
    permission: PhantomData<fn() -> P>,
}

impl<P> Deref for Staff<P> {
    type Target = AdminAuth;

    fn deref(&self) -> &AdminAuth {
        &self.auth
    }
}

impl<P: Permission> FromRequestParts<AppState> for Staff<P> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let auth = AdminAuth::from_request_parts(parts, state).await?;
        auth.require(P::NAME)?;
        Ok(Staff {
            auth,
            permission: PhantomData,
        })
    }
}

/// `Option<Staff<P>>`: `None` when the request carries no `Authorization` header (a public
/// caller); a token that is given must be a staff token of the request's tenant holding
/// `P`, with the same answers as `Staff<P>` otherwise (401, 403, `TENANT_MISMATCH`).
impl<P: Permission> OptionalFromRequestParts<AppState> for Staff<P> {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Option<Self>, ApiError> {
        if !parts.headers.contains_key(AUTHORIZATION) {
            return Ok(None);
        }
        <Self as FromRequestParts<AppState>>::from_request_parts(parts, state)
            .await
            .map(Some)
    }
}

macro_rules! permissions {
    ($( $(#[$doc:meta])* $name:ident => $perm:path; )*) => {
        $(
            $(#[$doc])*
            #[derive(Debug, Clone, Copy)]
            pub struct $name;

            impl super::Permission for $name {
                const NAME: &'static str = $perm;
            }
        )*
    };
}

/// The permissions routes require, as types for [`Staff`].
pub mod can {
    use kairos_domain::auth::perm;

    permissions! {
        /// `admin:read`: configuration (catalog, schedules).
        Read => perm::READ;
        /// `admin:write`: change configuration.
        Write => perm::WRITE;
        /// `admin:bookings:read`.
        ReadBookings => perm::BOOKINGS_READ;
        /// `admin:bookings:write`: act on existing bookings.
        WriteBookings => perm::BOOKINGS_WRITE;
        /// `admin:bookings:create`.
        CreateBookings => perm::BOOKINGS_CREATE;
        /// `manage_bookings`: booking groups.
        ManageBookings => perm::MANAGE_BOOKINGS;
        /// `admin:customers:read`: customer history.
        ReadCustomers => perm::CUSTOMERS_READ;
        /// `admin:users:manage`: staff accounts.
        ManageUsers => perm::USERS_MANAGE;
        /// `admin:payments:manage`: payment provider credentials.
        ManagePayments => perm::PAYMENTS_MANAGE;
    }
}
