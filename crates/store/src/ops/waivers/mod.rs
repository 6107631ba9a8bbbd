//! Participants and waivers (spec Part B 2.6, 4.5, 4.8): templates and their versions
//! (`templates.rs`), a booking's participants (`participants.rs`), signatures online and
//! on paper, signing links and the retention purge (`signatures.rs`).
//!
//! A booking's participants live in its `participants` JSON array, each with an id;
//! every change to them, and every signature, locks the booking first, so a signature
//! and an edit of the same booking never interleave.

mod participants;
mod signatures;
mod templates;

pub(crate) use signatures::unsigned_places;

use super::{Db, Repo, dialect};
use crate::{
    BookingWaivers, Participant, StoreError, Timestamp, WaiverError, WaiverSignature,
    WaiverTemplate, stored,
};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::waivers::{ImageFormat, SignatureImage, SignatureMethod, WaiverCheckIn};
use kairos_store_macros::operations;
use sqlx::types::Json;
use uuid::Uuid;

const TEMPLATE_COLUMNS: &str = "id, name, content, content_hash, version, locale, is_active, \
     product_ids, site_ids, created_by, created_at, deactivated_at";

#[derive(kairos_store_macros::FromRow)]
struct TemplateRow {
    id: Uuid,
    name: String,
    content: String,
    content_hash: String,
    version: String,
    locale: String,
    is_active: bool,
    product_ids: Json<Vec<Uuid>>,
    site_ids: Json<Vec<Uuid>>,
    created_by: String,
    created_at: Timestamp,
    deactivated_at: Option<Timestamp>,
}

impl From<TemplateRow> for WaiverTemplate {
    fn from(r: TemplateRow) -> Self {
        WaiverTemplate {
            id: r.id,
            name: r.name,
            content: r.content,
            content_hash: r.content_hash,
            version: r.version,
            locale: r.locale,
            is_active: r.is_active,
            product_ids: r.product_ids.0,
            site_ids: r.site_ids.0,
            created_by: r.created_by,
            created_at: r.created_at,
            deactivated_at: r.deactivated_at,
        }
    }
}

const SIGNATURE_COLUMNS: &str = "id, booking_id, participant_id, participant_name, template_id, \
     template_name, template_version, content_hash, method, signed_by_name, signed_by_email, \
     signature_data, signature_format, is_minor, is_guardian_signature, guardian_relationship, \
     ip_address, user_agent, paper_reference, notes, collected_by, signed_at";

#[derive(kairos_store_macros::FromRow)]
struct SignatureRow {
    id: Uuid,
    booking_id: Uuid,
    participant_id: Option<Uuid>,
    participant_name: String,
    template_id: Option<Uuid>,
    template_name: String,
    template_version: Option<String>,
    content_hash: Option<String>,
    method: String,
    signed_by_name: String,
    signed_by_email: Option<String>,
    signature_data: Option<String>,
    signature_format: Option<String>,
    is_minor: bool,
    is_guardian_signature: bool,
    guardian_relationship: Option<String>,
    ip_address: Option<String>,
    user_agent: Option<String>,
    paper_reference: Option<String>,
    notes: Option<String>,
    collected_by: Option<String>,
    signed_at: Timestamp,
}

impl TryFrom<SignatureRow> for WaiverSignature {
    type Error = StoreError;

    fn try_from(r: SignatureRow) -> Result<Self, StoreError> {
        let image = match (r.signature_data, r.signature_format) {
            (Some(base64), Some(format)) => Some(SignatureImage {
                format: stored("signature format", &format, ImageFormat::parse)?,
                base64,
            }),
            _ => None,
        };
        Ok(WaiverSignature {
            id: r.id,
            booking_id: r.booking_id,
            participant_id: r.participant_id,
            participant_name: r.participant_name,
            template_id: r.template_id,
            template_name: r.template_name,
            template_version: r.template_version,
            content_hash: r.content_hash,
            method: stored("signature method", &r.method, SignatureMethod::parse)?,
            signed_by_name: r.signed_by_name,
            signed_by_email: r.signed_by_email,
            image,
            is_minor: r.is_minor,
            is_guardian_signature: r.is_guardian_signature,
            guardian_relationship: r.guardian_relationship,
            ip_address: r.ip_address,
            user_agent: r.user_agent,
            paper_reference: r.paper_reference,
            notes: r.notes,
            collected_by: r.collected_by,
            signed_at: r.signed_at,
        })
    }
}

#[derive(kairos_store_macros::FromRow)]
struct BookingRow {
    reference: String,
    status: String,
    product_id: Uuid,
    site_id: Uuid,
    requires_waiver: bool,
    waiver_check_in: String,
    party_size: i32,
    starts_at: Timestamp,
    timezone: String,
    locale: String,
    customer_name: String,
    customer_email: String,
    participants: Json<Vec<Participant>>,
}

/// Reads what a booking's waivers depend on; with `lock`, locks the booking first
/// (PostgreSQL), so that signatures and participant changes of one booking take turns.
pub(super) async fn booking_waivers(
    conn: &mut <Db as sqlx::Database>::Connection,
    tenant: &TenantId,
    booking: Uuid,
    lock: bool,
) -> Result<BookingWaivers, WaiverError> {
    let row: Option<BookingRow> = sqlx::query_as(sql!(
        "SELECT b.reference, b.status, b.product_id, b.site_id, p.requires_waiver,
                p.waiver_check_in, b.party_size, b.starts_at, s.timezone, s.locale,
                b.customer_name, b.customer_email, b.participants
         FROM bookings b
         JOIN products p ON p.tenant_id = b.tenant_id AND p.id = b.product_id
         JOIN sites s ON s.tenant_id = b.tenant_id AND s.id = b.site_id
         WHERE b.tenant_id = $1 AND b.id = $2{}",
        if lock { dialect::FOR_UPDATE_OF_B } else { "" }
    ))
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_optional(&mut *conn)
    .await?;
    let r = row.ok_or(WaiverError::BookingNotFound)?;
    let signatures: Vec<SignatureRow> = sqlx::query_as(sql!(
        "SELECT {SIGNATURE_COLUMNS} FROM waiver_signatures
         WHERE tenant_id = $1 AND booking_id = $2 ORDER BY signed_at, id"
    ))
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_all(&mut *conn)
    .await?;
    let templates: Vec<TemplateRow> = sqlx::query_as(sql!(
        "SELECT {TEMPLATE_COLUMNS} FROM waiver_templates
         WHERE tenant_id = $1 AND is_active ORDER BY created_at DESC, id"
    ))
    .bind(tenant.as_str())
    .fetch_all(&mut *conn)
    .await?;
    // Signing links staff sent, and the automatic waiver reminders that went out (for the
    // whole booking).
    let reminders: Vec<(String, Timestamp)> = sqlx::query_as(
        "SELECT subject, MAX(sent_at) FROM waiver_reminders
         WHERE tenant_id = $1 AND booking_id = $2 GROUP BY subject
         UNION ALL
         SELECT 'booking', MAX(f.fired_at) FROM automation_firings f
         JOIN automation_rules r ON r.tenant_id = f.tenant_id AND r.id = f.rule_id
         WHERE f.tenant_id = $1 AND f.booking_id = $2 AND f.outcome = 'sent'
           AND r.template_key = 'waiver_reminder'
         HAVING MAX(f.fired_at) IS NOT NULL",
    )
    .bind(tenant.as_str())
    .bind(booking)
    .fetch_all(&mut *conn)
    .await?;
    let tz = jiff::tz::TimeZone::get(&r.timezone).unwrap_or(jiff::tz::TimeZone::UTC);
    Ok(BookingWaivers {
        booking_id: booking,
        reference: r.reference,
        status: stored("booking status", &r.status, BookingStatus::parse)?,
        product_id: r.product_id,
        site_id: r.site_id,
        requires_waiver: r.requires_waiver,
        check_in: stored("waiver check-in", &r.waiver_check_in, WaiverCheckIn::parse)?,
        party_size: r.party_size,
        starts_at: r.starts_at,
        booking_day: kairos_domain::scheduling::local_date(&tz, r.starts_at),
        timezone: r.timezone,
        site_locale: r.locale,
        customer_name: r.customer_name,
        customer_email: r.customer_email,
        participants: r.participants.0,
        signatures: signatures
            .into_iter()
            .map(WaiverSignature::try_from)
            .collect::<Result<_, _>>()?,
        templates: templates
            .into_iter()
            .map(WaiverTemplate::from)
            .filter(|t| t.covers(r.product_id, r.site_id))
            .collect(),
        reminders,
    })
}

#[operations]
impl Repo {
    /// A booking as its waivers see it; `None` when the tenant has no such booking.
    pub async fn booking_waivers(
        &self,
        tenant: &TenantId,
        booking: Uuid,
    ) -> Result<Option<BookingWaivers>, StoreError> {
        let mut conn = self.read.acquire().await?;
        match booking_waivers(&mut conn, tenant, booking, false).await {
            Ok(b) => Ok(Some(b)),
            Err(WaiverError::BookingNotFound) => Ok(None),
            Err(WaiverError::Store(e)) => Err(e),
            Err(other) => Err(StoreError::Corrupt(other.to_string())),
        }
    }
}
