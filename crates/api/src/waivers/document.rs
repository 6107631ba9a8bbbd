//! The printable signed waiver (`documentUrl`): the version's text as signed, the
//! participant, the signature image and the evidence, as one HTML page that prints on A4
//! (its styles are `/ui/shared/waiver-print.css`, so it shows the same opened by the
//! console from a copy).

use crate::error::{ApiResult, ErrorBody};
use crate::extract::{Staff, can};
use crate::state::AppState;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use kairos_domain::ids::parse_id;
use kairos_store::WaiverSignature;

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn row(label: &str, value: Option<&str>) -> String {
    value.map_or_else(String::new, |v| {
        format!(
            "<tr><th>{}</th><td>{}</td></tr>\n",
            escape(label),
            escape(v)
        )
    })
}

/// The page of signature `s` for booking `reference`, with the text signed (`content`).
fn page(s: &WaiverSignature, reference: &str, content: Option<&str>) -> String {
    let signed_at = s
        .signed_at
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let image = s.image.as_ref().map_or_else(
        || {
            "<p class=\"muted\">No signature image (a paper waiver: see the filed paper).</p>"
                .to_owned()
        },
        |i| {
            format!(
                "<img class=\"signature\" alt=\"Signature of {}\" src=\"{}\">",
                escape(&s.signed_by_name),
                i.data_url()
            )
        },
    );
    let text = content.map_or_else(
        || "<p class=\"muted\">The text of this waiver is not held (a paper waiver of a kind the venue has not published).</p>".to_owned(),
        |c| format!("<div class=\"text\">{}</div>", escape(c)),
    );
    let method = match s.method {
        kairos_domain::waivers::SignatureMethod::Online => "Signed online",
        kairos_domain::waivers::SignatureMethod::Paper => "Paper waiver collected at the desk",
    };
    let mut evidence = String::new();
    for (label, value) in [
        ("Participant", Some(s.participant_name.as_str())),
        ("Booking", Some(reference)),
        ("Signed by", Some(s.signed_by_name.as_str())),
        ("Signer's email", s.signed_by_email.as_deref()),
        ("Signed at (UTC)", Some(signed_at.as_str())),
        ("How", Some(method)),
        ("Minor", Some(if s.is_minor { "Yes" } else { "No" })),
        (
            "Guardian's signature",
            Some(if s.is_guardian_signature { "Yes" } else { "No" }),
        ),
        (
            "Guardian's relationship",
            s.guardian_relationship.as_deref(),
        ),
        ("Waiver version", s.template_version.as_deref()),
        ("SHA-256 of the text", s.content_hash.as_deref()),
        ("IP address", s.ip_address.as_deref()),
        ("Browser", s.user_agent.as_deref()),
        ("Paper filed as", s.paper_reference.as_deref()),
        ("Collected by", s.collected_by.as_deref()),
        ("Notes", s.notes.as_deref()),
        ("Signature id", Some(&s.id.to_string())),
    ] {
        evidence.push_str(&row(label, value));
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>{title} — {name}</title>\
<link rel=\"stylesheet\" href=\"/ui/shared/waiver-print.css\"></head><body>\n\
<h1>{title}</h1>\n{text}\n<h2>Signature</h2>\n{image}\n<table>\n{evidence}</table>\n</body></html>\n",
        title = escape(&s.template_name),
        name = escape(&s.participant_name),
    )
}

/// The signed waiver as a printable page (HTML): the text of the version signed, the
/// participant, the signature image and the evidence. Needs `admin:bookings:read`.
#[utoipa::path(get, path = "/api/v1/admin/waivers/signatures/{signatureId}/document", tag = "waivers", security(("bearer" = [])),
    params(("signatureId" = uuid::Uuid, Path)),
    responses(
        (status = 200, content_type = "text/html", body = String),
        (status = 403, description = "INSUFFICIENT_PERMISSIONS", body = ErrorBody),
        (status = 404, description = "WAIVER_NOT_FOUND", body = ErrorBody),
    ))]
pub async fn document(
    State(state): State<AppState>,
    auth: Staff<can::ReadBookings>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let not_found = || super::waiver_not_found("Signed waiver not found");
    let id = parse_id(&id).ok_or_else(not_found)?;
    let tenant = auth.tenant.id();
    let s = state
        .store
        .waiver_signature(tenant, id)
        .await?
        .ok_or_else(not_found)?;
    let content = match s.template_id {
        Some(t) => state
            .store
            .waiver_template(tenant, t)
            .await?
            .map(|t| t.content),
        None => None,
    };
    let reference = state
        .store
        .get_booking(tenant, s.booking_id)
        .await?
        .map_or_else(|| s.booking_id.to_string(), |b| b.reference);
    let html = page(&s, &reference, content.as_deref());
    Ok((
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; img-src data:; style-src 'self'; frame-ancestors 'none'",
            ),
            (header::CACHE_CONTROL, "private, no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        html,
    )
        .into_response())
}
