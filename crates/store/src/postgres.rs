//! The PostgreSQL instantiation of `ops`.

pub type Db = sqlx::Postgres;

pub mod dialect {
    //! PostgreSQL spellings of the few statements that differ.
    pub const BEGIN_WRITE: &str = "BEGIN";
    pub const FOR_UPDATE: &str = "FOR UPDATE";
    pub const ILIKE: &str = "ILIKE";
}

#[path = "ops/mod.rs"]
pub mod ops;
