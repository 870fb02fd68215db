//! mcpbench reference server: rmcp (Streamable HTTP, stateless, JSON replies) on axum + tokio;
//! with `--stdio`, the same tool router over rmcp's stdio transport; with `SESSIONS=1`, rmcp's
//! stateful Streamable HTTP transport instead of the stateless one.

mod config;
mod dimension_tools;
mod surface;
mod tools;

use std::sync::Arc;

use axum::{Router, http::header, routing::get, serve::ListenerExt};
use rmcp::{
    ServiceExt,
    transport::{
        stdio_pipes,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService,
            session::{local::LocalSessionManager, never::NeverSessionManager},
        },
    },
};
use tokio_util::sync::CancellationToken;

use crate::{config::Config, tools::Bench};

fn main() {
    let cfg = Config::from_env();
    // The runtime is sized from the cgroup CPU grant, not the host's core count:
    // more workers than cores only adds context switches under load.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cfg.cpus)
        .enable_all()
        .build()
        .expect("build tokio runtime");
    let result = if std::env::args().skip(1).any(|arg| arg == "--stdio") {
        runtime.block_on(serve_stdio(cfg))
    } else {
        runtime.block_on(serve(cfg))
    };
    if let Err(err) = result {
        eprintln!("mcpbench-rust: {err}");
        std::process::exit(1);
    }
}

/// One MCP session over stdin/stdout. rmcp spawns a task per request (service.rs:1669,
/// `spawn_service_task`), so calls in flight overlap and replies leave as they finish.
/// `stdio_pipes` is rmcp's stdio transport on the IO reactor when both streams are pipes
/// (as a client launching the server makes them), `stdio()`'s blocking handles otherwise.
/// Returns at EOF on stdin (after draining replies in flight) or on SIGTERM/SIGINT.
async fn serve_stdio(cfg: Config) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let app = Arc::new(tools::App::new(&cfg)?);
    // stdout carries JSON-RPC only: anything else goes to stderr.
    eprintln!(
        "mcpbench-rust serving stdio (workers={}, redis pool={}, server_type={})",
        cfg.cpus, cfg.redis_pool_size, cfg.server_type
    );
    let shutdown = CancellationToken::new();
    let signal_token = shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        signal_token.cancel();
    });
    match Bench::new(app)
        .serve_with_ct(stdio_pipes(), shutdown.clone())
        .await
    {
        Ok(service) => drop(service.waiting().await?),
        Err(_) if shutdown.is_cancelled() => {} // SIGTERM before the handshake finished
        Err(err) => return Err(err.into()),
    }
    Ok(())
}

async fn serve(cfg: Config) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let app = Arc::new(tools::App::new(&cfg)?);
    let shutdown = CancellationToken::new();

    let config = StreamableHttpServerConfig::default()
        // false is rmcp 3.x's stateless mode; SESSIONS=1 keeps rmcp's stateful sessions (and its SSE replies).
        .with_legacy_session_mode(cfg.sessions)
        .with_json_response(true)
        // Every request of this workload is under 1 KiB; reject big bodies early.
        .with_max_request_body_bytes(512 * 1024)
        .with_sse_keep_alive(None)
        .with_cancellation_token(shutdown.child_token());
    // rmcp's DNS-rebinding protection: Host must be one of the contract's ALLOWED_HOSTS (any port),
    // and a browser's Origin, when sent, one of them over http(s) at any port.
    let config = match &cfg.allowed_hosts {
        Some(hosts) => config
            .with_allowed_hosts(hosts.clone())
            .with_allowed_origins(
                hosts
                    .iter()
                    .flat_map(|h| [format!("http://{h}:*"), format!("https://{h}:*")]),
            ),
        None => config.disable_allowed_hosts().disable_allowed_origins(),
    };
    let bench = move || Ok(Bench::new(app.clone()));
    let router = if cfg.sessions {
        // Sessions live in memory until the client's DELETE or rmcp's own idle timeout.
        let sessions = Arc::new(LocalSessionManager::default());
        Router::new().route_service("/mcp", StreamableHttpService::new(bench, sessions, config))
    } else {
        // Stateless: no session is ever created, so no session store is needed.
        let sessions = Arc::new(NeverSessionManager::default());
        Router::new().route_service("/mcp", StreamableHttpService::new(bench, sessions, config))
    };

    let health = format!(r#"{{"status":"ok","server_type":"{}"}}"#, cfg.server_type);
    let router = router.route(
        "/health",
        get(move || {
            let body = health.clone();
            async move { ([(header::CONTENT_TYPE, "application/json")], body) }
        }),
    );

    let listener = tokio::net::TcpListener::bind((cfg.host.as_str(), cfg.port))
        .await?
        // axum::serve leaves Nagle on; small JSON replies then meet the client's
        // delayed ACK and stall ~40 ms.
        .tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
    println!(
        "mcpbench-rust listening on {}:{} (workers={}, redis pool={}, server_type={})",
        cfg.host, cfg.port, cfg.cpus, cfg.redis_pool_size, cfg.server_type
    );

    let signal_token = shutdown.clone();
    tokio::spawn(async move {
        wait_for_signal().await;
        signal_token.cancel();
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown.cancelled_owned())
        .await?;
    Ok(())
}

async fn wait_for_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("install SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("install SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}
