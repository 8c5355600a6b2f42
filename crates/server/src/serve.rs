//! The connections: hyper as axum would run it, plus the bounds axum::serve does not set. A
//! client must send a request's head within a timeout (so a slow or idle connection cannot be
//! held open for free), the head has a size limit, a connection with no request under way is
//! closed after the same timeout (HTTP/1 and HTTP/2 alike), an HTTP/2 connection carries a
//! bounded number of streams and answers pings while streams are open, a request's body must
//! arrive within its own timeout, and shutdown waits for the requests under way for a bounded
//! time.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::time::Instant;
use tower::ServiceExt;

use crate::config::ConnectionLimits;

/// How long a connection told to close (idle, or at shutdown) is given to do so (an HTTP/2 peer
/// must answer the GOAWAY's ping), and then how long it may stay without a request under way.
const CLOSING_GRACE: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` completes, then stops accepting and lets the
/// requests under way finish, for at most the grace period. With `tls`, every connection is TLS
/// (HTTP/2 or HTTP/1.1, as ALPN or the client's first bytes say).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: ConnectionLimits,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_head_buffer);
    builder
        .http2()
        .timer(TokioTimer::new())
        .max_concurrent_streams(limits.max_streams)
        .max_header_list_size(u32::try_from(limits.max_head_buffer).unwrap_or(u32::MAX))
        .keep_alive_interval(limits.keep_alive_interval)
        .keep_alive_timeout(limits.keep_alive_timeout);
    // Every connection holds a receiver until it ends: shutdown sends `true`, then waits for
    // them all to be dropped.
    let (closing, closing_seen) = watch::channel(false);
    // Sent when the grace period is over: connections still open are dropped, which closes them.
    let (cut_off, cut) = watch::channel(());
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
        let under_way = UnderWay::default();
        let service = {
            let under_way = under_way.clone();
            tower::service_fn(move |request: hyper::Request<Incoming>| {
                // Held until the answer's body is dropped: an HTTP/2 stream is open as long as
                // its answer is being sent (a trade-events stream, for hours).
                let open = under_way.open();
                let mut request = request.map(|body| Body::new(TimedBody::new(body, limits.body_timeout)));
                request.extensions_mut().insert(ConnectInfo(remote));
                let answer = router.clone().oneshot(request);
                async move {
                    let Ok(answer) = answer.await;
                    // A scenario rule drops this answer: the connection closes without it.
                    if answer.extensions().get::<crate::scenarios::DropAnswer>().is_some() {
                        return Err(AnswerDropped);
                    }
                    Ok(answer.map(|body| Body::new(HeldBody { body, _open: open })))
                }
            })
        };
        let (builder, mut closing, cut) = (builder.clone(), closing_seen.clone(), cut.clone());
        let tls = tls.clone();
        tokio::spawn(async move {
            let connection = Connection {
                builder,
                under_way,
                closing: closing.clone(),
                cut,
                limits,
                remote,
            };
            let Some(tls) = tls else {
                // Telling HTTP/1 from HTTP/2 waits for the first bytes with no timeout of its
                // own; hyper's header timeout covers the rest of an HTTP/1 head, and every later
                // one.
                let mut first = [0u8; 1];
                let first_byte = tokio::select! {
                    peeked = tokio::time::timeout(limits.header_timeout, stream.peek(&mut first)) => peeked,
                    _ = closing.wait_for(|closing| *closing) => return,
                };
                if !matches!(first_byte, Ok(Ok(1..))) {
                    return;
                }
                return connection.run(stream, service).await;
            };
            // The handshake and the first byte of the first request, within the header timeout:
            // a client that connects and sends nothing, or trickles its handshake, is closed
            // after it as on plain HTTP. What is not TLS (plain HTTP) fails the handshake at its
            // first bytes and is closed at once.
            let opened = async {
                let stream = tokio_rustls::TlsAcceptor::from(tls).accept(stream).await?;
                let mut stream = tokio::io::BufReader::with_capacity(TLS_READ_BUFFER, stream);
                let first = tokio::io::AsyncBufReadExt::fill_buf(&mut stream).await?.len();
                Ok::<_, std::io::Error>((stream, first))
            };
            let opened = tokio::select! {
                opened = tokio::time::timeout(limits.header_timeout, opened) => opened,
                _ = closing.wait_for(|closing| *closing) => return,
            };
            match opened {
                Ok(Ok((stream, 1..))) => connection.run(stream, service).await,
                Ok(Ok(_)) => {}
                Ok(Err(e)) => tracing::debug!(error = %e, remote = %remote, "TLS handshake failed"),
                Err(_) => tracing::debug!(remote = %remote, "TLS connection closed: nothing within the header timeout"),
            }
        });
    }
    drop(listener);
    drop(closing_seen);
    let _ = closing.send(true);
    if tokio::time::timeout(limits.shutdown_grace, closing.closed())
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

/// What one accepted connection needs to be served, whatever carries it (TCP, or TLS over TCP).
struct Connection {
    builder: Builder<TokioExecutor>,
    under_way: UnderWay,
    closing: watch::Receiver<bool>,
    cut: watch::Receiver<()>,
    limits: ConnectionLimits,
    remote: std::net::SocketAddr,
}

/// The read buffer of a TLS connection, which holds the first bytes of a request while the
/// connection waits for them: hyper reads through it (a read at least this large skips it).
const TLS_READ_BUFFER: usize = 4096;

impl Connection {
    /// Serves HTTP/1 or HTTP/2 on `io` until the connection ends, is idle for the header timeout,
    /// or the server shuts down.
    async fn run<I, S>(self, io: I, service: S)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
        S: tower::Service<hyper::Request<Incoming>, Response = hyper::Response<Body>, Error = AnswerDropped>
            + Clone
            + Send
            + 'static,
        S::Future: Send + 'static,
    {
        let Connection {
            builder,
            under_way,
            mut closing,
            mut cut,
            limits,
            remote,
        } = self;
        let connection = builder.serve_connection(TokioIo::new(io), TowerToHyperService::new(service));
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            served = connection.as_mut() => return log_end(served, remote),
            () = under_way.none_for(limits.header_timeout) => {}
            _ = closing.wait_for(|closing| *closing) => {}
        }
        // HTTP/1 closes at once between requests; HTTP/2 sends GOAWAY and lets the streams
        // it has finish.
        connection.as_mut().graceful_shutdown();
        let given_up = async {
            tokio::time::sleep(CLOSING_GRACE).await;
            under_way.none_for(CLOSING_GRACE).await;
        };
        tokio::select! {
            served = connection => log_end(served, remote),
            () = given_up => {}
            _ = cut.changed() => {}
        }
    }
}

/// What the connection's service fails with when a scenario rule drops an answer: hyper then
/// closes the connection (resets the stream, on HTTP/2) without answering.
#[derive(Debug)]
struct AnswerDropped;

impl std::fmt::Display for AnswerDropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a scenario rule dropped the answer")
    }
}

impl std::error::Error for AnswerDropped {}

fn log_end<E: std::fmt::Display>(served: Result<(), E>, remote: std::net::SocketAddr) {
    if let Err(e) = served {
        tracing::debug!(error = %e, remote = %remote, "connection ended with an error");
    }
}

/// The requests under way on one connection (HTTP/2 carries several at once), from the call of
/// the service until the answer's body is dropped, and when that number last changed.
#[derive(Clone)]
struct UnderWay(watch::Sender<Activity>);

#[derive(Clone, Copy)]
struct Activity {
    open: usize,
    since: Instant,
}

impl Default for UnderWay {
    fn default() -> Self {
        UnderWay(
            watch::channel(Activity {
                open: 0,
                since: Instant::now(),
            })
            .0,
        )
    }
}

impl UnderWay {
    /// Counts a request until the guard is dropped.
    fn open(&self) -> Open {
        self.0.send_modify(|a| {
            *a = Activity {
                open: a.open + 1,
                since: Instant::now(),
            }
        });
        Open(self.0.clone())
    }

    /// Resolves once no request has been under way for `period`. (What is watched is the time
    /// of the last change, not the count alone: a request that starts and ends between two looks
    /// still counts.)
    async fn none_for(&self, period: Duration) {
        let mut activity = self.0.subscribe();
        loop {
            let Activity { open, since } = *activity.borrow_and_update();
            let quiet_until = since + period;
            if open == 0 && Instant::now() >= quiet_until {
                return;
            }
            // The sender lives in `self`: a change can always come.
            tokio::select! {
                () = tokio::time::sleep_until(quiet_until), if open == 0 => {}
                _ = activity.changed() => {}
            }
        }
    }
}

/// One request under way.
struct Open(watch::Sender<Activity>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.send_modify(|a| {
            *a = Activity {
                open: a.open - 1,
                since: Instant::now(),
            }
        });
    }
}

/// An answer's body, which keeps its request counted as under way until it is dropped.
struct HeldBody {
    body: Body,
    _open: Open,
}

impl hyper::body::Body for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A request's body that fails with [`BodyTimeout`] when it has not all arrived within its time,
/// counted from the first time the server waits for it (a body that is not read, or that
/// arrived whole, costs no timer).
struct TimedBody {
    body: Incoming,
    timeout: Duration,
    deadline: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl TimedBody {
    fn new(body: Incoming, timeout: Duration) -> Self {
        TimedBody {
            body,
            timeout,
            deadline: None,
        }
    }
}

/// A request's body that did not arrive within `ConnectionLimits::body_timeout`.
#[derive(Debug, thiserror::Error)]
#[error("the request's body did not arrive within {0:?}")]
pub struct BodyTimeout(pub Duration);

/// Whether `error`, or an error it wraps, is a [`BodyTimeout`].
pub fn is_body_timeout(error: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(error), |e| e.source()).any(<dyn std::error::Error>::is::<BodyTimeout>)
}

impl hyper::body::Body for TimedBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        let timeout = self.timeout;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(BodyTimeout(timeout).into()))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
