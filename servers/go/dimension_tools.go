package main

// The dimension tools (common-go/dimension.go), registered the SDK's way; off unless the
// contract's EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpbench/contract"
)

// The input schemas, parsed once: the SDK validates the arguments against them (a size out of range or
// not an integer is an isError result before the handler runs). Every extra tool shares one
// *jsonschema.Schema, so the server's SchemaCache (main.go) resolves it once, not once per tool
// (resolving takes ~0.3 ms: ~35 s and 1.2 GiB of heap for 99999 tools).
var (
	extraToolSchema      = mustSchema(contract.ExtraToolSchema)
	echoPayloadSchema    = mustSchema(contract.EchoPayloadSchema)
	streamProgressSchema = mustSchema(contract.StreamProgressSchema)
	steppedWorkSchema    = mustSchema(contract.SteppedWorkSchema)
)

func mustSchema(text string) *jsonschema.Schema {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		panic(err)
	}
	return &s
}

func registerDimensionTools(s *mcp.Server, b *contract.Backends, extra int, echo bool) {
	serverType := b.ServerType
	for i := 1; i <= extra; i++ {
		name := contract.ExtraToolName(i)
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: contract.ExtraToolDescription(i), InputSchema: extraToolSchema},
			func(_ context.Context, _ *mcp.CallToolRequest, in struct {
				Query string `json:"query"`
			}) (*mcp.CallToolResult, any, error) {
				return textResult(contract.ExtraResult(name, in.Query, serverType))
			})
	}
	if !echo {
		return
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        contract.EchoPayloadName,
		Description: contract.EchoPayloadDescription,
		InputSchema: echoPayloadSchema,
	}, handler(func(_ context.Context, in struct {
		Size int    `json:"size"`
		Data string `json:"data"`
	}) (any, error) {
		return contract.EchoPayload(in.Size, in.Data, serverType)
	}))
	// The SDK's progress API: each ServerSession.NotifyProgress returns once the notification is written.
	// The handler's ctx carries the call's JSON-RPC id, so the notification goes out on the call's own
	// reply stream; that needs JSONResponse off (SSE_REPLIES=1, main.go): with it on, the SDK routes every
	// non-response message to the standalone GET stream (mcp/streamable.go:1852-1856), which a stateless
	// server has not.
	mcp.AddTool(s, &mcp.Tool{
		Name:        contract.StreamProgressName,
		Description: contract.StreamProgressDescription,
		InputSchema: streamProgressSchema,
	}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Count int `json:"count"`
	}) (*mcp.CallToolResult, any, error) {
		if err := contract.CheckProgressCount(in.Count); err != nil { // the schema already refuses these
			return nil, nil, err
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
		return textResult(contract.ProgressResult(in.Count, sent, serverType))
	})
	// Cancellation: the handler's ctx, which the SDK's jsonrpc2 layer cancels on notifications/cancelled
	// for the call's id (internal/jsonrpc2/conn.go, Connection.Cancel) or when the session's connection
	// fails; closing a stateless POST does not cancel it (README).
	mcp.AddTool(s, &mcp.Tool{
		Name:        contract.SteppedWorkName,
		Description: contract.SteppedWorkDescription,
		InputSchema: steppedWorkSchema,
	}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Key        string `json:"key"`
		Steps      int    `json:"steps"`
		IntervalMS int    `json:"interval_ms"`
	}) (*mcp.CallToolResult, any, error) {
		if err := contract.CheckSteppedWork(in.Key, in.Steps, in.IntervalMS); err != nil { // the schema already refuses these
			return nil, nil, err
		}
		var progress func(int) error
		if token := req.Params.GetProgressToken(); token != nil {
			progress = func(i int) error {
				return req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(in.Steps)})
			}
		}
		steps, err := contract.SteppedWork(ctx, b.Redis, in.Key, in.Steps, in.IntervalMS, progress)
		if err != nil {
			return nil, nil, err
		}
		return textResult(contract.SteppedResult(in.Key, steps, serverType))
	})
}
