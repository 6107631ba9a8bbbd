//! API tests: the in-process app on a fresh database per test (SQLite, or PostgreSQL
//! when `TEST_DATABASE_URL` is set).

mod admin_bookings;
mod auth;
mod availability;
mod booking_notes;
mod booking_promotions;
mod bookings;
mod catalog;
mod concurrency;
mod connections;
mod cors;
mod customer_history;
mod customers;
mod errors;
mod gift_cards;
mod hold_caps;
mod imports;
mod messaging_automation;
mod messaging_bulk;
mod messaging_rules;
mod messaging_send;
mod messaging_templates;
mod operations;
mod payments_actions;
mod payments_cardpay;
mod payments_credentials;
mod payments_provider;
mod payments_webhooks;
mod permissions;
mod promotion_races;
mod promotions;
mod rate_limits;
mod schedules;
mod staff;
mod tenancy;
mod vouchers;
