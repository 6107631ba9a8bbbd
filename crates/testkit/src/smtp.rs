//! An SMTP sink for tests and benchmarks: a listener on 127.0.0.1 that speaks enough of
//! RFC 5321 for a real client (EHLO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP,
//! QUIT), keeps what it receives, and can be told to refuse mail for good (550) or for
//! now (451).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// How the sink answers `RCPT TO`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Accept = 0,
    /// 550: the address does not exist (a permanent failure).
    Reject = 1,
    /// 451: try again later (a transient failure).
    TempFail = 2,
}

/// A message the sink accepted.
#[derive(Debug, Clone)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent (headers and body), dot-unstuffed.
    pub data: String,
}

impl Received {
    /// The value of header `name` (first occurrence, unfolded).
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if let Some(v) = value.as_mut() {
                if line.starts_with([' ', '\t']) {
                    v.push_str(line.trim_start());
                    continue;
                }
                break;
            }
            if let Some((n, v)) = line.split_once(':')
                && n.eq_ignore_ascii_case(name)
            {
                value = Some(v.trim().to_owned());
            }
        }
        value
    }
}

struct Shared {
    mode: AtomicU8,
    received: Mutex<Vec<Received>>,
    arrived: Notify,
}

/// A running sink; it stops when dropped.
pub struct SmtpSink {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl SmtpSink {
    /// Starts a sink on a free port.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("bind SMTP sink: {e}"));
        let addr = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("SMTP sink address: {e}"));
        let shared = Arc::new(Shared {
            mode: AtomicU8::new(Mode::Accept as u8),
            received: Mutex::new(Vec::new()),
            arrived: Notify::new(),
        });
        let for_task = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = for_task.clone();
                tokio::spawn(async move {
                    let _ = session(stream, &shared).await;
                });
            }
        });
        SmtpSink { addr, shared, task }
    }

    /// `smtp://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    pub fn set_mode(&self, mode: Mode) {
        self.shared.mode.store(mode as u8, Ordering::SeqCst);
    }

    /// What arrived so far.
    pub fn received(&self) -> Vec<Received> {
        self.shared
            .received
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }

    /// Waits until `n` messages have arrived (at most `timeout`); returns what arrived.
    pub async fn wait_for(&self, n: usize, timeout: std::time::Duration) -> Vec<Received> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.shared.arrived.notified();
            let got = self.received();
            if got.len() >= n || tokio::time::Instant::now() >= deadline {
                return got;
            }
            let _ = tokio::time::timeout_at(deadline, notified).await;
        }
    }
}

fn mode(shared: &Shared) -> Mode {
    match shared.mode.load(Ordering::SeqCst) {
        1 => Mode::Reject,
        2 => Mode::TempFail,
        _ => Mode::Accept,
    }
}

async fn session(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    write.write_all(b"220 sink.test ESMTP ready\r\n").await?;
    let mut from = String::new();
    let mut to: Vec<String> = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        if lines.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_owned();
        let verb = command
            .split([' ', ':'])
            .next()
            .unwrap_or_default()
            .to_ascii_uppercase();
        let reply: &[u8] = match verb.as_str() {
            "EHLO" => b"250-sink.test\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n",
            "HELO" => b"250 sink.test\r\n",
            "MAIL" => {
                from = address(&command);
                to.clear();
                b"250 2.1.0 OK\r\n"
            }
            "RCPT" => match mode(shared) {
                Mode::Accept => {
                    to.push(address(&command));
                    b"250 2.1.5 OK\r\n"
                }
                Mode::Reject => b"550 5.1.1 No such user here\r\n",
                Mode::TempFail => b"451 4.3.0 Try again later\r\n",
            },
            "DATA" => {
                if to.is_empty() {
                    b"554 5.5.1 No valid recipients\r\n"
                } else {
                    write
                        .write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")
                        .await?;
                    let mut data = String::new();
                    loop {
                        line.clear();
                        if lines.read_line(&mut line).await? == 0 {
                            return Ok(());
                        }
                        if line == ".\r\n" || line == ".\n" {
                            break;
                        }
                        let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                        data.push_str(unstuffed);
                    }
                    if let Ok(mut r) = shared.received.lock() {
                        r.push(Received {
                            from: from.clone(),
                            to: std::mem::take(&mut to),
                            data,
                        });
                    }
                    shared.arrived.notify_waiters();
                    b"250 2.0.0 Queued\r\n"
                }
            }
            "RSET" => {
                from.clear();
                to.clear();
                b"250 2.0.0 OK\r\n"
            }
            "NOOP" => b"250 2.0.0 OK\r\n",
            "QUIT" => {
                write.write_all(b"221 2.0.0 Bye\r\n").await?;
                return Ok(());
            }
            _ => b"502 5.5.2 Command not recognized\r\n",
        };
        write.write_all(reply).await?;
    }
}

/// The address of `MAIL FROM:<a>` or `RCPT TO:<a>`.
fn address(command: &str) -> String {
    let start = command.find('<').map_or(0, |i| i + 1);
    let end = command[start..]
        .find('>')
        .map_or(command.len(), |i| start + i);
    command[start..end].to_owned()
}
