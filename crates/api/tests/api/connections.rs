//! Connections under hostile clients, over real TCP: half-open requests, idle keep-alive,
//! the connection caps (in all and per client address), slow and oversized bodies, and
//! early answers on kept-alive connections. Each test prints what it measured.

use kairos_api::rate_limit::Limits;
use kairos_api::{ConnectionLimits, TrustedProxies};
use kairos_testkit::{TestApp, http};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// One HTTP/1.1 response read off a raw connection.
struct RawResponse {
    status: u16,
    headers: String,
    body: String,
}

/// Reads one response (head and a `Content-Length` body); `None` when the server closed
/// the connection first.
async fn read_response(stream: &mut TcpStream, buf: &mut Vec<u8>) -> Option<RawResponse> {
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status in {head:?}"));
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
    buf.drain(..head_end + length);
    Some(RawResponse {
        status,
        headers: head.to_ascii_lowercase(),
        body,
    })
}

/// Waits until the server closes `stream` (reading and dropping whatever it sends).
/// Returns false when it is still open at `deadline`.
async fn closed_by(stream: &mut TcpStream, deadline: Instant) -> bool {
    let mut chunk = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return true,
            Ok(Ok(_)) => {}
            Err(_) => return false,
        }
    }
}

async fn connect(addr: SocketAddr) -> TcpStream {
    TcpStream::connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect to {addr}: {e}"))
}

/// A connection to `addr` from the loopback address `from` (127.0.0.2 is a second client
/// on this machine).
async fn connect_from(from: Ipv4Addr, addr: SocketAddr) -> TcpStream {
    let socket = tokio::net::TcpSocket::new_v4().unwrap_or_else(|e| panic!("socket: {e}"));
    socket
        .bind(SocketAddr::new(IpAddr::V4(from), 0))
        .unwrap_or_else(|e| panic!("bind {from}: {e}"));
    socket
        .connect(addr)
        .await
        .unwrap_or_else(|e| panic!("connect from {from} to {addr}: {e}"))
}

/// `GET /healthz` on a new connection from `from`: the answer, and how long it took.
async fn healthz_from(from: Ipv4Addr, addr: SocketAddr) -> (RawResponse, Duration) {
    let asked = Instant::now();
    let mut stream = connect_from(from, addr).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: kairos\r\nConnection: close\r\n\r\n")
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let res = tokio::time::timeout(
        Duration::from_secs(5),
        read_response(&mut stream, &mut Vec::new()),
    )
    .await
    .unwrap_or_else(|_| panic!("no answer from {addr} to {from} within 5 s"))
    .unwrap_or_else(|| panic!("closed without an answer to {from}"));
    (res, asked.elapsed())
}

/// Opens `n` connections that each send part of a request head and then nothing.
async fn half_open(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    let mut held = Vec::with_capacity(n);
    for _ in 0..n {
        let mut stream = connect(addr).await;
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: kairos\r\n")
            .await
            .unwrap_or_else(|e| panic!("write: {e}"));
        held.push(stream);
    }
    held
}

#[tokio::test]
async fn half_open_connections_neither_starve_others_nor_stay_open() {
    const HELD: usize = 1000;
    let timeout = Duration::from_secs(2);
    let app = TestApp::builder()
        .connections(ConnectionLimits {
            header_timeout: timeout,
            ..ConnectionLimits::default()
        })
        .spawn()
        .await;
    let addr = app.serve().await;
    let opened = Instant::now();
    let mut held = half_open(addr, HELD).await;

    let asked = Instant::now();
    let (status, _) = http(addr, "GET", "/healthz", &[], None).await;
    let latency = asked.elapsed();
    assert_eq!(
        status, 200,
        "/healthz answers while {HELD} connections stall"
    );
    assert!(
        opened.elapsed() < timeout,
        "the stalled connections were all still open when /healthz answered"
    );

    let deadline = opened + timeout + Duration::from_secs(3);
    let mut still_open = 0;
    for stream in &mut held {
        if !closed_by(stream, deadline).await {
            still_open += 1;
        }
    }
    let closed_after = opened.elapsed();
    assert_eq!(
        still_open, 0,
        "every stalled connection is closed once the header timeout passes"
    );
    eprintln!(
        "measured: {HELD} half-open connections held; /healthz answered in {:.1} ms meanwhile; \
         all closed {:.2} s after opening (header timeout {} s)",
        latency.as_secs_f64() * 1000.0,
        closed_after.as_secs_f64(),
        timeout.as_secs()
    );
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed_after_the_header_timeout() {
    let app = TestApp::builder()
        .connections(ConnectionLimits {
            header_timeout: Duration::from_secs(1),
            ..ConnectionLimits::default()
        })
        .spawn()
        .await;
    let addr = app.serve().await;
    let mut stream = connect(addr).await;
    let mut buf = Vec::new();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: kairos\r\n\r\n")
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let res = read_response(&mut stream, &mut buf)
        .await
        .unwrap_or_else(|| panic!("no answer"));
    assert_eq!(res.status, 200);
    let idle = Instant::now();
    assert!(
        closed_by(&mut stream, idle + Duration::from_secs(4)).await,
        "an idle kept-alive connection is closed"
    );
    assert!(
        idle.elapsed() >= Duration::from_millis(900),
        "not before the timeout: closed after {:?}",
        idle.elapsed()
    );
}

#[tokio::test]
async fn connections_past_the_cap_are_refused_at_once_and_served_again_once_freed() {
    const CAP: usize = 20;
    let app = TestApp::builder()
        .connections(ConnectionLimits {
            max_connections: CAP,
            header_timeout: Duration::from_secs(2),
            ..ConnectionLimits::default()
        })
        .spawn()
        .await;
    let addr = app.serve().await;
    let mut held = half_open(addr, CAP).await;
    // The accept loop takes them in order; give it a moment to take all of them.
    tokio::time::sleep(Duration::from_millis(200)).await;

    let asked = Instant::now();
    let mut extra = connect(addr).await;
    extra
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: kairos\r\n\r\n")
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let res = read_response(&mut extra, &mut Vec::new())
        .await
        .unwrap_or_else(|| panic!("the refused connection gets an answer"));
    let refused_in = asked.elapsed();
    assert_closing_error(&res, 503, "SERVICE_UNAVAILABLE");
    assert!(res.headers.contains("retry-after: 1"), "{}", res.headers);
    assert!(
        refused_in < Duration::from_secs(1),
        "refused at once, not after a wait: {refused_in:?}"
    );

    for stream in &mut held {
        assert!(closed_by(stream, Instant::now() + Duration::from_secs(5)).await);
    }
    // Closed connections give their places back.
    let (status, _) = http(addr, "GET", "/healthz", &[], None).await;
    assert_eq!(status, 200);
    eprintln!(
        "measured: cap {CAP}; connection {} refused with 503 in {:.1} ms",
        CAP + 1,
        refused_in.as_secs_f64() * 1000.0
    );
}

#[tokio::test]
async fn one_address_past_its_cap_is_refused_while_another_address_is_served() {
    const PER_ADDRESS: usize = 10;
    const TOTAL: usize = 24;
    // More than the total cap: without the per-address cap they would fill it.
    const OPENED: usize = 30;
    let (first, second) = (Ipv4Addr::new(127, 0, 0, 1), Ipv4Addr::new(127, 0, 0, 2));
    let app = TestApp::builder()
        .connections(ConnectionLimits {
            max_connections: TOTAL,
            max_connections_per_address: PER_ADDRESS,
            trusted_proxies: TrustedProxies::none(),
            header_timeout: Duration::from_secs(2),
            ..ConnectionLimits::default()
        })
        .spawn()
        .await;
    let addr = app.serve().await;

    // The first address opens connections and sends nothing on them.
    let mut opened = Vec::with_capacity(OPENED);
    for _ in 0..OPENED {
        opened.push(connect_from(first, addr).await);
    }
    let opened_at = Instant::now();
    // The accept loop takes them in order; give it a moment to take all of them.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut held = Vec::new();
    let mut refused = 0;
    for mut stream in opened {
        match tokio::time::timeout(
            Duration::from_millis(100),
            read_response(&mut stream, &mut Vec::new()),
        )
        .await
        {
            Ok(Some(res)) => {
                assert_closing_error(&res, 503, "SERVICE_UNAVAILABLE");
                assert!(res.headers.contains("retry-after: 1"), "{}", res.headers);
                assert!(res.body.contains("your address"), "{}", res.body);
                refused += 1;
            }
            Ok(None) => panic!("a connection was closed without an answer"),
            Err(_) => held.push(stream),
        }
    }
    assert_eq!(held.len(), PER_ADDRESS, "the first address holds its cap");
    assert_eq!(
        refused,
        OPENED - PER_ADDRESS,
        "its excess gets a 503 at once"
    );

    // Another address is served meanwhile, while the first one is still refused.
    let (res, served_in) = healthz_from(second, addr).await;
    assert_eq!(res.status, 200, "{}", res.body);
    let (res, refused_in) = healthz_from(first, addr).await;
    assert_closing_error(&res, 503, "SERVICE_UNAVAILABLE");
    assert!(
        refused_in < Duration::from_secs(1),
        "refused at once: {refused_in:?}"
    );
    assert!(
        opened_at.elapsed() < Duration::from_secs(2),
        "the held connections were still open throughout"
    );

    // Once the header timeout closes them, the first address is served again.
    for stream in &mut held {
        assert!(closed_by(stream, Instant::now() + Duration::from_secs(5)).await);
    }
    let mut again = 0;
    for _ in 0..20 {
        let (res, _) = healthz_from(first, addr).await;
        if res.status == 200 {
            again = 200;
            break;
        }
        // The server counts a connection out just after closing it.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(again, 200, "closed connections give their places back");
    eprintln!(
        "measured: cap {PER_ADDRESS} per address, {TOTAL} in all; {first} opened {OPENED} \
         half-open connections: {} held, {refused} refused with 503; {second} served 200 in \
         {:.1} ms meanwhile; {first}'s next connection refused in {:.1} ms",
        held.len(),
        served_in.as_secs_f64() * 1000.0,
        refused_in.as_secs_f64() * 1000.0
    );
}

#[tokio::test]
async fn a_trusted_proxy_is_not_capped_per_address() {
    const PER_ADDRESS: usize = 5;
    const OPENED: usize = 12;
    let proxy = Ipv4Addr::new(127, 0, 0, 3);
    let app = TestApp::builder()
        .connections(ConnectionLimits {
            max_connections_per_address: PER_ADDRESS,
            trusted_proxies: TrustedProxies::parse("127.0.0.3").unwrap_or_else(|e| panic!("{e}")),
            header_timeout: Duration::from_secs(2),
            ..ConnectionLimits::default()
        })
        .spawn()
        .await;
    let addr = app.serve().await;
    let mut held = Vec::with_capacity(OPENED);
    for _ in 0..OPENED {
        held.push(connect_from(proxy, addr).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (res, _) = healthz_from(proxy, addr).await;
    assert_eq!(res.status, 200, "{}", res.body);
    for stream in &mut held {
        let answer = tokio::time::timeout(
            Duration::from_millis(20),
            read_response(stream, &mut Vec::new()),
        )
        .await;
        assert!(answer.is_err(), "the proxy's connections are all held open");
    }
}

/// An answer in shape A with `status` and `code` that closes its connection.
fn assert_closing_error(res: &RawResponse, status: u16, code: &str) {
    assert_eq!(res.status, status, "{}", res.body);
    assert!(
        res.body.contains(&format!("\"error\":\"{code}\"")),
        "{}",
        res.body
    );
    assert!(res.headers.contains("connection: close"), "{}", res.headers);
}

/// Sends `head` (a request head without its blank line) announcing a body, then nothing.
async fn stalled_body(addr: SocketAddr, head: &str) -> (TcpStream, RawResponse, Duration) {
    let mut stream = connect(addr).await;
    stream
        .write_all(format!("{head}\r\n\r\n").as_bytes())
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let sent = Instant::now();
    let res = tokio::time::timeout(
        Duration::from_secs(10),
        read_response(&mut stream, &mut Vec::new()),
    )
    .await
    .unwrap_or_else(|_| panic!("no answer within 10 s"))
    .unwrap_or_else(|| panic!("closed without an answer"));
    (stream, res, sent.elapsed())
}

#[tokio::test]
async fn a_body_that_never_arrives_is_answered_408_and_the_connection_closed() {
    let app = TestApp::builder()
        .body_read_timeout(Duration::from_secs(1))
        .spawn()
        .await;
    let addr = app.serve().await;
    let (mut stream, res, took) = stalled_body(
        addr,
        "POST /api/v1/bookings/hold HTTP/1.1\r\nHost: kairos\r\n\
         Content-Type: application/json\r\nContent-Length: 100",
    )
    .await;
    assert_closing_error(&res, 408, "REQUEST_TIMEOUT");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(closed_by(&mut stream, Instant::now() + Duration::from_secs(2)).await);
}

#[tokio::test]
async fn an_announced_body_over_the_limit_is_refused_before_it_is_sent() {
    let app = TestApp::spawn().await;
    let addr = app.serve().await;
    let (mut stream, res, took) = stalled_body(
        addr,
        "POST /api/v1/bookings/hold HTTP/1.1\r\nHost: kairos\r\n\
         Content-Type: application/json\r\nContent-Length: 10000000000",
    )
    .await;
    assert_closing_error(&res, 413, "PAYLOAD_TOO_LARGE");
    assert!(took < Duration::from_secs(1), "at once: {took:?}");
    assert!(closed_by(&mut stream, Instant::now() + Duration::from_secs(2)).await);
}

#[tokio::test]
async fn a_chunked_body_growing_past_the_limit_is_refused() {
    let app = TestApp::spawn().await;
    let addr = app.serve().await;
    let mut stream = connect(addr).await;
    stream
        .write_all(
            b"POST /api/v1/bookings/hold HTTP/1.1\r\nHost: kairos\r\n\
              Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        )
        .await
        .unwrap_or_else(|e| panic!("write: {e}"));
    let chunk = format!("10000\r\n{}\r\n", " ".repeat(0x10000));
    // 2 MiB in 64 KiB chunks; the server stops reading past 1 MiB and answers.
    for _ in 0..32 {
        if stream.write_all(chunk.as_bytes()).await.is_err() {
            break;
        }
    }
    let res = read_response(&mut stream, &mut Vec::new())
        .await
        .unwrap_or_else(|| panic!("closed without an answer"));
    assert_closing_error(&res, 413, "PAYLOAD_TOO_LARGE");
}

#[tokio::test]
async fn early_answers_keep_a_kept_alive_connection_usable() {
    const REQUESTS: usize = 200;
    let app = TestApp::builder().limits(Limits::UNLIMITED).spawn().await;
    let tenant = app.tenant("early").await;
    let addr = app.serve().await;
    let mut stream = connect(addr).await;
    stream
        .set_nodelay(true)
        .unwrap_or_else(|e| panic!("nodelay: {e}"));
    let body = r#"{"name":"Escape room","description":"A locked room"}"#;
    let mut buf = Vec::new();
    let mut answered = 0;
    for i in 0..REQUESTS {
        // No token: the answer (401) needs nothing of the body, which follows in a
        // separate write.
        let head = format!(
            "POST /api/v1/admin/products HTTP/1.1\r\nHost: kairos\r\nx-tenant-id: {}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            tenant.id,
            body.len()
        );
        stream
            .write_all(head.as_bytes())
            .await
            .unwrap_or_else(|e| panic!("request {i}: write head: {e}"));
        stream
            .flush()
            .await
            .unwrap_or_else(|e| panic!("flush: {e}"));
        tokio::time::sleep(Duration::from_millis(1)).await;
        if stream.write_all(body.as_bytes()).await.is_err() {
            break;
        }
        match read_response(&mut stream, &mut buf).await {
            Some(res) => {
                assert_eq!(res.status, 401, "request {i}: {}", res.body);
                assert!(
                    !res.headers.contains("connection: close"),
                    "{}",
                    res.headers
                );
                answered += 1;
            }
            None => break,
        }
    }
    assert_eq!(
        answered, REQUESTS,
        "every request on the connection is answered"
    );
}
