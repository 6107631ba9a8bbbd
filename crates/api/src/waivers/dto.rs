//! The waiver shapes (spec Part B 2.6, 4.5).

use chrono::{DateTime, Utc};
use kairos_store::{BookingWaivers, Participant, WaiverSignature, WaiverTemplate};
use serde::Serialize;
use utoipa::ToSchema;

/// A waiver template (one text in one language at one version).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaiverTemplateDto {
    pub id: String,
    pub name: String,
    pub content: String,
    pub version: String,
    pub locale: String,
    pub is_active: bool,
    /// Empty: every product.
    pub product_ids: Vec<String>,
    /// Empty: every site.
    pub site_ids: Vec<String>,
    /// SHA-256 of `content`, hex: kept with every signature of this version.
    pub content_hash: String,
    pub created_at: DateTime<Utc>,
    pub deactivated_at: Option<DateTime<Utc>>,
}

impl WaiverTemplateDto {
    pub fn of(t: &WaiverTemplate) -> Self {
        WaiverTemplateDto {
            id: t.id.to_string(),
            name: t.name.clone(),
            content: t.content.clone(),
            version: t.version.clone(),
            locale: t.locale.clone(),
            is_active: t.is_active,
            product_ids: t.product_ids.iter().map(ToString::to_string).collect(),
            site_ids: t.site_ids.iter().map(ToString::to_string).collect(),
            content_hash: t.content_hash.clone(),
            created_at: t.created_at,
            deactivated_at: t.deactivated_at,
        }
    }
}

/// The waiver a signer reads.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActiveWaiver {
    pub id: String,
    pub name: String,
    pub content: String,
    pub version: String,
    pub locale: String,
    pub is_active: bool,
}

impl ActiveWaiver {
    pub fn of(t: &WaiverTemplate) -> Self {
        ActiveWaiver {
            id: t.id.to_string(),
            name: t.name.clone(),
            content: t.content.clone(),
            version: t.version.clone(),
            locale: t.locale.clone(),
            is_active: t.is_active,
        }
    }
}

/// A signed waiver and its evidence.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignatureDto {
    pub signature_id: String,
    pub booking_id: String,
    /// Null: the whole booking (the legacy endpoint).
    pub participant_id: Option<String>,
    pub participant_name: String,
    pub template_id: Option<String>,
    /// The waiver's name (a paper waiver's type).
    pub waiver_type: String,
    pub template_version: Option<String>,
    /// SHA-256 of the text signed.
    pub content_hash: Option<String>,
    /// online or paper.
    pub method: String,
    pub signed_at: DateTime<Utc>,
    pub signed_by_email: Option<String>,
    pub signed_by_name: String,
    /// A `data:` URL of the PNG or SVG signature image.
    pub signature_data: Option<String>,
    pub is_minor: bool,
    pub is_guardian_signature: bool,
    pub guardian_relationship: Option<String>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub paper_waiver_reference: Option<String>,
    pub notes: Option<String>,
    pub collected_by: Option<String>,
    /// The printable document (staff).
    pub document_url: String,
}

/// Where a signature's printable document is.
pub fn document_url(id: uuid::Uuid) -> String {
    format!("/api/v1/admin/waivers/signatures/{id}/document")
}

impl SignatureDto {
    pub fn of(s: &WaiverSignature) -> Self {
        SignatureDto {
            signature_id: s.id.to_string(),
            booking_id: s.booking_id.to_string(),
            participant_id: s.participant_id.map(|p| p.to_string()),
            participant_name: s.participant_name.clone(),
            template_id: s.template_id.map(|t| t.to_string()),
            waiver_type: s.template_name.clone(),
            template_version: s.template_version.clone(),
            content_hash: s.content_hash.clone(),
            method: s.method.as_str().to_owned(),
            signed_at: s.signed_at,
            signed_by_email: s.signed_by_email.clone(),
            signed_by_name: s.signed_by_name.clone(),
            signature_data: s
                .image
                .as_ref()
                .map(kairos_domain::waivers::SignatureImage::data_url),
            is_minor: s.is_minor,
            is_guardian_signature: s.is_guardian_signature,
            guardian_relationship: s.guardian_relationship.clone(),
            ip_address: s.ip_address.clone(),
            user_agent: s.user_agent.clone(),
            paper_waiver_reference: s.paper_reference.clone(),
            notes: s.notes.clone(),
            collected_by: s.collected_by.clone(),
            document_url: document_url(s.id),
        }
    }
}

/// One participant's waiver (spec Part B 2.6).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ParticipantWaiverStatus {
    pub participant_id: String,
    pub participant_name: String,
    pub participant_type: Option<String>,
    pub is_minor: bool,
    pub requires_waiver: bool,
    pub is_signed: bool,
    pub signature_id: Option<String>,
    pub signed_at: Option<DateTime<Utc>>,
    pub signed_by_email: Option<String>,
    pub signed_by_name: Option<String>,
    pub is_guardian_signature: Option<bool>,
    pub guardian_relationship: Option<String>,
}

impl ParticipantWaiverStatus {
    pub fn of(b: &BookingWaivers, p: &Participant) -> Self {
        let s = b.signature_of(p.id);
        ParticipantWaiverStatus {
            participant_id: p.id.to_string(),
            participant_name: p.full_name(),
            participant_type: p.participant_type.clone(),
            is_minor: b.is_minor(p),
            requires_waiver: b.requires_waiver,
            is_signed: s.is_some(),
            signature_id: s.map(|s| s.id.to_string()),
            signed_at: s.map(|s| s.signed_at),
            signed_by_email: s.and_then(|s| s.signed_by_email.clone()),
            signed_by_name: s.map(|s| s.signed_by_name.clone()),
            is_guardian_signature: s.map(|s| s.is_guardian_signature),
            guardian_relationship: s.and_then(|s| s.guardian_relationship.clone()),
        }
    }
}
