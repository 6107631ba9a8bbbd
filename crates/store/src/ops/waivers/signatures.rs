//! Signatures: signed online (one per participant, or one for the whole booking by the
//! legacy endpoint), collected on paper at the desk, listed, sent for by a signing link,
//! and purged after the tenant's retention.

use super::super::audit::Change;
use super::super::messaging::{
    ChannelOutcome, Compose, Recipient, booking_facts, queue_message_to,
};
use super::super::write::Write;
use super::super::{Db, Repo};
use super::{SIGNATURE_COLUMNS, SignatureRow, booking_waivers, participants};
use crate::{
    Actor, BookingWaivers, PaperWaiver, ParticipantInput, SignatureFilter, SignatureInput,
    StoreError, Timestamp, WaiverError, WaiverSignature,
};
use kairos_domain::bookings::BookingStatus;
use kairos_domain::messaging::Channel;
use kairos_domain::waivers::{BOOKING_SUBJECT, SignatureMethod};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::QueryBuilder;
use uuid::Uuid;

/// Waivers a booking still needs (0 when its product requires none), read in `w`.
pub(crate) async fn unsigned_places(w: &mut Write, booking: Uuid) -> Result<u32, StoreError> {
    let tenant = w.tenant.clone();
    match booking_waivers(&mut w.tx, &tenant, booking, false).await {
        Ok(b) => Ok(b.missing()),
        Err(WaiverError::BookingNotFound) => Ok(0),
        Err(WaiverError::Store(e)) => Err(e),
        Err(other) => Err(StoreError::Corrupt(other.to_string())),
    }
}

/// Whether a signature may be given for a booking in `status`.
fn signable(status: BookingStatus) -> bool {
    !matches!(status, BookingStatus::Canceled | BookingStatus::Expired)
}

fn subject(participant: Option<Uuid>) -> String {
    participant.map_or_else(|| BOOKING_SUBJECT.to_owned(), |p| p.to_string())
}

/// Inserts `s` unless its subject is signed for already (the unique key decides between
/// two signers of the same participant); then answers the signature already there.
async fn insert(w: &mut Write, s: &WaiverSignature) -> Result<(), WaiverError> {
    let inserted = sqlx::query(
        "INSERT INTO waiver_signatures (tenant_id, id, booking_id, subject, participant_id,
             participant_name, template_id, template_name, template_version, content_hash,
             method, signed_by_name, signed_by_email, signature_data, signature_format,
             is_minor, is_guardian_signature, guardian_relationship, ip_address, user_agent,
             paper_reference, notes, collected_by, signed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
             $18, $19, $20, $21, $22, $23, $24)
         ON CONFLICT (tenant_id, booking_id, subject) DO NOTHING",
    )
    .bind(w.tenant.as_str())
    .bind(s.id)
    .bind(s.booking_id)
    .bind(subject(s.participant_id))
    .bind(s.participant_id)
    .bind(&s.participant_name)
    .bind(s.template_id)
    .bind(&s.template_name)
    .bind(&s.template_version)
    .bind(&s.content_hash)
    .bind(s.method.as_str())
    .bind(&s.signed_by_name)
    .bind(&s.signed_by_email)
    .bind(s.image.as_ref().map(|i| i.base64.as_str()))
    .bind(s.image_format().map(|f| f.as_str()))
    .bind(s.is_minor)
    .bind(s.is_guardian_signature)
    .bind(&s.guardian_relationship)
    .bind(&s.ip_address)
    .bind(&s.user_agent)
    .bind(&s.paper_reference)
    .bind(&s.notes)
    .bind(&s.collected_by)
    .bind(s.signed_at)
    .execute(&mut *w.tx)
    .await?;
    if inserted.rows_affected() == 0 {
        let existing: SignatureRow = sqlx::query_as(sql!(
            "SELECT {SIGNATURE_COLUMNS} FROM waiver_signatures
             WHERE tenant_id = $1 AND booking_id = $2 AND subject = $3"
        ))
        .bind(w.tenant.as_str())
        .bind(s.booking_id)
        .bind(subject(s.participant_id))
        .fetch_one(&mut *w.tx)
        .await?;
        return Err(WaiverError::AlreadySigned(Box::new(existing.try_into()?)));
    }
    Ok(())
}

fn audit_signature(w: &mut Write, actor: &Actor, s: &WaiverSignature) {
    w.audit(
        actor,
        Change {
            action: "waiver_signed",
            entity_type: "booking",
            entity_id: s.booking_id.to_string(),
            changes: json!({"signatureId": s.id, "participantId": s.participant_id,
                "templateId": s.template_id, "templateVersion": s.template_version,
                "method": s.method.as_str(), "signedByName": s.signed_by_name,
                "isGuardianSignature": s.is_guardian_signature}),
        },
    );
}

/// The participant `participant` names (None: the whole booking) of a booking that can
/// still be signed for, when not signed for yet.
fn unsigned(
    b: &BookingWaivers,
    participant: Option<Uuid>,
) -> Result<Option<&crate::Participant>, WaiverError> {
    if !signable(b.status) {
        return Err(WaiverError::BookingClosed);
    }
    let found = match participant {
        None => None,
        Some(id) => Some(
            b.participants
                .iter()
                .find(|p| p.id == id)
                .ok_or(WaiverError::ParticipantNotFound)?,
        ),
    };
    let existing = match found {
        Some(p) => b.signature_of(p.id),
        None => b.booking_signature(),
    };
    match existing {
        Some(s) => Err(WaiverError::AlreadySigned(Box::new(s.clone()))),
        None => Ok(found),
    }
}

/// The signature `input` asks for, checked against the booking read under its lock.
fn online_signature(
    b: &BookingWaivers,
    input: &SignatureInput,
    now: Timestamp,
) -> Result<WaiverSignature, WaiverError> {
    let participant = unsigned(b, input.participant_id)?;
    let template = match input.template_id {
        Some(_) => b.templates.iter().find(|t| Some(t.id) == input.template_id),
        None => b.template_for(input.locale.as_deref()),
    }
    .ok_or(WaiverError::WaiverNotFound)?;
    let is_minor = participant.is_some_and(|p| b.is_minor(p));
    Ok(WaiverSignature {
        id: new_id(),
        booking_id: b.booking_id,
        participant_id: participant.map(|p| p.id),
        participant_name: participant.map_or_else(|| b.customer_name.clone(), |p| p.full_name()),
        template_id: Some(template.id),
        template_name: template.name.clone(),
        template_version: Some(template.version.clone()),
        content_hash: Some(template.content_hash.clone()),
        method: SignatureMethod::Online,
        signed_by_name: input.signed_by_name.clone(),
        signed_by_email: Some(input.signed_by_email.clone()),
        image: input.image.clone(),
        is_minor,
        is_guardian_signature: is_minor || input.is_guardian_signature.unwrap_or(false),
        guardian_relationship: input.guardian_relationship.clone(),
        ip_address: input.ip_address.clone(),
        user_agent: input.user_agent.clone(),
        paper_reference: None,
        notes: None,
        collected_by: None,
        signed_at: now,
    })
}

#[operations]
impl Repo {
    /// Signs a waiver online for a participant (or the whole booking): the template named
    /// (it must be active and cover the booking) or the one covering it in the signer's
    /// locale. A minor's signature is a guardian's. One signature per participant: the
    /// second is [`WaiverError::AlreadySigned`] with the first.
    pub async fn sign_waiver(
        &self,
        tenant: &TenantId,
        input: SignatureInput,
        now: Timestamp,
    ) -> Result<WaiverSignature, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = booking_waivers(&mut w.tx, tenant, input.booking_id, true).await?;
            if let Some(id) = input.template_id
                && !b.templates.iter().any(|t| t.id == id)
            {
                // Read after the booking's lock: a template taken out of use meanwhile is
                // TEMPLATE_INACTIVE, not a template for another activity.
                let active: Option<bool> = sqlx::query_scalar(
                    "SELECT is_active FROM waiver_templates WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant.as_str())
                .bind(id)
                .fetch_optional(&mut *w.tx)
                .await?;
                return Err(match active {
                    None => WaiverError::WaiverNotFound,
                    Some(false) => WaiverError::TemplateInactive,
                    Some(true) => WaiverError::NotCovered,
                });
            }
            let signature = online_signature(&b, &input, now)?;
            insert(&mut w, &signature).await?;
            let actor = Actor {
                kind: kairos_domain::auth::ActorKind::Customer,
                id: None,
                name: Some(signature.signed_by_name.clone()),
            };
            audit_signature(&mut w, &actor, &signature);
            Ok(signature)
        }
        .await;
        w.finish(result, None).await
    }

    /// Records a paper waiver collected at the desk for a participant: the one named by
    /// id, else the one whose full name matches, else a new participant in an unnamed
    /// place.
    pub async fn record_paper_waiver(
        &self,
        tenant: &TenantId,
        paper: PaperWaiver,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<WaiverSignature, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = booking_waivers(&mut w.tx, tenant, paper.booking_id, true).await?;
            if !signable(b.status) {
                return Err(WaiverError::BookingClosed);
            }
            let wanted = paper.participant_name.trim().to_lowercase();
            let found = match paper.participant_id {
                Some(id) => Some(
                    b.participants
                        .iter()
                        .find(|p| p.id == id)
                        .ok_or(WaiverError::ParticipantNotFound)?
                        .clone(),
                ),
                None => b
                    .participants
                    .iter()
                    .find(|p| p.full_name().to_lowercase() == wanted)
                    .cloned(),
            };
            let participant = match found {
                Some(p) => p,
                None => {
                    if b.participants.len() >= usize::try_from(b.party_size).unwrap_or(0) {
                        // No one of that name, and no place left to add them.
                        return Err(WaiverError::PartyFull);
                    }
                    let name = paper.participant_name.trim();
                    let (first, last) = name.rsplit_once(' ').unwrap_or((name, ""));
                    let p = ParticipantInput {
                        first_name: first.trim().to_owned(),
                        last_name: last.trim().to_owned(),
                        ..ParticipantInput::default()
                    }
                    .into_participant(new_id());
                    let mut all = b.participants.clone();
                    all.push(p.clone());
                    participants::save(&mut w, b.booking_id, &all).await?;
                    p
                }
            };
            if let Some(existing) = b.signature_of(participant.id) {
                return Err(WaiverError::AlreadySigned(Box::new(existing.clone())));
            }
            let template = b.template_for(None);
            let signature = WaiverSignature {
                id: new_id(),
                booking_id: b.booking_id,
                participant_id: Some(participant.id),
                participant_name: participant.full_name(),
                template_id: template.map(|t| t.id),
                template_name: paper
                    .waiver_type
                    .clone()
                    .or_else(|| template.map(|t| t.name.clone()))
                    .unwrap_or_else(|| "Paper waiver".to_owned()),
                template_version: template.map(|t| t.version.clone()),
                content_hash: template.map(|t| t.content_hash.clone()),
                method: SignatureMethod::Paper,
                signed_by_name: paper.signed_by.clone(),
                signed_by_email: None,
                image: None,
                is_minor: b.is_minor(&participant),
                is_guardian_signature: b.is_minor(&participant),
                guardian_relationship: None,
                ip_address: None,
                user_agent: None,
                paper_reference: paper.paper_reference.clone(),
                notes: paper.notes.clone(),
                collected_by: actor.name.clone().or_else(|| actor.id.clone()),
                signed_at: now,
            };
            insert(&mut w, &signature).await?;
            audit_signature(&mut w, actor, &signature);
            Ok(signature)
        }
        .await;
        w.finish(result, None).await
    }

    /// Signatures by the filter, newest first: one page and the total.
    pub async fn waiver_signatures(
        &self,
        tenant: &TenantId,
        filter: SignatureFilter,
        page: u32,
        page_size: u32,
    ) -> Result<(Vec<WaiverSignature>, u64), StoreError> {
        let mut conn = self.read.acquire().await?;
        let conditions = |q: &mut QueryBuilder<Db>| {
            q.push(" WHERE tenant_id = ")
                .push_bind(tenant.as_str().to_owned());
            if let Some(b) = filter.booking_id {
                q.push(" AND booking_id = ").push_bind(b);
            }
            if let Some(t) = filter.template_id {
                q.push(" AND template_id = ").push_bind(t);
            }
            if let Some(after) = filter.signed_after {
                q.push(" AND signed_at >= ").push_bind(after);
            }
            if let Some(before) = filter.signed_before {
                q.push(" AND signed_at < ").push_bind(before);
            }
        };
        let mut count = QueryBuilder::<Db>::new("SELECT COUNT(*) FROM waiver_signatures");
        conditions(&mut count);
        let total: i64 = count.build_query_scalar().fetch_one(&mut *conn).await?;
        let mut q =
            QueryBuilder::<Db>::new(format!("SELECT {SIGNATURE_COLUMNS} FROM waiver_signatures"));
        conditions(&mut q);
        q.push(" ORDER BY signed_at DESC, id LIMIT ")
            .push_bind(i64::from(page_size))
            .push(" OFFSET ")
            .push_bind(i64::from(page.saturating_sub(1)) * i64::from(page_size));
        let rows: Vec<SignatureRow> = q.build_query_as().fetch_all(&mut *conn).await?;
        let rows = rows
            .into_iter()
            .map(WaiverSignature::try_from)
            .collect::<Result<_, _>>()?;
        Ok((rows, u64::try_from(total).unwrap_or(0)))
    }

    /// One signature by id.
    pub async fn waiver_signature(
        &self,
        tenant: &TenantId,
        id: Uuid,
    ) -> Result<Option<WaiverSignature>, StoreError> {
        let row: Option<SignatureRow> = sqlx::query_as(sql!(
            "SELECT {SIGNATURE_COLUMNS} FROM waiver_signatures WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant.as_str())
        .bind(id)
        .fetch_optional(&self.read)
        .await?;
        row.map(WaiverSignature::try_from).transpose()
    }

    /// Sends a signing link by email for `request`: a participant of the booking (to
    /// their email, else the customer's) or the booking itself (to the customer), and
    /// records it. Answers the address written to and the queued message, if one was.
    pub async fn send_waiver_link(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        participant: Option<Uuid>,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(String, Option<Uuid>), WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = booking_waivers(&mut w.tx, tenant, booking, true).await?;
            let p = unsigned(&b, participant)?;
            // A second press of the button (or a second desk) within a minute sends nothing.
            let recent: Option<Timestamp> = sqlx::query_scalar(
                "SELECT MAX(sent_at) FROM waiver_reminders
                 WHERE tenant_id = $1 AND booking_id = $2 AND subject = $3",
            )
            .bind(tenant.as_str())
            .bind(booking)
            .bind(subject(participant))
            .fetch_one(&mut *w.tx)
            .await?;
            let facts = booking_facts(&mut w, booking)
                .await?
                .ok_or(WaiverError::BookingNotFound)?;
            let mut to = Recipient::of_booking(&facts);
            if let Some(email) = p.and_then(|p| p.email.clone()).filter(|e| !e.is_empty()) {
                to.email = email;
                to.customer_id = None;
            }
            if recent.is_some_and(|t| now - t < chrono::Duration::minutes(1)) {
                return Err(WaiverError::JustSent { to: to.email });
            }
            if let (Some(p), serde_json::Value::Object(map)) = (p, &mut to.data) {
                map.insert("participantName".into(), json!(p.full_name()));
            }
            let outcomes = queue_message_to(
                &mut w,
                &to,
                Compose {
                    channels: &[Channel::Email],
                    ..Compose::of("waiver_reminder", "waiver_link", now)
                },
            )
            .await?;
            let queued = outcomes.iter().find_map(|(_, o)| match o {
                ChannelOutcome::Queued(id) => Some(*id),
                _ => None,
            });
            sqlx::query(
                "INSERT INTO waiver_reminders (tenant_id, id, booking_id, subject, sent_by, sent_at)
                 VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(tenant.as_str())
            .bind(new_id())
            .bind(booking)
            .bind(subject(participant))
            .bind(crate::actor_label(actor))
            .bind(now)
            .execute(&mut *w.tx)
            .await?;
            w.audit(
                actor,
                Change {
                    action: "waiver_link_sent",
                    entity_type: "booking",
                    entity_id: booking.to_string(),
                    changes: json!({"participantId": participant, "to": to.email,
                        "messageId": queued}),
                },
            );
            Ok((to.email.clone(), queued))
        }
        .await;
        w.finish(result, None).await
    }

    /// Deletes the signatures older than each tenant's retention (counted from the
    /// signature) and records each tenant's purge in its audit log; answers how many
    /// went.
    pub async fn purge_waiver_signatures(&self, now: Timestamp) -> Result<u64, StoreError> {
        let tenants: Vec<(String, i32)> =
            sqlx::query_as("SELECT id, waiver_retention_years FROM tenants")
                .fetch_all(&self.read)
                .await?;
        let mut purged = 0;
        for (tenant, years) in tenants {
            let Some(cutoff) = now.checked_sub_months(chrono::Months::new(
                u32::try_from(years).unwrap_or(7).saturating_mul(12),
            )) else {
                continue;
            };
            let tenant = TenantId::parse(&tenant)
                .map_err(|e| StoreError::Corrupt(format!("tenant id: {e}")))?;
            let mut w = self.begin(&tenant, now).await?;
            let gone = sqlx::query(
                "DELETE FROM waiver_signatures WHERE tenant_id = $1 AND signed_at < $2",
            )
            .bind(tenant.as_str())
            .bind(cutoff)
            .execute(&mut *w.tx)
            .await?
            .rows_affected();
            if gone > 0 {
                w.audit(
                    &Actor::system("waiver retention"),
                    Change {
                        action: "waiver_signatures_purged",
                        entity_type: "tenant",
                        entity_id: tenant.as_str().to_owned(),
                        changes: json!({"count": gone, "signedBefore": cutoff,
                            "retentionYears": years}),
                    },
                );
            }
            w.commit(None).await?;
            purged += gone;
        }
        Ok(purged)
    }
}
