//! A query-string extractor whose rejections name the bad parameter.

use crate::error::ApiError;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

/// Like `axum::extract::Query` (repeated parameters fill `Vec` fields), with a 400 `VALIDATION_ERROR` naming the parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = parts.uri.query().unwrap_or_default();
        // serde_html_form reads a repeated parameter (`status=a&status=b`) into a Vec.
        let de = serde_html_form::Deserializer::from_bytes(query.as_bytes());
        serde_path_to_error::deserialize(de)
            .map(Query)
            .map_err(|err| {
                let field = err.path().to_string();
                let message = err.inner().to_string();
                match message.strip_prefix("missing field `") {
                    Some(rest) => {
                        ApiError::invalid_field(rest.trim_end_matches('`'), "is required")
                    }
                    None => ApiError::invalid_field(
                        if field == "." { "query" } else { &field },
                        message,
                    ),
                }
            })
    }
}
