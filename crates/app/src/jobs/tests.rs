//! The job runner: jobs run side by side, and a failing, panicking or hanging job
//! delays no other.

use super::*;
use kairos_domain::SystemClock;
use kairos_store::{ConnectOptions, Store};
use std::sync::atomic::{AtomicU64, Ordering};

async fn app(dir: &tempfile::TempDir) -> App {
    let url = format!("sqlite://{}/kairos.db", dir.path().display());
    let store = Store::open(&ConnectOptions::new(url))
        .await
        .unwrap_or_else(|e| panic!("store: {e}"));
    App::new(
        store,
        Arc::new(SystemClock),
        crate::payments::PaymentSettings::default(),
    )
}

/// Counts its passes; `hang`: its first pass never ends (a provider that never
/// answers); `fail`/`panic`: every pass fails so.
struct Probe {
    name: &'static str,
    every: Duration,
    passes: Arc<AtomicU64>,
    behaviour: Behaviour,
}

#[derive(Clone, Copy)]
enum Behaviour {
    Works,
    Hangs,
    Fails,
    Panics,
}

impl Probe {
    fn new(name: &'static str, behaviour: Behaviour) -> (Arc<Probe>, Arc<AtomicU64>) {
        let passes = Arc::new(AtomicU64::new(0));
        let probe = Arc::new(Probe {
            name,
            every: Duration::from_millis(20),
            passes: passes.clone(),
            behaviour,
        });
        (probe, passes)
    }
}

#[async_trait::async_trait]
impl Job for Probe {
    fn name(&self) -> &'static str {
        self.name
    }

    fn every(&self) -> Duration {
        self.every
    }

    async fn run(&self, _app: &App) -> Result<u64, JobError> {
        self.passes.fetch_add(1, Ordering::SeqCst);
        match self.behaviour {
            Behaviour::Works => Ok(1),
            Behaviour::Hangs => {
                // A provider that takes the request and never answers.
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
                let mut call = tokio::net::TcpStream::connect(listener.local_addr()?).await?;
                call.write_all(b"POST /v1/refunds HTTP/1.1\r\nHost: provider\r\n\r\n")
                    .await?;
                let mut answer = Vec::new();
                call.read_to_end(&mut answer).await?;
                Ok(0)
            }
            Behaviour::Fails => Err("the provider refused".into()),
            Behaviour::Panics => panic!("a bug in the job"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_job_delays_no_other_and_failures_and_panics_come_back_next_tick() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let app = app(&dir).await;
    let (hanging, hanging_passes) = Probe::new("hanging", Behaviour::Hangs);
    let (working, working_passes) = Probe::new("working", Behaviour::Works);
    let (failing, failing_passes) = Probe::new("failing", Behaviour::Fails);
    let (panicking, panicking_passes) = Probe::new("panicking", Behaviour::Panics);
    let (stop, stopped) = watch::channel(false);
    let handles = spawn(&app, vec![hanging, working, failing, panicking], &stopped);
    tokio::time::sleep(Duration::from_millis(500)).await;
    let counts = [
        hanging_passes.load(Ordering::SeqCst),
        working_passes.load(Ordering::SeqCst),
        failing_passes.load(Ordering::SeqCst),
        panicking_passes.load(Ordering::SeqCst),
    ];
    println!(
        "passes in 500 ms at 20 ms intervals: hanging {}, working {}, failing {}, panicking {}",
        counts[0], counts[1], counts[2], counts[3]
    );
    assert_eq!(counts[0], 1, "the hanging job is still in its first pass");
    assert!(
        counts[1] >= 8,
        "the working job kept its pace: {}",
        counts[1]
    );
    assert!(
        counts[2] >= 3,
        "a failed pass is followed by the next: {}",
        counts[2]
    );
    assert!(
        counts[3] >= 3,
        "a panicking pass is followed by the next: {}",
        counts[3]
    );
    let _ = stop.send(true);
    // The hanging job never reaches its next tick; the others stop.
    for h in handles.iter().skip(1) {
        while !h.is_finished() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
    for h in handles {
        h.abort();
    }
}

#[tokio::test]
async fn a_pass_reports_its_items_a_failure_or_a_panic() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let app = app(&dir).await;
    let (working, _) = Probe::new("working", Behaviour::Works);
    let (failing, _) = Probe::new("failing", Behaviour::Fails);
    let (panicking, _) = Probe::new("panicking", Behaviour::Panics);
    assert_eq!(run_pass(working.as_ref(), &app).await, Pass::Done(1));
    assert_eq!(run_pass(failing.as_ref(), &app).await, Pass::Failed);
    assert_eq!(run_pass(panicking.as_ref(), &app).await, Pass::Panicked);
}

#[test]
fn every_job_has_its_own_name() {
    let settings = crate::messaging::delivery::DeliverySettings {
        smtp_url: None,
        mail_from: "Kairos <no-reply@example.com>".to_owned(),
        sms_url: None,
        sms_token: None,
        sms_from: None,
        public_url: None,
        files_dir: std::env::temp_dir(),
        max_attempts: 3,
        backoff: Duration::from_secs(1),
    };
    let mailer = Arc::new(Mailer::new(&settings).unwrap_or_else(|e| panic!("{e}")));
    let jobs = all(mailer);
    let mut names: Vec<&str> = jobs.iter().map(|j| j.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), jobs.len());
    assert!(jobs.iter().all(|j| j.every() >= Duration::from_secs(1)));
}
