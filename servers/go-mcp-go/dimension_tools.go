package main

// Dimension tools (issue 37: tools/list at scale, reply and argument size, streamed progress); off unless the contract's
// EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	maxPayload      = 16 << 20
	maxProgress     = 1000
)

// The input schemas, given to mcp-go as raw JSON (listed as they are). mcp-go validates no arguments
// (WithInputSchemaValidation is off, as for the workload tools): typed decodes them, and echo_payload
// checks its size itself, stream_progress its count.
var (
	extraToolSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"free-text search query"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"how many records to return"},` +
		`"sort":{"type":"string","enum":["relevance","price","rating","newest"],"description":"sort order"},` +
		`"filters":{"type":"object","description":"optional filters","properties":{` +
		`"category":{"type":"string"},"min_price":{"type":"number"},"in_stock":{"type":"boolean"}}}},` +
		`"required":["query"]}`)
	echoPayloadSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"size":{"type":"integer","minimum":0,"maximum":16777216,"description":"how many characters of payload to return"},` +
		`"data":{"type":"string","default":"","description":"any text; only its length is counted"}},` +
		`"required":["size"]}`)
	streamProgressSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"count":{"type":"integer","minimum":0,"maximum":1000,"description":"how many progress notifications to send"}},` +
		`"required":["count"]}`)
)

type extraInput struct {
	Query string `json:"query"`
}

type echoInput struct {
	Size int    `json:"size"`
	Data string `json:"data"`
}

type progressInput struct {
	Count int `json:"count"`
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

func registerDimensionTools(s *server.MCPServer, serverType string, extra int, echo bool) {
	tools := make([]server.ServerTool, 0, extra+1)
	for i := 1; i <= extra; i++ {
		name := fmt.Sprintf("extra_%05d", i)
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema(name,
				fmt.Sprintf("Extra tool %d: a catalog lookup registered for the tools/list scale test.", i), extraToolSchema),
			Handler: typed(func() extraInput { return extraInput{} }, func(_ context.Context, in extraInput) (any, error) {
				return struct {
					Tool       string `json:"tool"`
					Query      string `json:"query"`
					ServerType string `json:"server_type"`
				}{name, in.Query, serverType}, nil
			}),
		})
	}
	if echo {
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema("echo_payload",
				"Returns size bytes of deterministic text and counts the characters of data.", echoPayloadSchema),
			// size -1 until the arguments set it: a missing size is refused like a wrong one.
			Handler: typed(func() echoInput { return echoInput{Size: -1} }, func(_ context.Context, in echoInput) (any, error) {
				if in.Size < 0 || in.Size > maxPayload {
					return nil, fmt.Errorf("size must be an integer from 0 to %d", maxPayload)
				}
				return struct {
					Size       int    `json:"size"`
					Received   int    `json:"received"`
					Payload    string `json:"payload"`
					ServerType string `json:"server_type"`
				}{in.Size, utf8.RuneCountInString(in.Data), strings.Repeat(payloadAlphabet, in.Size/64+1)[:in.Size], serverType}, nil
			}),
		})
	}
	if echo {
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema("stream_progress",
				"Sends count progress notifications, then answers.", streamProgressSchema),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var token mcp.ProgressToken
				if req.Params.Meta != nil {
					token = req.Params.Meta.ProgressToken
				}
				// count -1 until the arguments set it: a missing count is refused like a wrong one.
				return typed(func() progressInput { return progressInput{Count: -1} }, func(ctx context.Context, in progressInput) (any, error) {
					if in.Count < 0 || in.Count > maxProgress {
						return nil, fmt.Errorf("count must be an integer from 0 to %d", maxProgress)
					}
					sent := 0
					for i := 1; token != nil && i <= in.Count; i++ {
						params := map[string]any{"progressToken": token, "progress": i, "total": in.Count}
						if err := sendProgress(ctx, s, params); err != nil {
							return nil, fmt.Errorf("progress notification %d: %w", i, err)
						}
						sent++
					}
					return struct {
						Count      int    `json:"count"`
						Sent       int    `json:"sent"`
						ServerType string `json:"server_type"`
					}{in.Count, sent, serverType}, nil
				})(ctx, req)
			},
		})
	}
	if len(tools) > 0 {
		s.AddTools(tools...)
	}
}

// sendProgress hands one notification to mcp-go's SendNotificationToClient. Over HTTP it goes to the
// request's ephemeral session, whose forwarder writes it on the call's own POST reply and switches that
// reply to SSE (server/streamable_http.go:819-863), so SSE_REPLIES needs nothing and is ignored. mcp-go
// never blocks a send: with the session's queue full (100 notifications, newStreamableHttpSession) it
// refuses it with ErrNotificationChannelBlocked, so this waits for the forwarder to drain the queue and
// hands it again rather than drop a notification (only a count above 100 can get there).
// mcp-go 1.2.1 may still lose one on the way out, a race in its transport (README, mcpbench.toml).
func sendProgress(ctx context.Context, s *server.MCPServer, params map[string]any) error {
	for {
		err := s.SendNotificationToClient(ctx, "notifications/progress", params)
		if !errors.Is(err, server.ErrNotificationChannelBlocked) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Microsecond):
		}
	}
}
