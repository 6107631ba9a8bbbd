//! Store operations, written once and compiled for each backend (see the crate docs).
//!
//! Inside this module `Db` is the backend's database type and `dialect` holds the few
//! statements spelled differently. Each area is a folder (`bookings/`, `catalog/`, …) with
//! one file per resource or action; its `#[operations] impl Repo` blocks are the store's
//! public surface, so adding an operation never edits a central list. Every write runs in one transaction begun with
//! `dialect::BEGIN_WRITE`; every query filters on the tenant.

// What every area's writes share.
mod audit;
mod idempotency;
mod write;

// The areas, named as in every other layer.
mod auth;
mod availability;
mod bookings;
mod catalog;
mod customers;
mod dead_letters;
mod gift_cards;
mod issues;
mod messaging;
mod operations;
mod payments;
mod promotions;
mod resources;
mod scheduling;
mod system;
mod tenancy;
mod vouchers;
mod waivers;

use super::Db;
use super::dialect;
use sqlx::{Pool, Transaction};

/// The backend's pools: readers and the writer (the same pool on PostgreSQL).
#[derive(Debug, Clone)]
pub struct Repo {
    read: Pool<Db>,
    write: Pool<Db>,
}

impl Repo {
    pub fn new(read: Pool<Db>, write: Pool<Db>) -> Self {
        Self { read, write }
    }

    pub fn write_pool(&self) -> &Pool<Db> {
        &self.write
    }

    pub async fn close(&self) {
        self.read.close().await;
        self.write.close().await;
    }

    /// Starts a write transaction (SQLite: `BEGIN IMMEDIATE` on the single writer).
    async fn begin_write(&self) -> Result<Transaction<'static, Db>, sqlx::Error> {
        self.write.begin_with(dialect::BEGIN_WRITE).await
    }
}
