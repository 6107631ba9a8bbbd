//! API tests: the in-process app on a fresh database per test (SQLite, or PostgreSQL
//! when `TEST_DATABASE_URL` is set).

mod auth;
mod availability;
mod catalog;
mod customers;
mod errors;
mod operations;
mod rate_limits;
mod schedules;
mod staff;
mod tenancy;
