package main

// Dimension tools (issue 37: tools/list at scale, reply and argument size, streamed progress); off unless the contract's
// EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	maxPayload      = 16 << 20
	maxProgress     = 1000
)

// The input schemas, given as JSON and parsed once: the SDK validates the arguments against them (a size
// out of range or not an integer is an isError result before the handler runs). Every extra tool shares
// one *jsonschema.Schema, so the server's SchemaCache (main.go) resolves it once, not once per tool
// (resolving takes ~0.3 ms: ~35 s and 1.2 GiB of heap for 99999 tools).
var (
	extraToolSchema = mustSchema(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"free-text search query"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"how many records to return"},` +
		`"sort":{"type":"string","enum":["relevance","price","rating","newest"],"description":"sort order"},` +
		`"filters":{"type":"object","description":"optional filters","properties":{` +
		`"category":{"type":"string"},"min_price":{"type":"number"},"in_stock":{"type":"boolean"}}}},` +
		`"required":["query"]}`)
	echoPayloadSchema = mustSchema(`{"type":"object","properties":{` +
		`"size":{"type":"integer","minimum":0,"maximum":16777216,"description":"how many characters of payload to return"},` +
		`"data":{"type":"string","default":"","description":"any text; only its length is counted"}},` +
		`"required":["size"]}`)
	streamProgressSchema = mustSchema(`{"type":"object","properties":{` +
		`"count":{"type":"integer","minimum":0,"maximum":1000,"description":"how many progress notifications to send"}},` +
		`"required":["count"]}`)
)

func mustSchema(text string) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		panic(err)
	}
	return &s
}

// extraToolsFromEnv reads EXTRA_TOOLS: unset, "" or "0" registers none.
func extraToolsFromEnv() int {
	v := strings.TrimSpace(os.Getenv("EXTRA_TOOLS"))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 99999 {
		log.Fatalf("EXTRA_TOOLS=%q: want an integer from 0 to 99999", v)
	}
	return n
}

func registerDimensionTools(s *mcp.Server, serverType string, extra int, echo bool) {
	for i := 1; i <= extra; i++ {
		name := fmt.Sprintf("extra_%05d", i)
		mcp.AddTool(s, &mcp.Tool{
			Name:        name,
			Description: fmt.Sprintf("Extra tool %d: a catalog lookup registered for the tools/list scale test.", i),
			InputSchema: extraToolSchema,
		}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
			Query string `json:"query"`
		}) (*mcp.CallToolResult, any, error) {
			return textResult(struct {
				Tool       string `json:"tool"`
				Query      string `json:"query"`
				ServerType string `json:"server_type"`
			}{name, in.Query, serverType})
		})
	}
	if !echo {
		return
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "echo_payload",
		Description: "Returns size bytes of deterministic text and counts the characters of data.",
		InputSchema: echoPayloadSchema,
	}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Size int    `json:"size"`
		Data string `json:"data"`
	}) (*mcp.CallToolResult, any, error) {
		if in.Size < 0 || in.Size > maxPayload { // the schema already refuses these
			return nil, nil, fmt.Errorf("size must be an integer from 0 to %d", maxPayload)
		}
		return textResult(struct {
			Size       int    `json:"size"`
			Received   int    `json:"received"`
			Payload    string `json:"payload"`
			ServerType string `json:"server_type"`
		}{in.Size, utf8.RuneCountInString(in.Data), strings.Repeat(payloadAlphabet, in.Size/64+1)[:in.Size], serverType})
	})
	// The SDK's progress API: each ServerSession.NotifyProgress returns once the notification is written.
	// The handler's ctx carries the call's JSON-RPC id, so the notification goes out on the call's own
	// reply stream; that needs JSONResponse off (SSE_REPLIES=1, main.go): with it on, the SDK routes every
	// non-response message to the standalone GET stream (mcp/streamable.go:1852-1856), which a stateless
	// server has not.
	mcp.AddTool(s, &mcp.Tool{
		Name:        "stream_progress",
		Description: "Sends count progress notifications, then answers.",
		InputSchema: streamProgressSchema,
	}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Count int `json:"count"`
	}) (*mcp.CallToolResult, any, error) {
		if in.Count < 0 || in.Count > maxProgress { // the schema already refuses these
			return nil, nil, fmt.Errorf("count must be an integer from 0 to %d", maxProgress)
		}
		sent := 0
		if token := req.Params.GetProgressToken(); token != nil {
			for i := 1; i <= in.Count; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.Count)})
				if err != nil {
					return nil, nil, fmt.Errorf("progress notification %d: %w", i, err)
				}
				sent++
			}
		}
		return textResult(struct {
			Count      int    `json:"count"`
			Sent       int    `json:"sent"`
			ServerType string `json:"server_type"`
		}{in.Count, sent, serverType})
	})
}
