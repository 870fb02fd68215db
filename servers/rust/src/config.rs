//! Configuration comes only from the environment (see docs/server-contract.md).

use std::env;

pub struct Config {
    /// The address to bind: loopback unless the runtime says otherwise (a container: 0.0.0.0).
    pub host: String,
    /// The Host names (no port) a request may carry, and its Origin's host if it sends one: the
    /// DNS-rebinding allow-list. `None` is `ALLOWED_HOSTS=*`, the check switched off, which only the
    /// suite's measurement of what the check costs sets.
    pub allowed_hosts: Option<Vec<String>>,
    pub port: u16,
    pub redis_url: String,
    pub api_url: String,
    pub server_type: String,
    /// CPU grant rounded up (min 1): tokio worker threads.
    pub cpus: usize,
    /// Multiplexed Redis connections. Each pooled connection pipelines the parallel
    /// commands of one tool call, so a few per core cover the in-flight calls.
    pub redis_pool_size: usize,
    /// Idle keep-alive connections kept to the API service. HTTP/1.1 carries one
    /// request at a time per connection, so this must cover the in-flight calls
    /// or connections get closed and re-opened under load.
    pub http_idle_per_host: usize,
    /// `EXTRA_TOOLS=N`: N more tools for the tools/list scale test (0, the default: none).
    pub extra_tools: usize,
    /// `DIMENSION_TOOLS=1`: the dimension tools and the surface (otherwise: not registered).
    pub dimension_tools: bool,
    /// `SESSIONS=1`: rmcp's stateful transport, sessions kept by its LocalSessionManager (otherwise: stateless).
    pub sessions: bool,
}

impl Config {
    pub fn from_env() -> Self {
        let cpus = env::var("CPU_LIMIT")
            .ok()
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .map(|v| v.ceil() as usize)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        Self {
            host: var_or("HOST", "127.0.0.1"),
            allowed_hosts: match var_or("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]").as_str() {
                "*" => None,
                list => Some(
                    list.split(',')
                        .map(|h| h.trim().to_owned())
                        .filter(|h| !h.is_empty())
                        .collect(),
                ),
            },
            port: env::var("PORT")
                .ok()
                .and_then(|p| p.parse().ok())
                .unwrap_or(8080),
            redis_url: var_or("REDIS_URL", "redis://127.0.0.1:6379"),
            api_url: var_or("API_SERVICE_URL", "http://127.0.0.1:8100")
                .trim_end_matches('/')
                .to_owned(),
            server_type: var_or("SERVER_TYPE", "rust"),
            cpus,
            redis_pool_size: 8 * cpus,
            http_idle_per_host: 64 * cpus,
            extra_tools: match var_or("EXTRA_TOOLS", "0").trim().parse() {
                Ok(n) if n <= 99_999 => n,
                _ => {
                    eprintln!("mcpbench-rust: EXTRA_TOOLS must be an integer from 0 to 99999");
                    std::process::exit(2)
                }
            },
            dimension_tools: env::var("DIMENSION_TOOLS").is_ok_and(|v| v == "1"),
            sessions: env::var("SESSIONS").is_ok_and(|v| v == "1"),
        }
    }
}

fn var_or(name: &str, default: &str) -> String {
    env::var(name)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| default.to_owned())
}
