//! `POST /api/v1/admin/messaging/templates/preview` (spec Part B 4.7): a template rendered
//! with sample values, and warnings naming the variables its key does not offer.

use super::error::invalid;
use super::fields::{BODY_MAX, SUBJECT_MAX, channel_choice, text_field};
use crate::error::{ApiResult, ShapeBBody};
use crate::extract::{Json, Staff, can};
use crate::openapi::schemas::TemplateTypeSchema;
use kairos_domain::FieldErrors;
use kairos_domain::messaging::{Channel, catalog, render};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

/// A template to try out.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplatePreviewInput {
    #[schema(max_length = 500)]
    pub subject_template: Option<String>,
    #[schema(min_length = 1, max_length = 100000)]
    pub body_template: Option<String>,
    /// Values of the variables; missing ones take sample values.
    #[schema(value_type = Option<Object>)]
    pub sample_data: Option<Value>,
    /// Default `email` (HTML-escaped values).
    #[schema(value_type = Option<TemplateTypeSchema>)]
    pub template_type: Option<String>,
    /// Whose variables are known (default: the booking variables).
    pub template_key: Option<String>,
}

/// The rendered template.
#[derive(Debug, Serialize, ToSchema)]
pub struct TemplatePreview {
    pub subject: String,
    pub body: String,
    /// One per variable the template uses that its key does not offer (it renders empty).
    pub warnings: Vec<String>,
}

/// Render a template with sample data. Needs `admin:read`.
#[utoipa::path(post, path = "/api/v1/admin/messaging/templates/preview", tag = "messaging", security(("bearer" = [])),
    request_body = TemplatePreviewInput,
    responses((status = 200, body = TemplatePreview),
        (status = 400, description = "Shape B with errors[]: a missing field, sampleData not an object, a template that does not parse or render", body = ShapeBBody),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS or TENANT_MISMATCH (shape B)", body = ShapeBBody)))]
pub async fn preview_template(
    _auth: Staff<can::Read>,
    Json(input): Json<TemplatePreviewInput>,
) -> ApiResult<axum::Json<TemplatePreview>> {
    let mut errors = FieldErrors::new();
    let subject = input.subject_template.unwrap_or_default();
    let body = text_field(&mut errors, "bodyTemplate", input.body_template, true);
    let channel =
        channel_choice(&mut errors, input.template_type.as_deref()).unwrap_or(Channel::Email);
    if subject.chars().count() > SUBJECT_MAX {
        errors.add(
            "subjectTemplate",
            format!("must be at most {SUBJECT_MAX} characters"),
        );
    }
    if body.as_ref().is_some_and(|b| b.chars().count() > BODY_MAX) {
        errors.add(
            "bodyTemplate",
            format!("must be at most {BODY_MAX} characters"),
        );
    }
    let mut data = catalog::sample_data();
    match input.sample_data {
        None | Some(Value::Null) => {}
        Some(Value::Object(given)) => {
            if let Value::Object(map) = &mut data {
                map.extend(given);
            }
        }
        Some(_) => errors.add("sampleData", "must be an object"),
    }
    let Some(body) = body else {
        return Err(invalid(errors));
    };
    errors.finish().map_err(invalid)?;
    let known = catalog::variables_of(input.template_key.as_deref());
    let rendered = render::render(&subject, &body, channel, &data, &known).map_err(|p| {
        let mut errors = FieldErrors::new();
        errors.add(p.field, p.message);
        invalid(errors)
    })?;
    Ok(axum::Json(TemplatePreview {
        subject: rendered.subject,
        body: rendered.body,
        warnings: rendered.warnings,
    }))
}
