package main

// Dimension tools (issue 37: tools/list at scale, reply and argument size); off unless the contract's
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

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	maxPayload      = 16 << 20
)

// The input schemas, given to mcp-go as raw JSON (listed as they are). mcp-go validates no arguments
// (WithInputSchemaValidation is off, as for the workload tools): typed decodes them, and echo_payload
// checks its size itself.
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
)

type extraInput struct {
	Query string `json:"query"`
}

type echoInput struct {
	Size int    `json:"size"`
	Data string `json:"data"`
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
	if len(tools) > 0 {
		s.AddTools(tools...)
	}
}
