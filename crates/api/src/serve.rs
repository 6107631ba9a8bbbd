//! Serving the router over TCP with bounds that no client can stretch.
//!
//! - **Open connections** are capped ([`ConnectionLimits::max_connections`]). A connection
//!   past the cap is answered at once with a 503 (`Connection: close`, `Retry-After: 1`) and
//!   closed, so the excess is refused quickly while the connections already open are
//!   served; nothing queues behind the cap.
//! - **Request heads** must arrive complete within
//!   [`ConnectionLimits::header_timeout`], counted from the moment the server waits for
//!   one: from the connection's opening, and on a kept-alive connection from the end of the
//!   previous response. The same timer is therefore the idle keep-alive timeout: a
//!   connection that sends nothing, or only part of a head, is closed when it runs out.
//! - **Request bodies** are read by [`read_body`] in the router (408 past the body timeout,
//!   413 past the body limit), before any handler can answer early.
//!
//! HTTP/1.1 only: TLS and HTTP/2 towards clients belong to the proxy in front.

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
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    /// Connections open at once; the excess is refused with a 503.
    pub max_connections: usize,
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
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            metrics::counter!("kairos_http_connections_refused_total").increment(1);
            tokio::spawn(refuse(stream));
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
            drop(permit);
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

/// Answers a connection past the cap with a 503 in shape A and closes it, without reading
/// its request; a client that does not take the answer within a second is dropped.
async fn refuse(mut stream: TcpStream) {
    let body = serde_json::to_string(&ErrorBody {
        error: code::SERVICE_UNAVAILABLE.to_owned(),
        message: "The server has too many open connections; retry in a moment".to_owned(),
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
