package main

// The dimension tools (common-go/dimension.go), registered mcp-go's way; off unless the contract's
// EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"mcpbench/contract"
)

// The input schemas, given to mcp-go as raw JSON (listed as they are). mcp-go validates no arguments
// (WithInputSchemaValidation is off, as for the workload tools): typed decodes them, and echo_payload
// checks its size itself, stream_progress its count, stepped_work its three arguments.
var (
	extraToolSchema      = json.RawMessage(contract.ExtraToolSchema)
	echoPayloadSchema    = json.RawMessage(contract.EchoPayloadSchema)
	streamProgressSchema = json.RawMessage(contract.StreamProgressSchema)
	steppedWorkSchema    = json.RawMessage(contract.SteppedWorkSchema)
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

type steppedInput struct {
	Key        string `json:"key"`
	Steps      int    `json:"steps"`
	IntervalMS int    `json:"interval_ms"`
}

func registerDimensionTools(s *server.MCPServer, b *contract.Backends, extra int, echo bool) {
	serverType := b.ServerType
	tools := make([]server.ServerTool, 0, extra+1)
	for i := 1; i <= extra; i++ {
		name := contract.ExtraToolName(i)
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema(name, contract.ExtraToolDescription(i), extraToolSchema),
			Handler: typed(func() extraInput { return extraInput{} }, func(_ context.Context, in extraInput) (any, error) {
				return contract.ExtraResult(name, in.Query, serverType), nil
			}),
		})
	}
	if echo {
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema(contract.EchoPayloadName, contract.EchoPayloadDescription, echoPayloadSchema),
			// size -1 until the arguments set it: a missing size is refused like a wrong one.
			Handler: typed(func() echoInput { return echoInput{Size: -1} }, func(_ context.Context, in echoInput) (any, error) {
				return contract.EchoPayload(in.Size, in.Data, serverType)
			}),
		})
	}
	if echo {
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema(contract.StreamProgressName, contract.StreamProgressDescription, streamProgressSchema),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var token mcp.ProgressToken
				if req.Params.Meta != nil {
					token = req.Params.Meta.ProgressToken
				}
				// count -1 until the arguments set it: a missing count is refused like a wrong one.
				return typed(func() progressInput { return progressInput{Count: -1} }, func(ctx context.Context, in progressInput) (any, error) {
					if err := contract.CheckProgressCount(in.Count); err != nil {
						return nil, err
					}
					sent := 0
					for i := 1; token != nil && i <= in.Count; i++ {
						params := map[string]any{"progressToken": token, "progress": i, "total": in.Count}
						if err := sendProgress(ctx, s, params); err != nil {
							return nil, fmt.Errorf("progress notification %d: %w", i, err)
						}
						sent++
					}
					return contract.ProgressResult(in.Count, sent, serverType), nil
				})(ctx, req)
			},
		})
		// Cancellation: the handler's ctx, which mcp-go derives from the HTTP request's (closed connection)
		// and cancels on notifications/cancelled for the call's id in the same session (README).
		tools = append(tools, server.ServerTool{
			Tool: mcp.NewToolWithRawSchema(contract.SteppedWorkName, contract.SteppedWorkDescription, steppedWorkSchema),
			Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var token mcp.ProgressToken
				if req.Params.Meta != nil {
					token = req.Params.Meta.ProgressToken
				}
				// steps and interval_ms -1 until the arguments set them: a missing one is refused like a wrong one.
				return typed(func() steppedInput { return steppedInput{Steps: -1, IntervalMS: -1} }, func(ctx context.Context, in steppedInput) (any, error) {
					if err := contract.CheckSteppedWork(in.Key, in.Steps, in.IntervalMS); err != nil {
						return nil, err
					}
					var progress func(int) error
					if token != nil {
						progress = func(i int) error {
							return sendProgress(ctx, s, map[string]any{"progressToken": token, "progress": i, "total": in.Steps})
						}
					}
					steps, err := contract.SteppedWork(ctx, b.Redis, in.Key, in.Steps, in.IntervalMS, progress)
					if err != nil {
						return nil, err
					}
					return contract.SteppedResult(in.Key, steps, serverType), nil
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
