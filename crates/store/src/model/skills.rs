//! Staff skills (Part A 4.11): skills, who holds them at what level until when, and the
//! skills a product's sessions need.

use crate::Timestamp;
use serde::Serialize;
use uuid::Uuid;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skill {
    pub id: Uuid,
    pub name: String,
    pub description: String,
    /// How many staff hold it (expired ones included).
    pub holders: i64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A skill given to a STAFF resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SkillGrant {
    pub resource_id: Uuid,
    /// 1 to 5.
    pub level: i32,
    /// None: it does not expire.
    pub expires_at: Option<Timestamp>,
}

/// A skill a staff member holds, with the names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeldSkill {
    pub resource_id: Uuid,
    pub resource_name: String,
    pub skill_id: Uuid,
    pub skill_name: String,
    pub level: i32,
    pub expires_at: Option<Timestamp>,
    pub updated_at: Timestamp,
}

/// A skill a product's sessions need, at least at `min_level`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkillRequirement {
    pub skill_id: Uuid,
    pub skill_name: String,
    pub min_level: i32,
}

/// A staff member qualified for a skill over a time range, and whether they are free.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QualifiedStaff {
    pub resource_id: Uuid,
    pub name: String,
    pub level: i32,
    pub expires_at: Option<Timestamp>,
    /// No live allocation of theirs meets the range.
    pub is_free: bool,
}

/// Skill administration failures.
#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("no such skill")]
    SkillNotFound,
    #[error("a skill of this name exists")]
    NameTaken,
    #[error("no such resource")]
    ResourceNotFound { resource_id: Uuid },
    /// Skills are given to STAFF resources only.
    #[error("the resource is not a staff member")]
    NotStaff { resource_id: Uuid },
    #[error("no such product")]
    ProductNotFound,
    /// The staff member does not hold the skill.
    #[error("the staff member does not hold this skill")]
    NotHeld,
    #[error(transparent)]
    Store(#[from] crate::StoreError),
}

crate::store_error_from_sqlx!(SkillError);
