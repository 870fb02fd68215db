//! The surface (docs/workload.md §7), served only under `DIMENSION_TOOLS=1`: the resource template
//! `product://{id}`, the fixed resource `bench://popular`, the prompt `cart_summary` and the
//! completion of its `user_id`. The prompt is rmcp's `#[prompt]`, in a `PromptRouter` the handler
//! holds only when the setting is on; rmcp 3.11 has no router for resources or completions (its
//! `src/handler/server/resource.rs` is empty), so those are the `ServerHandler` methods
//! `list_resources`, `list_resource_templates`, `read_resource` and `complete` (tools.rs), which
//! answer with what is here.

use std::collections::HashMap;

use redis::AsyncTypedCommands;
use rmcp::{
    ErrorData,
    handler::server::wrapper::Parameters,
    model::{
        CompleteRequestParams, CompleteResult, CompletionInfo, PromptMessage, ReadResourceResult,
        Reference, Resource, ResourceContents, ResourceTemplate, Role,
    },
    prompt, prompt_router,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::tools::Bench;

const JSON: &str = "application/json";
const PRODUCT_SCHEME: &str = "product://";
const POPULAR_URI: &str = "bench://popular";
const PROMPT: &str = "cart_summary";

pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new(POPULAR_URI, "popular")
            .with_description("The ten most popular products, read from Redis.")
            .with_mime_type(JSON),
    ]
}

pub fn resource_templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{PRODUCT_SCHEME}{{id}}"), "product")
            .with_description("A product of the catalog, read from the API service.")
            .with_mime_type(JSON),
    ]
}

#[derive(Deserialize, JsonSchema)]
pub struct CartSummaryArgs {
    /// the user whose cart is summarised
    user_id: String,
}

#[prompt_router(vis = "pub(crate)")]
impl Bench {
    #[prompt(
        name = "cart_summary",
        description = "Summarises a user's cart, read from Redis."
    )]
    async fn cart_summary(
        &self,
        Parameters(CartSummaryArgs { user_id }): Parameters<CartSummaryArgs>,
    ) -> Result<Vec<PromptMessage>, ErrorData> {
        let cart: HashMap<String, String> = self
            .redis()
            .await
            .map_err(internal)?
            .hgetall(format!("bench:cart:{user_id}"))
            .await
            .map_err(redis_error)?;
        let (Some(items), Some(total)) = (cart.get("items"), cart.get("total")) else {
            return Err(ErrorData::invalid_params(
                format!("no cart for {user_id}"),
                None,
            ));
        };
        let text = format!("Summarise the cart of {user_id}: {items} (total {total})");
        Ok(vec![PromptMessage::new_text(Role::User, text)])
    }

    /// `resources/read`: a product from the API service (its body as is) or Redis's ten most popular.
    pub async fn read_surface_resource(
        &self,
        uri: String,
    ) -> Result<ReadResourceResult, ErrorData> {
        let text = if uri == POPULAR_URI {
            let popular = self
                .redis()
                .await
                .map_err(internal)?
                .zrevrange("bench:popular", 0, 9)
                .await
                .map_err(redis_error)?;
            json!({ "popular": popular }).to_string()
        } else if let Some(id) = uri.strip_prefix(PRODUCT_SCHEME) {
            self.product(id)
                .await
                .map_err(internal)?
                .ok_or_else(|| ErrorData::resource_not_found(format!("no product {id}"), None))?
        } else {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri}"),
                None,
            ));
        };
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, uri).with_mime_type(JSON),
        ]))
    }

    /// `completion/complete`: `cart_summary`'s `user_id` from the sorted set of users with a cart,
    /// the first 10 that start with the prefix; nothing for any other argument.
    pub async fn complete_surface(
        &self,
        request: CompleteRequestParams,
    ) -> Result<CompleteResult, ErrorData> {
        let prefix = &request.argument.value;
        let values = match &request.r#ref {
            Reference::Prompt(p) if p.name == PROMPT && request.argument.name == "user_id" => self
                .redis()
                .await
                .map_err(internal)?
                .zrangebylex_limit(
                    "bench:users",
                    format!("[{prefix}"),
                    format!("({prefix}\x7f"),
                    0,
                    10,
                )
                .await
                .map_err(redis_error)?,
            _ => Vec::new(),
        };
        Ok(CompleteResult::new(
            CompletionInfo::new(values).map_err(internal)?,
        ))
    }
}

fn internal(message: String) -> ErrorData {
    ErrorData::internal_error(message, None)
}

fn redis_error(e: redis::RedisError) -> ErrorData {
    internal(format!("redis: {e}"))
}
