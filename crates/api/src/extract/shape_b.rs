//! Extractors for the notification endpoints, whose errors are shape B (spec Part B 7):
//! the same checks as [`super::Json`] and [`super::Query`], rendered as
//! `{statusCode, message, error, errors[]}`.

use crate::error::ApiError;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;

/// [`super::Json`] with shape B rejections.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonB<T>(pub T);

impl<S, T> FromRequest<S> for JsonB<T>
where
    S: Send + Sync,
    super::Json<T>: FromRequest<S, Rejection = ApiError>,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        super::Json::<T>::from_request(req, state)
            .await
            .map(|super::Json(v)| JsonB(v))
            .map_err(ApiError::shape_b)
    }
}

/// [`super::Query`] with shape B rejections.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryB<T>(pub T);

impl<S, T> FromRequestParts<S> for QueryB<T>
where
    S: Send + Sync,
    super::Query<T>: FromRequestParts<S, Rejection = ApiError>,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        super::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|super::Query(v)| QueryB(v))
            .map_err(ApiError::shape_b)
    }
}
