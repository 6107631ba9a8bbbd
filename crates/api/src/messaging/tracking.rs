//! Open and click tracking of emails sent with `trackDelivery` (public, no token: mail
//! programs call them). The delivery worker points a tracked email's pixel and links here
//! (`KAIROS_PUBLIC_URL`).
//!
//! The click endpoint redirects only to a link the message itself contains, so it cannot
//! be used to send people anywhere else.

use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::Query;
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use kairos_domain::TenantId;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;

/// A transparent 1×1 GIF.
const PIXEL: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

fn ids(tenant: &str, message: &str) -> Option<(TenantId, Uuid)> {
    Some((
        TenantId::parse(tenant).ok()?,
        kairos_domain::ids::parse_id(message)?,
    ))
}

/// The open pixel: records the first open of a tracked message; the same image whether
/// or not the message exists (a malformed id is 404).
#[utoipa::path(get, path = "/track/{tenantId}/{messageId}/open.gif", tag = "messaging", security(()),
    params(("tenantId" = String, Path), ("messageId" = Uuid, Path)),
    responses((status = 200, description = "A transparent 1×1 GIF", content_type = "image/gif", body = Vec<u8>),
        (status = 404, description = "NOT_FOUND: the tenant or message id is malformed", body = ErrorBody)))]
pub async fn open_pixel(
    State(state): State<AppState>,
    Path((tenant, message)): Path<(String, String)>,
) -> ApiResult<Response> {
    let (tenant, id) = ids(&tenant, &message).ok_or_else(|| ApiError::not_found("Message"))?;
    state
        .store
        .track_message(&tenant, id, false, state.now())
        .await?;
    let mut response = (StatusCode::OK, PIXEL).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/gif"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// Query of the click endpoint.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ClickQuery {
    /// The link as the message contains it.
    #[param(required = true, max_length = 2000)]
    pub url: Option<String>,
}

/// A tracked link: records the first click (and an open) and redirects to the link.
#[utoipa::path(get, path = "/track/{tenantId}/{messageId}/click", tag = "messaging", security(()),
    params(("tenantId" = String, Path), ("messageId" = Uuid, Path), ClickQuery),
    responses((status = 302, description = "To the link"),
        (status = 404, description = "NOT_FOUND: no such tracked message, or the link is not in it", body = ErrorBody)))]
pub async fn click(
    State(state): State<AppState>,
    Path((tenant, message)): Path<(String, String)>,
    Query(q): Query<ClickQuery>,
) -> ApiResult<Response> {
    let not_found = || ApiError::not_found("Tracked link");
    let (tenant, id) = ids(&tenant, &message).ok_or_else(not_found)?;
    let url = q
        .url
        .filter(|u| u.starts_with("http://") || u.starts_with("https://"));
    let url = url.ok_or_else(not_found)?;
    let m = state
        .store
        .get_message(&tenant, id)
        .await?
        .filter(|m| m.track_delivery)
        .ok_or_else(not_found)?;
    let escaped = url.replace('&', "&amp;");
    let contained = m.body.contains(&format!("href=\"{url}\""))
        || m.body.contains(&format!("href=\"{escaped}\""));
    if !contained {
        return Err(not_found());
    }
    state
        .store
        .track_message(&tenant, id, true, state.now())
        .await?;
    let location = HeaderValue::from_str(&url).map_err(|_| not_found())?;
    let mut response = StatusCode::FOUND.into_response();
    response.headers_mut().insert(header::LOCATION, location);
    Ok(response)
}
