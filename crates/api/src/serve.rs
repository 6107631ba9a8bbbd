//! Serving the router over TCP with bounds that no client can stretch.
//!
//! - **Open connections** are capped ([`ConnectionLimits::max_connections`]). A connection
//!   past the cap is answered at once with a 503 (`Connection: close`, `Retry-After: 1`) and
//!   closed, so the excess is refused quickly while the connections already open are
//!   served; nothing queues behind the cap.
//! - **Open connections per client address** are capped too
//!   ([`ConnectionLimits::max_connections_per_address`]; an IPv6 client is its /64, see
//!   [`per_address`]), with the same quick 503, so one address cannot fill the total cap
//!   and starve everyone else. The proxies in front
//!   ([`ConnectionLimits::trusted_proxies`]) are not counted per address.
//! - **Request heads** must arrive complete within
//!   [`ConnectionLimits::header_timeout`], counted from the moment the server waits for
//!   one: from the connection's opening, and on a kept-alive connection from the end of the
//!   previous response. The same timer is therefore the idle keep-alive timeout: a
//!   connection that sends nothing, or only part of a head, is closed when it runs out.
//! - **Request bodies** are read by [`read_body`] in the router (408 past the body timeout,
//!   413 past the body limit), before any handler can answer early.
//!
//! HTTP/1.1 only: TLS and HTTP/2 towards clients belong to the proxy in front.

mod per_address;

pub use per_address::TrustedProxies;

use crate::error::{ErrorBody, code};
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// The bounds [`serve`] keeps.
#[derive(Debug, Clone)]
pub struct ConnectionLimits {
    /// Connections open at once; the excess is refused with a 503.
    pub max_connections: usize,
    /// Connections open at once from one client address (an IPv6 client is its /64); the
    /// excess is refused with a 503. 0 = no cap.
    pub max_connections_per_address: usize,
    /// Peer addresses not counted per address (the proxies in front, through which every
    /// client arrives); they count towards `max_connections` only. Default: loopback.
    pub trusted_proxies: TrustedProxies,
    /// Time a connection has to deliver a complete request head, from its opening or from
    /// the end of its previous response (header-read and idle keep-alive timeout).
    pub header_timeout: Duration,
    /// On shutdown, how long requests in progress may take to finish.
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            max_connections: 1024,
            max_connections_per_address: 64,
            trusted_proxies: TrustedProxies::loopback(),
            header_timeout: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then lets requests in progress
/// finish (within [`ConnectionLimits::shutdown_grace`]). Handlers see the peer address as
/// `ConnectInfo<SocketAddr>`.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_address = per_address::PerAddress::new(
        limits.max_connections_per_address,
        limits.trusted_proxies.clone(),
    );
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors or a connection reset before it was
                    // accepted: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Some(slot) = per_address.open(peer.ip()) else {
            metrics::counter!("kairos_http_connections_refused_total", "cap" => "address")
                .increment(1);
            tokio::spawn(refuse(
                stream,
                "Too many open connections from your address; retry in a moment",
            ));
            continue;
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            metrics::counter!("kairos_http_connections_refused_total", "cap" => "total")
                .increment(1);
            tokio::spawn(refuse(
                stream,
                "The server has too many open connections; retry in a moment",
            ));
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            app.clone().oneshot(req.map(axum::body::Body::new))
        });
        let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            // Errors here are the client's: a reset, a malformed head, a timeout.
            if let Err(e) = connection.await {
                tracing::debug!(peer = %peer, error = %e, "connection ended");
            }
            drop((permit, slot));
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "requests still in progress after {} s; stopping anyway",
            limits.shutdown_grace.as_secs()
        );
    }
}

/// Answers a connection past a cap with a 503 in shape A and closes it, without reading
/// its request; a client that does not take the answer within a second is dropped.
async fn refuse(mut stream: TcpStream, message: &str) {
    let body = serde_json::to_string(&ErrorBody {
        error: code::SERVICE_UNAVAILABLE.to_owned(),
        message: message.to_owned(),
        code: 503,
        details: None,
    })
    .unwrap_or_default();
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}
