//! `kairos-bench import`: a voucher CSV of about 10 MB (100,000 rows by default) previewed
//! and imported over HTTP, next to the ceiling measured in the same run: the same vouchers
//! and their issue entries inserted by the minimal raw SQL (multi-row INSERTs in one
//! transaction) through the same pool. Target: preview and import each under 10 s.

use crate::app::{actor, seed_site, start_server};
use crate::{Cli, Run};
use anyhow::{Context, bail};
use http_body_util::BodyExt;
use kairos_domain::auth::Role;
use kairos_domain::{Clock, SystemClock};
use kairos_store::NewAdminUser;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

const BOUNDARY: &str = "kairos-bench-boundary";
const TARGET: Duration = Duration::from_secs(10);

/// Options of the import benchmark.
#[derive(Debug, Clone, clap::Args)]
pub struct Rows {
    /// Voucher rows in the file (100,000 make about 10 MB).
    #[arg(long, default_value_t = 100_000)]
    rows: usize,
}

/// The voucher CSV: `rows` multi-use vouchers, each about 100 bytes.
fn voucher_csv(rows: usize) -> (Vec<u8>, Vec<(String, i64)>) {
    let mut csv = String::from(
        "code,voucherType,originalValue,currentBalance,currency,isActive,expiresAt,usageCount,usageLimit,customerEmail\n",
    );
    let mut codes = Vec::with_capacity(rows);
    for i in 0..rows {
        let code = format!("BENCH-{i:08}");
        let _ = writeln!(
            csv,
            "{code},multi_use,{}.50,,EUR,true,2030-12-31T23:59:59Z,0,5,customer{i:08}@example.com",
            10 + i % 90
        );
        codes.push((code, i64::try_from(1_050 + (i % 90) * 100).unwrap_or(0)));
    }
    (csv.into_bytes(), codes)
}

fn multipart(csv: &[u8]) -> Vec<u8> {
    let mut body = format!(
        "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"vouchers.csv\"\r\nContent-Type: text/csv\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(csv);
    body.extend_from_slice(format!("\r\n--{BOUNDARY}--\r\n").as_bytes());
    body
}

/// One POST; the status and the JSON answer.
async fn post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    content_type: &str,
    body: Vec<u8>,
) -> anyhow::Result<(u16, serde_json::Value)> {
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<http_body_util::Full<bytes::Bytes>>();
    let mut request = hyper::Request::builder()
        .method("POST")
        .uri(format!("http://{addr}{path}"))
        .header("content-type", content_type);
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = client
        .request(request.body(http_body_util::Full::new(bytes::Bytes::from(body)))?)
        .await?;
    let status = response.status().as_u16();
    let bytes = response.into_body().collect().await?.to_bytes();
    Ok((status, serde_json::from_slice(&bytes).unwrap_or_default()))
}

fn line(name: &str, rows: usize, took: Duration) {
    let secs = took.as_secs_f64();
    println!(
        "{name:<44} {rows} rows in {secs:>6.2} s = {:>9.0} rows/s   target < {} s: {}",
        rows as f64 / secs.max(1e-9),
        TARGET.as_secs(),
        if took < TARGET { "met" } else { "MISSED" }
    );
}

pub async fn run(_cli: &Cli, run: &Run, opts: Rows) -> anyhow::Result<()> {
    let store = &run.store;
    let (tenant, _) = seed_site(store, "bench").await?;
    let (ceiling_tenant, _) = seed_site(store, "ceiling").await?;
    let password = "bench-owner-pass";
    let hash = kairos_api::auth::passwords::hash_blocking(password)
        .map_err(|e| anyhow::anyhow!("hashing: {}", e.message))?;
    store
        .create_admin_user(
            &tenant,
            NewAdminUser {
                username: "owner".into(),
                display_name: "Bench owner".into(),
                email: None,
                password_hash: hash,
                roles: vec![Role::Owner],
            },
            &actor(),
            SystemClock.now(),
        )
        .await?;
    let addr = start_server(store.clone(), 0).await?;
    let (status, login) = post(
        addr,
        "/api/auth/login",
        &[("x-tenant-id", "bench")],
        "application/json",
        serde_json::json!({"username": "owner", "password": password, "tenantId": "bench"})
            .to_string()
            .into_bytes(),
    )
    .await?;
    if status != 200 {
        bail!("login answered {status}: {login}");
    }
    let token = login["access_token"]
        .as_str()
        .context("no access_token")?
        .to_owned();
    let bearer = format!("Bearer {token}");
    let headers = [("x-tenant-id", "bench"), ("authorization", bearer.as_str())];
    let content_type = format!("multipart/form-data; boundary={BOUNDARY}");

    let (csv, codes) = voucher_csv(opts.rows);
    println!(
        "voucher CSV: {} rows, {:.1} MB",
        opts.rows,
        csv.len() as f64 / 1_048_576.0
    );
    let body = multipart(&csv);

    let started = Instant::now();
    let (status, preview) = post(
        addr,
        "/api/v1/admin/vouchers/import/preview",
        &headers,
        &content_type,
        body.clone(),
    )
    .await?;
    let preview_took = started.elapsed();
    if status != 200 || preview["validRows"] != opts.rows {
        bail!(
            "preview answered {status}: validRows {} of {} ({})",
            preview["validRows"],
            opts.rows,
            preview["error"]
        );
    }

    let started = Instant::now();
    let (status, imported) = post(
        addr,
        "/api/v1/admin/vouchers/import",
        &headers,
        &content_type,
        body,
    )
    .await?;
    let import_took = started.elapsed();
    if status != 200 || imported["successCount"] != opts.rows {
        bail!(
            "import answered {status}: successCount {} of {} ({})",
            imported["successCount"],
            opts.rows,
            imported["error"]
        );
    }
    let mismatches = store.voucher_ledger_mismatches(&tenant).await?;
    if !mismatches.is_empty() {
        bail!("{} vouchers differ from their ledger", mismatches.len());
    }

    let started = Instant::now();
    store
        .raw_voucher_insert(&ceiling_tenant, &codes, SystemClock.now())
        .await?;
    let ceiling_took = started.elapsed();

    line(
        "POST /admin/vouchers/import/preview",
        opts.rows,
        preview_took,
    );
    line("POST /admin/vouchers/import", opts.rows, import_took);
    println!(
        "{:<44} {} rows in {:>6.2} s = {:>9.0} rows/s",
        "ceiling: raw multi-row INSERT, same pool",
        opts.rows,
        ceiling_took.as_secs_f64(),
        opts.rows as f64 / ceiling_took.as_secs_f64().max(1e-9)
    );
    println!(
        "import at {:.1} % of the ceiling's rows/s (it also parses, checks every row, answers each)",
        ceiling_took.as_secs_f64() / import_took.as_secs_f64().max(1e-9) * 100.0
    );
    Ok(())
}
