//! The client address of a request.

use crate::state::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use std::convert::Infallible;
use std::net::SocketAddr;

/// Where a request comes from: the first `X-Forwarded-For` address when the deployment
/// trusts its proxy (`KAIROS_TRUST_FORWARDED_FOR`), else the peer of the connection;
/// `None` when neither is known (a request that did not come over TCP).
#[derive(Debug, Clone)]
pub struct ClientAddress(pub Option<String>);

impl ClientAddress {
    pub fn of(state: &AppState, headers: &HeaderMap, extensions: &http::Extensions) -> Self {
        if state.config.trust_forwarded_for
            && let Some(ip) = forwarded_for(headers)
        {
            return Self(Some(ip));
        }
        Self(
            extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(addr)| addr.ip().to_string()),
        )
    }
}

fn forwarded_for(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("x-forwarded-for")?.to_str().ok()?;
    let first = value.split(',').next()?.trim();
    (!first.is_empty()).then(|| first.to_owned())
}

impl FromRequestParts<AppState> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        Ok(Self::of(state, &parts.headers, &parts.extensions))
    }
}
