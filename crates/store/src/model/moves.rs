//! Two-phase booking moves (spec Part B 4.10).

use super::{Booking, Timestamp};
use kairos_domain::moves::ConflictType;
use serde_json::Value;
use uuid::Uuid;

/// A conflict a move meets.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveConflict {
    pub kind: ConflictType,
    pub message: String,
    pub details: Value,
}

/// Something staff should know about a move that is not a conflict.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveWarning {
    pub kind: &'static str,
    pub message: String,
    pub details: Value,
}

/// What a move would meet, checked on the booking and the slots as they are.
#[derive(Debug, Clone, PartialEq)]
pub struct MoveCheck {
    pub booking_id: Uuid,
    pub original_slot_id: Uuid,
    pub new_slot_id: Uuid,
    pub hard: Vec<MoveConflict>,
    pub soft: Vec<MoveConflict>,
    pub warnings: Vec<MoveWarning>,
}

/// A move asked for.
#[derive(Debug, Clone)]
pub struct MoveRequest {
    pub booking_id: Uuid,
    pub new_slot_id: Uuid,
    /// The actor the caller names (kept in the audit log beside the signed-in one).
    pub requested_by: Option<String>,
    pub reason: Option<String>,
    pub confirmed_override: bool,
}

/// A slot's seats before and after a move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotCapacity {
    pub slot_id: Uuid,
    pub previous_count: i32,
    pub new_count: i32,
    pub capacity: i32,
    pub projection_version: i64,
}

/// A move committed.
#[derive(Debug, Clone)]
pub struct MoveDone {
    pub booking: Booking,
    pub previous_slot_id: Uuid,
    pub moved_at: Timestamp,
    pub capacity_updates: Vec<SlotCapacity>,
    /// The audit log's id of the move (its transaction).
    pub transaction_id: Uuid,
    pub check: MoveCheck,
}

/// Why a move was not made; nothing changed.
#[derive(Debug, thiserror::Error)]
pub enum MoveError {
    #[error("no such booking")]
    BookingNotFound,
    #[error("no such slot")]
    SlotNotFound,
    #[error("the slot is another product's")]
    OtherProduct,
    #[error("the booking is in this slot already")]
    SameSlot,
    /// The commit could not be made: `reason` (a code), what to do next, and the check
    /// when conflicts stopped it.
    #[error("{message}")]
    Failed {
        reason: &'static str,
        message: String,
        suggested_action: &'static str,
        check: Option<Box<MoveCheck>>,
    },
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

impl From<sqlx::Error> for MoveError {
    fn from(e: sqlx::Error) -> Self {
        MoveError::Store(e.into())
    }
}
