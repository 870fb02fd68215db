//! The dimension tools (docs/workload.md §6), for issue 37: tools/list at scale (`EXTRA_TOOLS=N`
//! more tools, `extra_00001` …), payload size, streamed progress and cancellation (`DIMENSION_TOOLS=1`:
//! `echo_payload`, `stream_progress`, `stepped_work`); off unless the contract setting turns them on. rmcp's way for a tool whose input schema is data: a
//! `ToolRoute` of a `model::Tool` built with that JSON schema and a handler, added to the same
//! `ToolRouter` as the `#[tool]` methods. Only `stepped_work` does I/O (Redis).

use std::{
    pin::Pin,
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use redis::AsyncTypedCommands;
use rmcp::{
    RoleServer,
    handler::server::{
        router::tool::{ToolRoute, ToolRouter},
        tool::ToolName,
        wrapper::Parameters,
    },
    model::{ProgressNotificationParam, Tool, object},
    service::RequestContext,
};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::{config::Config, tools::Bench};

const MAX_PAYLOAD: usize = 16 * 1024 * 1024;
const MAX_PROGRESS: u32 = 1000;
const MAX_KEY: usize = 100;
const MAX_STEPS: u32 = 1000;
const MAX_INTERVAL_MS: u64 = 10_000;
const ALPHABET: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

pub fn router(cfg: &Config) -> ToolRouter<Bench> {
    let mut router = ToolRouter::new();
    // One schema object shared by every extra tool.
    let extra_schema = Arc::new(object(json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "free-text search query"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100,
                      "description": "how many records to return"},
            "sort": {"type": "string", "enum": ["relevance", "price", "rating", "newest"],
                     "description": "sort order"},
            "filters": {"type": "object", "description": "optional filters",
                        "properties": {"category": {"type": "string"},
                                       "min_price": {"type": "number"},
                                       "in_stock": {"type": "boolean"}}}
        },
        "required": ["query"]
    })));
    for i in 1..=cfg.extra_tools {
        let description =
            format!("Extra tool {i}: a catalog lookup registered for the tools/list scale test.");
        let tool = Tool::new(format!("extra_{i:05}"), description, extra_schema.clone());
        router.add_route(ToolRoute::new(tool, extra_tool));
    }
    if cfg.dimension_tools {
        let schema = object(json!({
            "type": "object",
            "properties": {
                "size": {"type": "integer", "minimum": 0, "maximum": MAX_PAYLOAD},
                "data": {"type": "string", "default": ""}
            },
            "required": ["size"]
        }));
        let description =
            "Returns size bytes of deterministic text and counts the characters of data.";
        router.add_route(ToolRoute::new(
            Tool::new("echo_payload", description, schema),
            echo_payload,
        ));
        let schema = object(json!({
            "type": "object",
            "properties": {"count": {"type": "integer", "minimum": 0, "maximum": MAX_PROGRESS}},
            "required": ["count"]
        }));
        let description = "Sends count progress notifications, then answers.";
        router.add_route(ToolRoute::new(
            Tool::new("stream_progress", description, schema),
            stream_progress,
        ));
        let schema = object(json!({
            "type": "object",
            "properties": {
                "key": {"type": "string", "minLength": 1, "maxLength": MAX_KEY,
                        "description": "names the Redis list bench:steps:<key> the steps are appended to"},
                "steps": {"type": "integer", "minimum": 1, "maximum": MAX_STEPS,
                          "description": "how many steps to do"},
                "interval_ms": {"type": "integer", "minimum": 0, "maximum": MAX_INTERVAL_MS,
                                "description": "milliseconds between steps"}
            },
            "required": ["key", "steps", "interval_ms"]
        }));
        let description = "Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled.";
        router.add_route(ToolRoute::new(
            Tool::new("stepped_work", description, schema),
            stepped_work,
        ));
    }
    router
}

/// Only `query` is read; rmcp checks arguments by deserialising them (a wrong type: `isError`).
#[derive(Deserialize)]
struct ExtraArgs {
    query: String,
}

#[derive(Serialize)]
struct ExtraResult<'a> {
    tool: &'a str,
    query: &'a str,
    server_type: &'a str,
}

fn extra_tool(
    bench: &Bench,
    ToolName(name): ToolName,
    Parameters(args): Parameters<ExtraArgs>,
) -> Result<String, String> {
    to_json(&ExtraResult {
        tool: &name,
        query: &args.query,
        server_type: bench.server_type(),
    })
}

#[derive(Deserialize)]
struct EchoArgs {
    size: i64,
    #[serde(default)]
    data: String,
}

#[derive(Serialize)]
struct EchoResult<'a> {
    size: usize,
    received: usize,
    payload: &'a str,
    server_type: &'a str,
}

fn echo_payload(bench: &Bench, Parameters(args): Parameters<EchoArgs>) -> Result<String, String> {
    let size = usize::try_from(args.size)
        .ok()
        .filter(|&size| size <= MAX_PAYLOAD)
        .ok_or_else(|| format!("size must be from 0 to {MAX_PAYLOAD}, not {}", args.size))?;
    let payload = ALPHABET.repeat(size.div_ceil(ALPHABET.len()));
    to_json(&EchoResult {
        size,
        received: args.data.chars().count(),
        payload: &payload[..size],
        server_type: bench.server_type(),
    })
}

#[derive(Deserialize)]
struct ProgressArgs {
    count: i64,
}

#[derive(Serialize)]
struct ProgressResult<'a> {
    count: u32,
    sent: u32,
    server_type: &'a str,
}

/// rmcp's progress API, `Peer::notify_progress`, each notification awaited before the next. Over
/// stateless HTTP every message the handler emits goes out on the call's own reply, and rmcp turns
/// a `json_response` reply into an SSE stream when the handler's first message is a notification
/// (rmcp-3.11.0 `src/transport/streamable_http_server/tower.rs:2443-2485`), so this server streams
/// without `SSE_REPLIES` and ignores it; a call without notifications still gets JSON.
/// An async handler taking `&Bench` returns a boxed future borrowing it (rmcp's method adapter).
fn stream_progress(
    bench: &Bench,
    context: RequestContext<RoleServer>,
    Parameters(args): Parameters<ProgressArgs>,
) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + '_>> {
    Box::pin(async move {
        let count = u32::try_from(args.count)
            .ok()
            .filter(|&count| count <= MAX_PROGRESS)
            .ok_or_else(|| format!("count must be from 0 to {MAX_PROGRESS}, not {}", args.count))?;
        let mut sent = 0;
        if let Some(token) = context.meta.get_progress_token() {
            for i in 1..=count {
                let progress = ProgressNotificationParam::new(token.clone(), i.into())
                    .with_total(count.into());
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(|e| e.to_string())?;
                sent += 1;
            }
        }
        to_json(&ProgressResult {
            count,
            sent,
            server_type: bench.server_type(),
        })
    })
}

#[derive(Deserialize)]
struct StepsArgs {
    key: String,
    steps: i64,
    interval_ms: i64,
}

#[derive(Serialize)]
struct StepsResult<'a> {
    key: &'a str,
    steps: u32,
    server_type: &'a str,
}

/// Cancellation is rmcp's: `RequestContext::ct`, cancelled on the peer's `notifications/cancelled`
/// (rmcp-3.11.0 `src/service.rs`, `local_ct_pool`) and, over stateless HTTP, when the client drops the
/// call's reply before it ends (`src/transport/streamable_http_server/tower.rs`, `disconnect_guard` and
/// `CancelOnDisconnect`). Checked before each step and raced against each wait; what the cancelled
/// call answers is rmcp's (it drops a cancelled request's reply).
fn stepped_work(
    bench: &Bench,
    context: RequestContext<RoleServer>,
    Parameters(args): Parameters<StepsArgs>,
) -> Pin<Box<dyn Future<Output = Result<String, String>> + Send + '_>> {
    Box::pin(async move {
        if !(1..=MAX_KEY).contains(&args.key.chars().count()) {
            return Err(format!("key must be 1 to {MAX_KEY} characters"));
        }
        let steps = u32::try_from(args.steps)
            .ok()
            .filter(|steps| (1..=MAX_STEPS).contains(steps))
            .ok_or_else(|| format!("steps must be from 1 to {MAX_STEPS}, not {}", args.steps))?;
        let interval = u64::try_from(args.interval_ms)
            .ok()
            .filter(|&ms| ms <= MAX_INTERVAL_MS)
            .map(Duration::from_millis)
            .ok_or_else(|| format!("interval_ms must be from 0 to {MAX_INTERVAL_MS}"))?;
        let list = format!("bench:steps:{}", args.key);
        let token = context.meta.get_progress_token();
        let mut written = 0;
        for i in 1..=steps {
            if context.ct.is_cancelled() {
                break;
            }
            let now = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_err(|e| e.to_string())?
                .as_millis();
            // A pooled connection per step: none is held through the waits.
            bench
                .redis()
                .await?
                .rpush(&list, now.to_string())
                .await
                .map_err(|e| format!("redis: {e}"))?;
            written = i;
            if let Some(token) = &token {
                let progress = ProgressNotificationParam::new(token.clone(), i.into())
                    .with_total(steps.into());
                context
                    .peer
                    .notify_progress(progress)
                    .await
                    .map_err(|e| e.to_string())?;
            }
            if i < steps {
                tokio::select! {
                    _ = context.ct.cancelled() => break,
                    _ = tokio::time::sleep(interval) => {}
                }
            }
        }
        to_json(&StepsResult {
            key: &args.key,
            steps: written,
            server_type: bench.server_type(),
        })
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| e.to_string())
}
