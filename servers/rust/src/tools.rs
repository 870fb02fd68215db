//! The three workload tools (docs/workload.md §3).

use std::{collections::HashMap, sync::Arc, time::Duration};

use deadpool_redis::{Manager, Pool, Runtime};
use redis::{AsyncTypedCommands, IntoConnectionInfo, io::tcp::TcpSettings};
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    handler::server::{
        prompt::PromptContext,
        router::{prompt::PromptRouter, tool::ToolRouter},
        wrapper::Parameters,
    },
    model::{
        CompleteRequestMethod, CompleteRequestParams, CompleteResult, ConstString,
        GetPromptRequestMethod, GetPromptRequestParams, GetPromptResponse, Implementation,
        ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
        ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult,
        PaginatedRequestParams, ReadResourceRequestMethod, ReadResourceRequestParams,
        ReadResourceResponse, ServerCapabilities, ServerConfig,
    },
    service::RequestContext,
    tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::value::{RawValue, to_raw_value};

use crate::{config::Config, dimension_tools, surface};

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ToolResult = Result<String, String>;

/// Process-wide state shared by every request's handler.
pub struct App {
    redis: Pool,
    http: reqwest::Client,
    search_url: String,
    product_url: String,
    calculate_url: String,
    server_type: String,
    /// Built once: stateless mode constructs a handler per HTTP request.
    tools: ToolRouter<Bench>,
    /// The surface's prompt (surface.rs), and with it its resources and completion: only under
    /// DIMENSION_TOOLS=1, otherwise none of them is advertised or answered.
    prompts: Option<PromptRouter<Bench>>,
}

impl App {
    pub fn new(cfg: &Config) -> Result<Self, BoxError> {
        // redis-rs leaves Nagle on by default; pipelined commands would then wait for ACKs.
        let info = cfg
            .redis_url
            .as_str()
            .into_connection_info()?
            .set_tcp_settings(TcpSettings::default().set_nodelay(true));
        let redis = Pool::builder(Manager::new(info)?)
            .max_size(cfg.redis_pool_size)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(5)))
            .create_timeout(Some(Duration::from_secs(2)))
            .build()?;
        // reqwest is built without a bundled crypto provider (see Cargo.toml); the API
        // service is plain HTTP, but https URLs keep working through ring.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(cfg.http_idle_per_host)
            .pool_idle_timeout(Duration::from_secs(90))
            .connect_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .build()?;
        Ok(Self {
            redis,
            http,
            search_url: format!("{}/products/search", cfg.api_url),
            product_url: format!("{}/products/", cfg.api_url),
            calculate_url: format!("{}/cart/calculate", cfg.api_url),
            server_type: cfg.server_type.clone(),
            // Issue 37's extra tools and echo_payload, only when EXTRA_TOOLS / DIMENSION_TOOLS ask.
            tools: Bench::tool_router() + dimension_tools::router(cfg),
            prompts: cfg.dimension_tools.then(Bench::prompt_router),
        })
    }

    async fn redis(&self) -> Result<deadpool_redis::Connection, String> {
        self.redis
            .get()
            .await
            .map_err(|e| format!("redis pool: {e}"))
    }
}

#[derive(Clone)]
pub struct Bench {
    app: Arc<App>,
}

impl Bench {
    pub fn new(app: Arc<App>) -> Self {
        Self { app }
    }

    pub fn server_type(&self) -> &str {
        &self.app.server_type
    }

    /// A pooled Redis connection, for the dimension tools.
    pub async fn redis(&self) -> Result<deadpool_redis::Connection, String> {
        self.app.redis().await
    }

    /// The API service's product `id`, its body as is (`None`: the API answers 404), for the surface.
    pub async fn product(&self, id: &str) -> Result<Option<String>, String> {
        let app = &*self.app;
        let get = async {
            let response = app
                .http
                .get(format!("{}{id}", app.product_url))
                .send()
                .await?;
            if response.status() == reqwest::StatusCode::NOT_FOUND {
                return Ok(None);
            }
            response.error_for_status()?.text().await.map(Some)
        };
        get.await
            .map_err(|e: reqwest::Error| format!("api product: {e}"))
    }

    /// The surface's prompts, or the method's "not found" when DIMENSION_TOOLS is off.
    fn surface<M: ConstString>(&self) -> Result<&PromptRouter<Bench>, ErrorData> {
        self.app
            .prompts
            .as_ref()
            .ok_or_else(ErrorData::method_not_found::<M>)
    }
}

// ---- arguments -------------------------------------------------------------------------

#[derive(Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Product category
    #[serde(default = "default_category")]
    category: String,
    /// Minimum price
    #[serde(default = "default_min_price")]
    min_price: f64,
    /// Maximum price (0 = no upper bound)
    #[serde(default = "default_max_price")]
    max_price: f64,
    /// Maximum number of products to return
    #[serde(default = "default_limit")]
    limit: i64,
}

#[derive(Deserialize, JsonSchema)]
pub struct UserArgs {
    /// User id, e.g. user-00042
    #[serde(default = "default_user")]
    user_id: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct CheckoutArgs {
    /// User id, e.g. user-00042
    #[serde(default = "default_user")]
    user_id: String,
    /// Items to order
    #[serde(default = "default_items")]
    items: Vec<CartItem>,
}

#[derive(Clone, Serialize, Deserialize, JsonSchema)]
pub struct CartItem {
    product_id: i64,
    quantity: i64,
}

fn default_category() -> String {
    "Electronics".into()
}
fn default_min_price() -> f64 {
    50.0
}
fn default_max_price() -> f64 {
    500.0
}
fn default_limit() -> i64 {
    10
}
fn default_user() -> String {
    "user-00042".into()
}
fn default_items() -> Vec<CartItem> {
    vec![
        CartItem {
            product_id: 42,
            quantity: 2,
        },
        CartItem {
            product_id: 1337,
            quantity: 1,
        },
    ]
}

// ---- API service and result shapes -----------------------------------------------------

#[derive(Deserialize)]
struct ApiSearch {
    total_found: u64,
    products: Vec<ApiProduct>,
}

#[derive(Deserialize)]
struct ApiProduct {
    id: i64,
    sku: String,
    name: String,
    price: f64,
    rating: f64,
}

#[derive(Serialize)]
struct SearchResult<'a> {
    category: &'a str,
    total_found: u64,
    products: Vec<ProductHit>,
    top10_popular_ids: Vec<i64>,
    server_type: &'a str,
}

#[derive(Serialize)]
struct ProductHit {
    id: i64,
    sku: String,
    name: String,
    price: f64,
    rating: f64,
    popularity_rank: usize,
}

#[derive(Serialize)]
struct CartResult<'a> {
    user_id: &'a str,
    cart: Cart,
    recent_history: Vec<Box<RawValue>>,
    server_type: &'a str,
}

#[derive(Serialize)]
struct Cart {
    items: Vec<Box<RawValue>>,
    item_count: usize,
    estimated_total: f64,
}

#[derive(Deserialize)]
struct FirstItem {
    product_id: Option<i64>,
}

#[derive(Serialize)]
struct CalculateRequest<'a> {
    user_id: &'a str,
    items: &'a [CartItem],
}

#[derive(Deserialize)]
struct Calculation {
    order_id: String,
    total: f64,
}

/// The entry checkout appends to the user's history (docs/workload.md §5).
#[derive(Serialize)]
struct HistoryEntry<'a> {
    user_id: &'a str,
    items: &'a [CartItem],
    ts: u64,
}

#[derive(Serialize)]
struct CheckoutResult<'a> {
    order_id: String,
    user_id: &'a str,
    total: f64,
    items_count: usize,
    rate_limit_count: isize,
    status: &'static str,
    server_type: &'a str,
}

// ---- tools -----------------------------------------------------------------------------

#[tool_router]
impl Bench {
    #[tool(
        description = "Search products by category and price range, merged with popularity data"
    )]
    async fn search_products(&self, Parameters(args): Parameters<SearchArgs>) -> ToolResult {
        let app = &*self.app;
        let query = [
            ("category", args.category.clone()),
            ("min_price", args.min_price.to_string()),
            ("max_price", args.max_price.to_string()),
            ("limit", args.limit.to_string()),
        ];
        let api = async {
            app.http
                .get(&app.search_url)
                .query(&query)
                .send()
                .await?
                .error_for_status()?
                .json::<ApiSearch>()
                .await
        };
        let (search, popular) = tokio::try_join!(
            async { api.await.map_err(|e| format!("api search: {e}")) },
            // The pooled connection lives in this branch only: back in the pool once ZREVRANGE
            // answers, not when the slower API call does.
            async {
                let mut conn = app.redis().await?;
                conn.zrevrange("bench:popular", 0, 9)
                    .await
                    .map_err(|e| format!("redis: {e}"))
            },
        )?;

        let top10: Vec<i64> = popular
            .iter()
            .filter_map(|m| m.strip_prefix("product:")?.parse().ok())
            .collect();
        let products = search
            .products
            .into_iter()
            .map(|p| ProductHit {
                popularity_rank: top10.iter().position(|&id| id == p.id).map_or(0, |i| i + 1),
                id: p.id,
                sku: p.sku,
                name: p.name,
                price: p.price,
                rating: p.rating,
            })
            .collect();
        to_json(&SearchResult {
            category: &args.category,
            total_found: search.total_found,
            products,
            top10_popular_ids: top10,
            server_type: &app.server_type,
        })
    }

    #[tool(description = "Get user cart details with recent order history")]
    async fn get_user_cart(
        &self,
        Parameters(UserArgs { user_id }): Parameters<UserArgs>,
    ) -> ToolResult {
        let app = &*self.app;
        let mut conn = app.redis().await?;
        let cart: HashMap<String, String> = conn
            .hgetall(format!("bench:cart:{user_id}"))
            .await
            .map_err(|e| format!("redis: {e}"))?;
        let items: Vec<Box<RawValue>> = match cart.get("items") {
            Some(raw) => serde_json::from_str(raw).map_err(|e| format!("cart items: {e}"))?,
            None => Vec::new(),
        };
        let first_product = items
            .first()
            .and_then(|item| {
                serde_json::from_str::<FirstItem>(item.get())
                    .ok()?
                    .product_id
            })
            .unwrap_or(1);

        // The product lookup is part of the workload's I/O even though the result
        // does not carry it; its body is drained so the connection is reused.
        let product = async {
            app.http
                .get(format!("{}{first_product}", app.product_url))
                .send()
                .await?
                .error_for_status()?
                .bytes()
                .await
        };
        let history_key = format!("bench:history:{user_id}");
        let ((), history) = tokio::try_join!(
            async {
                product
                    .await
                    .map(drop)
                    .map_err(|e| format!("api product: {e}"))
            },
            // Moved into this branch, the connection goes back to the pool when LRANGE answers.
            async move {
                conn.lrange(history_key, 0, 4)
                    .await
                    .map_err(|e| format!("redis: {e}"))
            },
        )?;

        let recent_history = history.into_iter().map(parse_or_wrap).collect();
        to_json(&CartResult {
            user_id: &user_id,
            cart: Cart {
                item_count: items.len(),
                items,
                estimated_total: cart
                    .get("total")
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0.0),
            },
            recent_history,
            server_type: &app.server_type,
        })
    }

    #[tool(description = "Process checkout: calculate total, update rate limit, record history")]
    async fn checkout(
        &self,
        Parameters(CheckoutArgs { user_id, items }): Parameters<CheckoutArgs>,
    ) -> ToolResult {
        // docs/workload.md §5: an empty order is a tool error, answered before any I/O.
        let Some(first) = items.first() else {
            return Err("items must not be empty".into());
        };
        let app = &*self.app;
        let user_num: u64 = user_id
            .rsplit('-')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        let entry = serde_json::to_string(&HistoryEntry {
            user_id: &user_id,
            items: &items,
            ts: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_secs(),
        })
        .map_err(|e| e.to_string())?;

        let calculate = async {
            app.http
                .post(&app.calculate_url)
                .json(&CalculateRequest {
                    user_id: &user_id,
                    items: &items,
                })
                .send()
                .await?
                .error_for_status()?
                .json::<Calculation>()
                .await
        };
        // The three Redis commands as one pipeline: one write, one round trip, on a pooled
        // connection that this branch owns and returns as soon as Redis answers.
        let writes = async {
            let mut conn = app.redis().await?;
            let (rate_limit_count,): (isize,) = redis::pipe()
                .incr(format!("bench:ratelimit:user-{:05}", user_num % 100), 1)
                .rpush(format!("bench:history:{user_id}"), &entry)
                .ignore()
                .zincr("bench:popular", format!("product:{}", first.product_id), 1)
                .ignore()
                .query_async(&mut *conn)
                .await
                .map_err(|e| format!("redis: {e}"))?;
            Ok::<_, String>(rate_limit_count)
        };
        let (calc, rate_limit_count) = tokio::try_join!(
            async { calculate.await.map_err(|e| format!("api calculate: {e}")) },
            writes,
        )?;

        to_json(&CheckoutResult {
            order_id: calc.order_id,
            user_id: &user_id,
            total: calc.total,
            items_count: items.len(),
            rate_limit_count,
            status: "confirmed",
            server_type: &app.server_type,
        })
    }
}

/// The tools through rmcp's `#[tool_handler]`; the surface (surface.rs) through the methods below,
/// which answer as rmcp's defaults do (method not found) unless DIMENSION_TOOLS=1.
#[tool_handler(router = self.app.tools)]
impl ServerHandler for Bench {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.app.prompts.is_some() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_prompts()
                .enable_resources()
                .enable_completions()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities).with_server_info(Implementation::new(
            "mcpbench-rust",
            env!("CARGO_PKG_VERSION"),
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let prompts = self.surface::<ListPromptsRequestMethod>()?;
        Ok(ListPromptsResult::with_all_items(prompts.list_all()))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let prompts = self.surface::<GetPromptRequestMethod>()?;
        let context = PromptContext::new(self, request.name, request.arguments, context);
        prompts.get_prompt(context).await
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.surface::<ListResourcesRequestMethod>()?;
        Ok(ListResourcesResult::with_all_items(surface::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.surface::<ListResourceTemplatesRequestMethod>()?;
        Ok(ListResourceTemplatesResult::with_all_items(
            surface::resource_templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.surface::<ReadResourceRequestMethod>()?;
        Ok(self.read_surface_resource(request.uri).await?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.surface::<CompleteRequestMethod>()?;
        self.complete_surface(request).await
    }
}

fn to_json<T: Serialize>(value: &T) -> ToolResult {
    serde_json::to_string(value).map_err(|e| e.to_string())
}

/// History entries are JSON written by the seeder or by checkout; anything else is kept verbatim.
fn parse_or_wrap(entry: String) -> Box<RawValue> {
    serde_json::from_str(&entry).unwrap_or_else(|_| {
        to_raw_value(&serde_json::json!({ "raw": entry })).expect("a string serializes")
    })
}
