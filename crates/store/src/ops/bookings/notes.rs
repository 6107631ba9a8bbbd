//! Staff notes on a booking.

use super::{Change, Db, Repo, Tx, dialect, load_for_update};
use crate::{
    Actor, BookingError, BookingNote, NewNote, StoreError, StoreResult, Timestamp, stored,
};
use kairos_domain::bookings::{NoteCategory, NotePriority};
use kairos_domain::{TenantId, new_id};
use kairos_store_macros::operations;
use serde_json::{Value, json};
use sqlx::QueryBuilder;
use uuid::Uuid;

pub(super) const NOTE_COLUMNS: &str = "id, booking_id, content, category, priority, is_internal, \
     created_by, created_by_name, created_at, updated_at";

pub(super) async fn load_note(
    tx: &mut Tx,
    tenant: &TenantId,
    booking: Uuid,
    id: Uuid,
) -> Result<BookingNote, BookingError> {
    let row: Option<NoteRow> = sqlx::query_as(sql!(
        "SELECT {NOTE_COLUMNS} FROM booking_notes
         WHERE tenant_id = $1 AND booking_id = $2 AND id = $3{}",
        dialect::FOR_UPDATE
    ))
    .bind(tenant.as_str())
    .bind(booking)
    .bind(id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.ok_or(BookingError::NoteNotFound)?.try_into()?)
}

/// `{noteId, field: {from, to}…}` for the fields of a note an update changed.
pub(super) fn note_changes(before: &BookingNote, after: &BookingNote) -> Value {
    let mut changes = serde_json::Map::new();
    changes.insert("noteId".into(), json!(after.id));
    for (field, from, to) in [
        ("content", json!(before.content), json!(after.content)),
        ("category", json!(before.category), json!(after.category)),
        ("priority", json!(before.priority), json!(after.priority)),
        (
            "isInternal",
            json!(before.is_internal),
            json!(after.is_internal),
        ),
    ] {
        if from != to {
            changes.insert(field.into(), json!({"from": from, "to": to}));
        }
    }
    Value::Object(changes)
}

#[derive(kairos_store_macros::FromRow)]
struct NoteRow {
    id: Uuid,
    booking_id: Uuid,
    content: String,
    category: String,
    priority: String,
    is_internal: bool,
    created_by: String,
    created_by_name: String,
    created_at: Timestamp,
    updated_at: Timestamp,
}

impl TryFrom<NoteRow> for BookingNote {
    type Error = StoreError;

    fn try_from(r: NoteRow) -> Result<Self, StoreError> {
        Ok(BookingNote {
            id: r.id,
            booking_id: r.booking_id,
            content: r.content,
            category: stored("category", &r.category, NoteCategory::parse)?,
            priority: stored("priority", &r.priority, NotePriority::parse)?,
            is_internal: r.is_internal,
            created_by: r.created_by,
            created_by_name: r.created_by_name,
            created_at: r.created_at,
            updated_at: r.updated_at,
        })
    }
}

#[operations]
impl Repo {
    pub async fn create_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        new: NewNote,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingNote, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        load_for_update(&mut w.tx, tenant, booking).await?;
        let note = BookingNote {
            id: new_id(),
            booking_id: booking,
            content: new.content,
            category: new.category,
            priority: new.priority,
            is_internal: new.is_internal,
            created_by: actor.id.clone().unwrap_or_default(),
            created_by_name: actor.name.clone().unwrap_or_default(),
            created_at: now,
            updated_at: now,
        };
        sqlx::query(
            "INSERT INTO booking_notes (tenant_id, id, booking_id, content, category, priority,
                 is_internal, created_by, created_by_name, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
        )
        .bind(tenant.as_str())
        .bind(note.id)
        .bind(booking)
        .bind(&note.content)
        .bind(note.category.as_str())
        .bind(note.priority.as_str())
        .bind(note.is_internal)
        .bind(&note.created_by)
        .bind(&note.created_by_name)
        .bind(now)
        .execute(&mut *w.tx)
        .await?;
        w.audit(
            actor,
            Change {
                action: "booking.note_added",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: json!({"noteId": note.id, "category": note.category}),
            },
        );
        w.commit(None).await?;
        Ok(note)
    }

    /// Notes of the given bookings, oldest first.
    pub async fn list_notes(
        &self,
        tenant: &TenantId,
        bookings: Vec<Uuid>,
    ) -> StoreResult<Vec<BookingNote>> {
        if bookings.is_empty() {
            return Ok(Vec::new());
        }
        let mut q = QueryBuilder::<Db>::new(
            "SELECT id, booking_id, content, category, priority, is_internal, created_by,
                    created_by_name, created_at, updated_at
             FROM booking_notes WHERE tenant_id = ",
        );
        q.push_bind(tenant.as_str());
        q.push(" AND booking_id IN (");
        let mut sep = q.separated(", ");
        for id in bookings {
            sep.push_bind(id);
        }
        q.push(") ORDER BY created_at, id");
        let rows: Vec<NoteRow> = q.build_query_as().fetch_all(&self.read).await?;
        rows.into_iter().map(BookingNote::try_from).collect()
    }

    /// Replaces a note's fields; `NotFound` unless the note belongs to the booking.
    pub async fn update_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        id: Uuid,
        new: NewNote,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<BookingNote, BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let before = load_note(&mut w.tx, tenant, booking, id).await?;
        let row: Option<NoteRow> = sqlx::query_as(
            "UPDATE booking_notes SET content = $4, category = $5, priority = $6, is_internal = $7,
                 updated_at = $8
             WHERE tenant_id = $1 AND booking_id = $2 AND id = $3
             RETURNING id, booking_id, content, category, priority, is_internal, created_by,
                       created_by_name, created_at, updated_at",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .bind(id)
        .bind(&new.content)
        .bind(new.category.as_str())
        .bind(new.priority.as_str())
        .bind(new.is_internal)
        .bind(now)
        .fetch_optional(&mut *w.tx)
        .await?;
        let note = BookingNote::try_from(row.ok_or(BookingError::NoteNotFound)?)?;
        w.audit(
            actor,
            Change {
                action: "booking.note_updated",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: note_changes(&before, &note),
            },
        );
        w.commit(None).await?;
        Ok(note)
    }

    pub async fn delete_note(
        &self,
        tenant: &TenantId,
        booking: Uuid,
        id: Uuid,
        actor: &Actor,
        now: Timestamp,
    ) -> Result<(), BookingError> {
        let mut w = self.begin(tenant, now).await?;
        let before = load_note(&mut w.tx, tenant, booking, id).await?;
        let done = sqlx::query(
            "DELETE FROM booking_notes WHERE tenant_id = $1 AND booking_id = $2 AND id = $3",
        )
        .bind(tenant.as_str())
        .bind(booking)
        .bind(id)
        .execute(&mut *w.tx)
        .await?;
        if done.rows_affected() == 0 {
            return Err(BookingError::NoteNotFound);
        }
        w.audit(
            actor,
            Change {
                action: "booking.note_deleted",
                entity_type: "booking",
                entity_id: booking.to_string(),
                changes: json!({
                    "noteId": id,
                    "content": before.content,
                    "category": before.category,
                    "priority": before.priority,
                    "isInternal": before.is_internal,
                }),
            },
        );
        w.commit(None).await?;
        Ok(())
    }
}
