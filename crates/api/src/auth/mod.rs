//! Administrator authentication (spec Part A section 5) and staff account management.

pub mod login;
pub mod passwords;
pub mod tokens;
pub mod users;
