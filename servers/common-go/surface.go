package contract

// The surface (docs/workload.md §7): a resource template, a fixed resource, a prompt and a completion,
// served under DIMENSION_TOOLS=1 only. Their names, descriptions and reads are here; each server
// registers them in its SDK's way.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/redis/go-redis/v9"
)

const (
	SurfaceMIMEType = "application/json"

	ProductTemplate    = "product://{id}"
	ProductURIPrefix   = "product://"
	ProductName        = "product"
	ProductDescription = "A product of the catalog, read from the API service."

	PopularURI         = "bench://popular"
	PopularName        = "popular"
	PopularDescription = "The ten most popular products, read from Redis."

	CartSummaryName        = "cart_summary"
	CartSummaryDescription = "Summarises a user's cart, read from Redis."
	UserIDArgument         = "user_id"
	UserIDDescription      = "the user whose cart is summarised"

	maxCompletions = 10
)

// ErrNoCart: the prompt's user has no cart (the caller's fault, not a failed read).
var ErrNoCart = errors.New("no cart")

// ProductID is the id of a product://<id> URI, or "" when uri is not one.
func ProductID(uri string) string {
	id, _ := strings.CutPrefix(uri, ProductURIPrefix)
	if id == uri {
		return ""
	}
	return id
}

// Product reads product id from the API: its JSON object as the API sent it. A 404 is an error. The id is
// escaped: it is whatever the URI carried.
func (b *Backends) Product(ctx context.Context, id string) (string, error) {
	var product json.RawMessage
	if err := b.getJSON(ctx, "/products/"+url.PathEscape(id), &product); err != nil {
		return "", err
	}
	return string(product), nil
}

// Popular is bench://popular's text: {"popular": [the ten members of ZREVRANGE bench:popular 0 9]}.
func Popular(ctx context.Context, rdb *redis.Client) (string, error) {
	members, err := rdb.ZRevRange(ctx, "bench:popular", 0, 9).Result()
	if err != nil {
		return "", err
	}
	text, err := json.Marshal(struct {
		Popular []string `json:"popular"`
	}{members})
	return string(text), err
}

// CartSummary is cart_summary's message text, from HGETALL bench:cart:<userID>; no cart is ErrNoCart.
func CartSummary(ctx context.Context, rdb *redis.Client, userID string) (string, error) {
	cart, err := rdb.HGetAll(ctx, "bench:cart:"+userID).Result()
	if err != nil {
		return "", err
	}
	if len(cart) == 0 {
		return "", fmt.Errorf("%w for user %q", ErrNoCart, userID)
	}
	return fmt.Sprintf("Summarise the cart of %s: %s (total %s)", userID, cart["items"], cart["total"]), nil
}

// CompleteUserID completes cart_summary's user_id: the first ten users with a cart, in byte order,
// that start with prefix (ZRANGEBYLEX bench:users "[<prefix>" "(<prefix>\x7f" LIMIT 0 10).
func CompleteUserID(ctx context.Context, rdb *redis.Client, prefix string) ([]string, error) {
	return rdb.ZRangeByLex(ctx, "bench:users", &redis.ZRangeBy{
		Min: "[" + prefix, Max: "(" + prefix + "\x7f", Count: maxCompletions,
	}).Result()
}
