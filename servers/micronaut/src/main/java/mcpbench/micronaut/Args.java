package mcpbench.micronaut;

import java.util.List;

import io.micronaut.core.annotation.Nullable;
import io.micronaut.jsonschema.JsonSchema;
import io.micronaut.serde.annotation.Serdeable;

/**
 * Tool arguments. Each record is bound from the call's arguments object by micronaut-mcp, which also
 * publishes META-INF/schemas/{record-name}.schema.json as the tool's input schema (written by hand here,
 * because the micronaut-json-schema processor that would generate it is not available). Snake-case
 * component names are the wire names. Omitted properties take the workload's defaults.
 */
final class Args {

    private Args() {
    }

    @Serdeable
    @JsonSchema
    record SearchProductsArgs(@Nullable String category, @Nullable Double min_price, @Nullable Double max_price,
                              @Nullable Integer limit) {
        SearchProductsArgs {
            category = category == null ? "Electronics" : category;
            min_price = min_price == null ? 50.0 : min_price;
            max_price = max_price == null ? 500.0 : max_price;
            limit = limit == null ? 10 : limit;
        }
    }

    @Serdeable
    @JsonSchema
    record GetUserCartArgs(@Nullable String user_id) {
        GetUserCartArgs {
            user_id = user_id == null ? "user-00042" : user_id;
        }
    }

    @Serdeable
    record CartItem(int product_id, int quantity) {
    }

    @Serdeable
    @JsonSchema
    record CheckoutArgs(@Nullable String user_id, @Nullable List<CartItem> items) {
        CheckoutArgs {
            user_id = user_id == null ? "user-00042" : user_id;
            items = items == null ? List.of(new CartItem(42, 2), new CartItem(1337, 1)) : items;
        }
    }
}
