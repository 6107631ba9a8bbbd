//! Records the store reads and writes, shared by both backends, one module per area.

mod booking_groups;
mod bookings;
mod catalog;
mod customers;
mod gift_cards;
mod idempotency;
mod issues;
mod messaging;
mod moves;
mod operations;
mod packages;
mod payments;
mod prices;
mod promotions;
mod resources;
mod scheduling;
mod skills;
mod staff;
mod tenancy;
mod vouchers;
mod waivers;

pub use booking_groups::*;
pub use bookings::*;
pub use catalog::*;
pub use customers::*;
pub use gift_cards::*;
pub use idempotency::*;
pub use issues::*;
pub use messaging::*;
pub use moves::*;
pub use operations::*;
pub use packages::*;
pub use payments::*;
pub use prices::*;
pub use promotions::*;
pub use resources::*;
pub use scheduling::*;
pub use skills::*;
pub use staff::*;
pub use tenancy::*;
pub use vouchers::*;
pub use waivers::*;

use kairos_domain::auth::ActorKind;
use serde_json::Value;
use uuid::Uuid;

/// A UTC instant.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// Who performed a change, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub kind: ActorKind,
    pub id: Option<String>,
    pub name: Option<String>,
}

impl Actor {
    /// The command line, the demo seeder and background workers.
    pub fn system(name: &str) -> Self {
        Self {
            kind: ActorKind::System,
            id: None,
            name: Some(name.to_owned()),
        }
    }

    pub fn admin(id: Uuid, name: &str) -> Self {
        Self {
            kind: ActorKind::Admin,
            id: Some(id.to_string()),
            name: Some(name.to_owned()),
        }
    }

    pub fn customer(id: Uuid, name: Option<&str>) -> Self {
        Self {
            kind: ActorKind::Customer,
            id: Some(id.to_string()),
            name: name.map(str::to_owned),
        }
    }
}

/// A row of the audit log.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    pub id: Uuid,
    pub occurred_at: Timestamp,
    pub actor_type: ActorKind,
    pub actor_id: Option<String>,
    pub actor_name: Option<String>,
    pub action: String,
    pub entity_type: String,
    pub entity_id: String,
    /// `{field: {"from": old, "to": new}}` for updates, the created values for creations.
    pub changes: Value,
}

/// A schedule change with the regeneration it caused.
#[derive(Debug, Clone)]
pub struct Changed<T> {
    pub record: T,
    pub regeneration: RegenReport,
}
