//! The built-in HTTP load generator and the figures of a measured phase.

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Figures of one measured phase.
pub struct Phase {
    pub requests: u64,
    pub errors: u64,
    pub elapsed: Duration,
    pub latency: Histogram<u64>,
    /// What the first failed request got (a status, a transport or database error), so a
    /// failed run says why.
    pub first_error: Option<String>,
}

impl Phase {
    pub fn empty() -> anyhow::Result<Phase> {
        Ok(Phase {
            requests: 0,
            errors: 0,
            elapsed: Duration::ZERO,
            latency: Histogram::new_with_bounds(1, 60_000_000, 3)?,
            first_error: None,
        })
    }

    /// Adds the figures of another run of the same phase.
    pub fn absorb(&mut self, other: Phase) -> anyhow::Result<()> {
        self.requests += other.requests;
        self.errors += other.errors;
        self.elapsed += other.elapsed;
        self.latency.add(other.latency)?;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
        Ok(())
    }

    pub fn rate(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The 99th latency percentile in milliseconds.
    pub fn p99_ms(&self) -> f64 {
        self.latency.value_at_quantile(0.99) as f64 / 1000.0
    }

    /// Requests that got the expected answer.
    pub fn succeeded(&self) -> u64 {
        self.requests - self.errors
    }

    pub fn print(&self, name: &str) {
        self.print_as(name, "req/s");
    }

    pub fn print_as(&self, name: &str, unit: &str) {
        println!(
            "{name:<14} {:>9.0} {unit}  p50 {:>6.2} ms  p99 {:>6.2} ms  max {:>7.2} ms  requests {:>8}  errors {}",
            self.rate(),
            self.latency.value_at_quantile(0.50) as f64 / 1000.0,
            self.latency.value_at_quantile(0.99) as f64 / 1000.0,
            self.latency.max() as f64 / 1000.0,
            self.requests,
            self.errors
        );
        if let Some(first) = &self.first_error {
            println!("{:<14} first error: {first}", "");
        }
    }
}

/// Builds the request a connection sends next, from its worker number and the number of
/// requests it sent before.
pub type MakeRequest =
    Arc<dyn Fn(usize, u64) -> anyhow::Result<hyper::Request<Full<Bytes>>> + Send + Sync>;

/// Sends GETs to `paths` (round robin) from `connections` tasks for `duration`.
pub async fn drive(
    addr: SocketAddr,
    headers: Vec<(&'static str, String)>,
    paths: Arc<Vec<String>>,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let make: MakeRequest = Arc::new(move |worker, i| {
        let path = &paths[(worker + usize::try_from(i)?) % paths.len()];
        let mut req = hyper::Request::get(format!("http://{addr}{path}"));
        for (k, v) in &headers {
            req = req.header(*k, v);
        }
        Ok(req.body(Full::new(Bytes::new()))?)
    });
    load(make, 0, |s| s.is_success(), connections, duration).await
}

/// Sends the requests `make` builds from `connections` tasks (one keep-alive connection
/// each) for `duration`, numbering each task's requests from `first`; answers for which
/// `ok` is false count as errors.
pub async fn load(
    make: MakeRequest,
    first: u64,
    ok: fn(hyper::StatusCode) -> bool,
    connections: usize,
    duration: Duration,
) -> anyhow::Result<Phase> {
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let make = make.clone();
        tasks.push(tokio::spawn(async move {
            let mut connector = HttpConnector::new();
            connector.set_nodelay(true);
            let client: Client<_, Full<Bytes>> = Client::builder(TokioExecutor::new())
                .pool_max_idle_per_host(1)
                .build(connector);
            let mut hist = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut good, mut errors) = (0u64, 0u64);
            let mut first_error = None;
            let mut i = first;
            while Instant::now() < deadline {
                let req = make(worker, i)?;
                i += 1;
                let sent = Instant::now();
                match client.request(req).await {
                    Ok(res) => {
                        let status = res.status();
                        let body = res.into_body().collect().await;
                        hist.record(sent.elapsed().as_micros().max(1) as u64)?;
                        match body {
                            Ok(_) if ok(status) => good += 1,
                            Ok(_) => {
                                errors += 1;
                                first_error.get_or_insert_with(|| format!("HTTP {status}"));
                            }
                            Err(e) => {
                                errors += 1;
                                first_error.get_or_insert_with(|| format!("reading the body: {e}"));
                            }
                        }
                    }
                    Err(e) => {
                        errors += 1;
                        first_error.get_or_insert_with(|| format!("sending: {e}"));
                    }
                }
            }
            anyhow::Ok((good, errors, hist, first_error))
        }));
    }
    let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
    let (mut requests, mut errors, mut first_error) = (0, 0, None);
    for t in tasks {
        let (good, err, hist, first) = t.await??;
        requests += good + err;
        errors += err;
        latency.add(hist)?;
        first_error = first_error.or(first);
    }
    Ok(Phase {
        requests,
        errors,
        elapsed: start.elapsed(),
        latency,
        first_error,
    })
}

/// A well-mixed index below `n` for request `i` of `worker` (splitmix64).
pub fn pick(worker: usize, i: u64, n: usize) -> usize {
    let mut z = (worker as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(i.wrapping_mul(0xD1B5_4A32_D192_ED03));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % n as u64) as usize
}
