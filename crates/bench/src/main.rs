//! `kairos-bench`: load benchmarks that print their figures.
//!
//! Each run starts the real application in this process on a fresh database (SQLite by
//! default, PostgreSQL with `--postgres URL`), seeds it, drives it over HTTP on loopback
//! with a built-in load generator and prints throughput and latency percentiles next to
//! a ceiling measured in the same run, with the ratio: `/healthz` of the same server for
//! availability, the minimal raw hold through the same pool for holds, the minimal raw
//! INSERTs of the same vouchers for the import, the same emails sent by lettre alone for
//! the outbox; `/healthz` for a resource add-on's windows and plain holds beside holds
//! that take an add-on.

mod app;
mod availability;
mod groups;
mod holds;
mod import;
mod load;
mod outbox;
mod resources;
mod scale;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kairos_store::Store;
use kairos_testkit::TestDb;

#[derive(Debug, Parser)]
#[command(name = "kairos-bench", about = "Kairos load benchmarks")]
pub struct Cli {
    /// Run on a fresh database on this PostgreSQL server (e.g. postgres://postgres@127.0.0.1:5432/postgres).
    #[arg(long, global = true)]
    postgres: Option<String>,
    /// Concurrent connections.
    #[arg(long, global = true, default_value_t = 16)]
    connections: usize,
    /// Milliseconds availability answers may be served from memory (as KAIROS_AVAILABILITY_CACHE_MS; 0 = off).
    #[arg(long, global = true, default_value_t = 1000)]
    cache_ms: u64,
    /// Seconds each measured phase lasts (default: 10 for availability and scale, 5 for holds).
    #[arg(long, global = true)]
    seconds: Option<u64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// GET /availability (7-day range) over 20 products with 60 days of slots, against
    /// the same server's /healthz.
    Availability,
    /// POST /bookings/hold (party 1) on hundreds of slots, then on one slot, against the
    /// minimal raw hold through the same pool.
    Holds,
    Groups,
    /// GET the windows of a resource add-on against the same server's /healthz; holds
    /// that take a resource add-on next to plain holds.
    Resources,
    /// Holds and availability on a small database, then beside hundreds of tenants and
    /// tens of thousands of live bookings (availability cache off).
    Scale(scale::Growth),
    /// A voucher CSV of about 10 MB previewed and imported, against the same vouchers
    /// inserted by minimal raw SQL through the same pool.
    Import(import::Rows),
    /// 1,000 queued emails delivered through the outbox to a local SMTP sink, against the
    /// same emails sent by lettre straight to the sink.
    Outbox(outbox::Messages),
}

/// The database of one run.
pub struct Run {
    store: Store,
    postgres: bool,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let db = TestDb::create_on(cli.postgres.as_deref()).await;
        let postgres = cli.postgres.is_some();
        println!(
            "backend: {}",
            if postgres { "PostgreSQL" } else { "SQLite" }
        );
        let store = Store::open(&kairos_store::ConnectOptions::new(db.url()))
            .await
            .context("opening the database")?;
        let run = Run { store, postgres };
        let result = match cli.command {
            Command::Availability => availability::run(&cli, &run).await,
            Command::Holds => holds::run(&cli, &run).await,
            Command::Groups => groups::run(&cli, &run).await,
            Command::Resources => resources::run(&cli, &run).await,
            Command::Scale(growth) => scale::run(&cli, &run, growth).await,
            Command::Import(ref rows) => import::run(&cli, &run, rows.clone()).await,
            Command::Outbox(ref messages) => outbox::run(&cli, &run, messages.clone()).await,
        };
        run.store.close().await;
        drop(db);
        result
    })
}
