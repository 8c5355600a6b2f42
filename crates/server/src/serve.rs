//! The connections: hyper as axum would run it, plus the bounds axum::serve does not set. A
//! client must send a request's head within a timeout (so a slow or idle connection cannot be
//! held open for free), the head has a size limit, and shutdown waits for the requests under way
//! for a bounded time.

use std::future::Future;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt;

/// What one connection may cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// A request's head (request line and headers) must arrive within this time, counted from
    /// the connection's start or the previous answer: idle and trickling connections are closed.
    pub header_timeout: Duration,
    /// The most bytes hyper buffers for a request's head; a larger head is answered 431 without
    /// being read further. The finer limit with a JSON answer is
    /// `ServerConfig::max_header_bytes`.
    pub max_head_buffer: usize,
    /// How long shutdown waits for requests under way before closing their connections.
    pub shutdown_grace: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits {
            header_timeout: Duration::from_secs(10),
            max_head_buffer: 64 * 1024,
            shutdown_grace: Duration::from_secs(8),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` completes, then stops accepting and lets the
/// requests under way finish, for at most the grace period.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_head_buffer);
    builder.http2().timer(TokioTimer::new());
    let graceful = GracefulShutdown::new();
    // Sent when the grace period is over: connections still open are dropped, which closes them.
    let (cut_off, cut) = tokio::sync::watch::channel(());
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was accepted:
                    // the listener stays, and the next accept is tried a little later.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = tower::service_fn(move |request: hyper::Request<Incoming>| {
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(ConnectInfo(remote));
            router.clone().oneshot(request)
        });
        let (builder, watcher, mut cut) = (builder.clone(), graceful.watcher(), cut.clone());
        tokio::spawn(async move {
            // Telling HTTP/1 from HTTP/2 waits for the first bytes with no timeout of its own;
            // hyper's header timeout covers the rest of the head, and every later one.
            let first_byte = tokio::time::timeout(limits.header_timeout, stream.peek(&mut [0u8; 1])).await;
            if !matches!(first_byte, Ok(Ok(1..))) {
                return;
            }
            let connection = builder.serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
            tokio::select! {
                served = watcher.watch(connection.into_owned()) => if let Err(e) = served {
                    tracing::debug!(error = %e, remote = %remote, "connection ended with an error");
                },
                _ = cut.changed() => {}
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            grace = ?limits.shutdown_grace,
            "requests still under way at the end of the shutdown grace period are cut off"
        );
        let _ = cut_off.send(());
    }
    Ok(())
}
