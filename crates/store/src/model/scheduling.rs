//! Schedule templates, date rules, slots and regeneration reports.

use super::Timestamp;
use kairos_domain::scheduling::{BlackoutKind, DateRecurrence, RecurrenceKind, ScopeType};
use serde::Serialize;
use uuid::Uuid;

/// Input of a schedule template (times `HH:MM`, site local).
#[derive(Debug, Clone, Serialize)]
pub struct NewTemplate {
    pub scope_type: ScopeType,
    pub scope_id: Uuid,
    pub day_of_week: Option<i32>,
    pub start_time: String,
    pub end_time: String,
    pub recurrence_kind: RecurrenceKind,
    pub by_day: Option<i32>,
    pub by_month: Option<i32>,
    pub by_month_day: Option<i32>,
    pub exdates: Vec<chrono::NaiveDate>,
    pub valid_from: Option<chrono::NaiveDate>,
    pub valid_to: Option<chrono::NaiveDate>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TemplateRecord {
    pub id: Uuid,
    #[serde(flatten)]
    pub fields: NewTemplate,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Input of a schedule override or blackout. Blackouts carry `kind` and may omit times
/// (all day); overrides have no kind and need both times.
#[derive(Debug, Clone, Serialize)]
pub struct NewDateRule {
    pub scope_type: ScopeType,
    pub scope_id: Uuid,
    pub kind: Option<BlackoutKind>,
    pub date_from: chrono::NaiveDate,
    pub date_to: chrono::NaiveDate,
    pub start_time: Option<String>,
    pub end_time: Option<String>,
    pub recurrence: DateRecurrence,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DateRuleRecord {
    pub id: Uuid,
    #[serde(flatten)]
    pub fields: NewDateRule,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// Which of the two date-rule tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateRuleKind {
    Override,
    Blackout,
}

/// A bookable slot.
#[derive(Debug, Clone, Serialize)]
pub struct Slot {
    pub id: Uuid,
    pub product_id: Uuid,
    pub site_id: Uuid,
    pub starts_at: Timestamp,
    pub ends_at: Timestamp,
    pub capacity: i32,
    pub booked: i32,
    pub is_orphaned: bool,
    /// Raised by every change to the slot's capacity picture (seats, capacity, open or
    /// closed).
    pub projection_version: i64,
}

/// What a regeneration did (or would do, for a preview).
#[derive(Debug, Clone, Default, Serialize)]
pub struct RegenReport {
    pub products: usize,
    pub created: usize,
    pub deleted: usize,
    pub orphaned: usize,
    pub restored: usize,
    pub kept: usize,
    pub sample_created: Vec<Timestamp>,
    pub sample_deleted: Vec<Timestamp>,
    pub sample_orphaned: Vec<Timestamp>,
}

impl RegenReport {
    pub const SAMPLES: usize = 10;

    pub fn absorb(&mut self, other: RegenReport) {
        self.products += other.products;
        self.created += other.created;
        self.deleted += other.deleted;
        self.orphaned += other.orphaned;
        self.restored += other.restored;
        self.kept += other.kept;
        for (into, from) in [
            (&mut self.sample_created, other.sample_created),
            (&mut self.sample_deleted, other.sample_deleted),
            (&mut self.sample_orphaned, other.sample_orphaned),
        ] {
            into.extend(from);
            into.truncate(Self::SAMPLES);
        }
    }
}

/// Dates a regeneration covers; missing ends mean today and today + horizon (site time).
/// Both are clamped to that window.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateSpan {
    pub from: Option<chrono::NaiveDate>,
    pub to: Option<chrono::NaiveDate>,
}

/// Why a schedule operation failed.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    /// The scope names no site or product of the tenant.
    #[error("no such site or product")]
    ScopeNotFound,
    #[error("no such product")]
    ProductNotFound,
    #[error("no such template")]
    TemplateNotFound,
    /// No override or blackout (as the kind says) with this id.
    #[error("no such {0:?}")]
    RuleNotFound(DateRuleKind),
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(ScheduleError);
