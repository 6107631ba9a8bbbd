//! A booking's participants, added, changed and removed one at a time (under the
//! booking's lock). A booking lists at most `partySize` participants; the places not
//! listed are unnamed. The audit log records who changed which participant, never their
//! details (medical and dietary data are kept out of logs).

use super::super::Repo;
use super::super::audit::Change;
use super::super::write::Write;
use super::booking_waivers;
use crate::{Actor, Participant, ParticipantInput, ParticipantPatch, Timestamp, WaiverError};
use kairos_domain::TenantId;
use kairos_domain::bookings::BookingStatus;
use kairos_domain::new_id;
use kairos_store_macros::operations;
use serde_json::json;
use sqlx::types::Json;
use uuid::Uuid;

/// Whether a booking in `status` may still change its participants.
fn open(status: BookingStatus) -> bool {
    !matches!(
        status,
        BookingStatus::Canceled | BookingStatus::Expired | BookingStatus::Completed
    )
}

/// The booking, locked, when its participants may still change.
async fn open_booking(w: &mut Write, booking: Uuid) -> Result<crate::BookingWaivers, WaiverError> {
    let tenant = w.tenant.clone();
    let b = booking_waivers(&mut w.tx, &tenant, booking, true).await?;
    if open(b.status) {
        Ok(b)
    } else {
        Err(WaiverError::BookingClosed)
    }
}

pub(super) async fn save(
    w: &mut Write,
    booking: Uuid,
    participants: &[Participant],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE bookings SET participants = $3, updated_at = $4 WHERE tenant_id = $1 AND id = $2",
    )
    .bind(w.tenant.as_str())
    .bind(booking)
    .bind(Json(participants))
    .bind(w.now)
    .execute(&mut *w.tx)
    .await?;
    Ok(())
}

fn audit(w: &mut Write, actor: &Actor, booking: Uuid, action: &'static str, p: &Participant) {
    w.audit(
        actor,
        Change {
            action,
            entity_type: "booking",
            entity_id: booking.to_string(),
            changes: json!({"participantId": p.id, "participantName": p.full_name()}),
        },
    );
}

#[operations]
impl Repo {
    /// Adds a participant to a booking with an unnamed place left.
    pub async fn add_participant(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        input: ParticipantInput,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Participant, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = open_booking(&mut w, booking).await?;
            if b.participants.len() >= usize::try_from(b.party_size).unwrap_or(0) {
                return Err(WaiverError::PartyFull);
            }
            let participant = input.into_participant(new_id());
            let mut all = b.participants;
            all.push(participant.clone());
            save(&mut w, booking, &all).await?;
            audit(&mut w, actor, booking, "participant_added", &participant);
            Ok(participant)
        }
        .await;
        w.finish(result, None).await
    }

    /// Changes a participant's details. Once their waiver is signed, their name, birth date
    /// and age no longer change ([`WaiverError::AlreadySigned`]); the rest still does.
    pub async fn update_participant(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        participant: Uuid,
        patch: ParticipantPatch,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Participant, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = open_booking(&mut w, booking).await?;
            let signature = b.signature_of(participant).cloned();
            let mut all = b.participants;
            let p = all
                .iter_mut()
                .find(|p| p.id == participant)
                .ok_or(WaiverError::ParticipantNotFound)?;
            let before = p.clone();
            patch.apply(p);
            // A signature is for the person it names: who they are (name, age) no longer
            // changes under it; remove them and add them again to sign anew.
            let identity = |q: &Participant| {
                (
                    q.first_name.clone(),
                    q.last_name.clone(),
                    q.date_of_birth,
                    q.age_at_booking,
                )
            };
            if let Some(s) = signature
                && identity(&before) != identity(p)
            {
                return Err(WaiverError::AlreadySigned(Box::new(s)));
            }
            let changed = p.clone();
            save(&mut w, booking, &all).await?;
            audit(&mut w, actor, booking, "participant_changed", &changed);
            Ok(changed)
        }
        .await;
        w.finish(result, None).await
    }

    /// Removes a participant; their place becomes unnamed. A signature they gave is kept
    /// (it is evidence until the retention purge) but no longer covers a place.
    pub async fn remove_participant(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        participant: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<Participant, WaiverError> {
        let mut w = self.begin(tenant, now).await?;
        let result = async {
            let b = open_booking(&mut w, booking).await?;
            let mut all = b.participants;
            let at = all
                .iter()
                .position(|p| p.id == participant)
                .ok_or(WaiverError::ParticipantNotFound)?;
            let removed = all.remove(at);
            save(&mut w, booking, &all).await?;
            audit(&mut w, actor, booking, "participant_removed", &removed);
            Ok(removed)
        }
        .await;
        w.finish(result, None).await
    }
}

#[operations]
impl Repo {
    /// The booking a participant belongs to.
    pub async fn participant_booking(
        &self,
        tenant: &TenantId,
        participant: Uuid,
    ) -> Result<Option<Uuid>, crate::StoreError> {
        Ok(
            sqlx::query_scalar(super::super::dialect::PARTICIPANT_BOOKING)
                .bind(tenant.as_str())
                .bind(participant.to_string())
                .fetch_optional(&self.read)
                .await?,
        )
    }
}
