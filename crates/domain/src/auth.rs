//! Administrator roles and the permissions they grant, and the kinds of actor the audit
//! log records.
//!
//! The spec names the permission strings; it leaves the role mapping open. Kairos defines
//! four roles (documented in docs/ARCHITECTURE.md and served in the OpenAPI document):
//!
//! | role        | grants |
//! |-------------|--------|
//! | owner       | every permission, including `admin:users:manage` (staff accounts) and `admin:payments:manage` (payment provider credentials) |
//! | manager     | every booking, capacity, cancellation, customer and catalog permission |
//! | front_desk  | read, create and run bookings day to day; read customers; booking groups |
//! | viewer      | read-only access to bookings, customers and configuration |

use serde::{Deserialize, Serialize};

/// Every permission string the platform checks.
pub mod perm {
    pub const BOOKINGS_READ: &str = "admin:bookings:read";
    pub const BOOKINGS_WRITE: &str = "admin:bookings:write";
    pub const BOOKINGS_CREATE: &str = "admin:bookings:create";
    pub const BOOKINGS_CREATE_CUSTOM_PRICING: &str = "admin:bookings:create:custom_pricing";
    pub const BOOKINGS_CREATE_OVERRIDE_CAPACITY: &str = "admin:bookings:create:override_capacity";
    pub const BOOKINGS_CREATE_COMP: &str = "admin:bookings:create:comp";
    pub const CAPACITY_OVERRIDE: &str = "admin:capacity:override";
    pub const CUSTOMERS_READ: &str = "admin:customers:read";
    pub const CANCELLATIONS_OVERRIDE: &str = "admin:cancellations:override";
    pub const READ: &str = "admin:read";
    pub const WRITE: &str = "admin:write";
    pub const MANAGE_BOOKINGS: &str = "manage_bookings";
    /// Not named by the spec: managing staff accounts is reserved to owners.
    pub const USERS_MANAGE: &str = "admin:users:manage";
    /// Not named by the spec: where the money goes (payment provider credentials) is
    /// reserved to owners.
    pub const PAYMENTS_MANAGE: &str = "admin:payments:manage";

    /// All permissions, in a stable order.
    pub const ALL: &[&str] = &[
        BOOKINGS_READ,
        BOOKINGS_WRITE,
        BOOKINGS_CREATE,
        BOOKINGS_CREATE_CUSTOM_PRICING,
        BOOKINGS_CREATE_OVERRIDE_CAPACITY,
        BOOKINGS_CREATE_COMP,
        CAPACITY_OVERRIDE,
        CUSTOMERS_READ,
        CANCELLATIONS_OVERRIDE,
        READ,
        WRITE,
        MANAGE_BOOKINGS,
        USERS_MANAGE,
        PAYMENTS_MANAGE,
    ];
}

/// An administrator role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Owner,
    Manager,
    FrontDesk,
    Viewer,
}

impl Role {
    pub const ALL: [Role; 4] = [Role::Owner, Role::Manager, Role::FrontDesk, Role::Viewer];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Owner => "owner",
            Role::Manager => "manager",
            Role::FrontDesk => "front_desk",
            Role::Viewer => "viewer",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The permissions this role grants.
    pub fn permissions(self) -> &'static [&'static str] {
        use perm::*;
        match self {
            Role::Owner => ALL,
            Role::Manager => &[
                BOOKINGS_READ,
                BOOKINGS_WRITE,
                BOOKINGS_CREATE,
                BOOKINGS_CREATE_CUSTOM_PRICING,
                BOOKINGS_CREATE_OVERRIDE_CAPACITY,
                BOOKINGS_CREATE_COMP,
                CAPACITY_OVERRIDE,
                CUSTOMERS_READ,
                CANCELLATIONS_OVERRIDE,
                READ,
                WRITE,
                MANAGE_BOOKINGS,
            ],
            Role::FrontDesk => &[
                BOOKINGS_READ,
                BOOKINGS_WRITE,
                BOOKINGS_CREATE,
                CUSTOMERS_READ,
                READ,
                MANAGE_BOOKINGS,
            ],
            Role::Viewer => &[BOOKINGS_READ, CUSTOMERS_READ, READ],
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

text_enum! {
    /// Who performed a change, as the audit log records it.
    pub enum ActorKind {
        /// A staff member.
        Admin = "admin",
        /// A customer (signed in, or holding the booking's token).
        Customer = "customer",
        /// The command line, the demo seeder or a background worker.
        System = "system",
    }
}

/// The union of the permissions of `roles`, in the stable order of [`perm::ALL`].
pub fn permissions_of(roles: &[Role]) -> Vec<&'static str> {
    perm::ALL
        .iter()
        .copied()
        .filter(|p| roles.iter().any(|r| r.permissions().contains(p)))
        .collect()
}

/// Minimum and maximum password length for staff and customers.
///
/// The maximum bounds the cost of hashing an attacker-chosen input.
pub const PASSWORD_MIN_LEN: usize = 8;
pub const PASSWORD_MAX_LEN: usize = 128;

/// Checks the password policy shared by staff and customer accounts.
pub fn validate_password(password: &str) -> Result<(), String> {
    let len = password.chars().count();
    if len < PASSWORD_MIN_LEN {
        return Err(format!("must be at least {PASSWORD_MIN_LEN} characters"));
    }
    if len > PASSWORD_MAX_LEN {
        return Err(format!("must be at most {PASSWORD_MAX_LEN} characters"));
    }
    Ok(())
}

/// Staff usernames: 3 to 64 characters of letters, digits, '.', '-', '_' or '@'.
pub fn validate_username(username: &str) -> Result<(), String> {
    let len = username.chars().count();
    if !(3..=64).contains(&len) {
        return Err("must be 3 to 64 characters".into());
    }
    if !username
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
    {
        return Err("may contain only letters, digits, '.', '-', '_' and '@'".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_actor_kind_parses_back_from_its_text() {
        for k in ActorKind::ALL {
            assert_eq!(ActorKind::parse(k.as_str()), Some(*k));
        }
        assert_eq!(ActorKind::parse("staff"), None);
    }

    #[test]
    fn owner_has_everything_and_only_owner_manages_users() {
        assert_eq!(Role::Owner.permissions(), perm::ALL);
        for role in [Role::Manager, Role::FrontDesk, Role::Viewer] {
            assert!(!role.permissions().contains(&perm::USERS_MANAGE), "{role}");
        }
    }

    #[test]
    fn roles_are_nested_from_viewer_to_owner() {
        let chain = [Role::Viewer, Role::FrontDesk, Role::Manager, Role::Owner];
        for pair in chain.windows(2) {
            for p in pair[0].permissions() {
                assert!(pair[1].permissions().contains(p), "{} lacks {p}", pair[1]);
            }
        }
        assert!(!Role::Viewer.permissions().contains(&perm::BOOKINGS_WRITE));
        assert!(
            !Role::FrontDesk
                .permissions()
                .contains(&perm::CAPACITY_OVERRIDE)
        );
    }

    #[test]
    fn permissions_of_several_roles_is_a_sorted_union() {
        let perms = permissions_of(&[Role::Viewer, Role::FrontDesk]);
        assert_eq!(perms, permissions_of(&[Role::FrontDesk]));
        assert!(permissions_of(&[]).is_empty());
    }

    #[test]
    fn role_names_round_trip() {
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
        assert_eq!(Role::parse("root"), None);
    }

    #[test]
    fn password_and_username_rules() {
        assert!(validate_password("1234567").is_err());
        assert!(validate_password("12345678").is_ok());
        assert!(validate_password(&"x".repeat(129)).is_err());
        assert!(validate_username("ab").is_err());
        assert!(validate_username("front.desk@venue").is_ok());
        assert!(validate_username("with space").is_err());
    }
}
