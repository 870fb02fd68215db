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
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	maxPayload      = 16 << 20

	extraToolSchema = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"free-text search query"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"how many records to return"},` +
		`"sort":{"type":"string","enum":["relevance","price","rating","newest"],"description":"sort order"},` +
		`"filters":{"type":"object","description":"optional filters","properties":{` +
		`"category":{"type":"string"},"min_price":{"type":"number"},"in_stock":{"type":"boolean"}}}},` +
		`"required":["query"]}`
	echoPayloadTool = `{"name":"echo_payload",` +
		`"description":"Returns size bytes of deterministic text and counts the characters of data.",` +
		`"inputSchema":{"type":"object","properties":{` +
		`"size":{"type":"integer","minimum":0,"maximum":16777216,"description":"how many characters of payload to return"},` +
		`"data":{"type":"string","default":"","description":"any text; only its length is counted"}},` +
		`"required":["size"]}}`
	maxProgress        = 1000
	streamProgressTool = `{"name":"stream_progress",` +
		`"description":"Sends count progress notifications, then answers.",` +
		`"inputSchema":{"type":"object","properties":{` +
		`"count":{"type":"integer","minimum":0,"maximum":1000,"description":"how many progress notifications to send"}},` +
		`"required":["count"]}}`
)

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

// addDimensionTools registers the tools the settings ask for and appends their entries to list.
func (s *server) addDimensionTools(list []byte) []byte {
	for i := 1; i <= s.extraTools; i++ {
		name := fmt.Sprintf("extra_%05d", i)
		s.tools[name] = s.extraTool(name)
		list = fmt.Appendf(list, `,{"name":%q,"description":"Extra tool %d: a catalog lookup registered for the tools/list scale test.","inputSchema":`, name, i)
		list = append(append(list, extraToolSchema...), '}')
	}
	if s.dimensionTools {
		s.tools["echo_payload"] = s.echoPayload
		s.tools["stream_progress"] = s.streamProgress
		list = append(append(list, ','), echoPayloadTool...)
		list = append(append(list, ','), streamProgressTool...)
	}
	return list
}

func (s *server) extraTool(name string) toolFunc {
	return func(_ context.Context, raw json.RawMessage, enc *json.Encoder) error {
		var a struct {
			Query *string `json:"query"`
		}
		if err := decodeArgs(raw, &a); err != nil {
			return err
		}
		if a.Query == nil {
			return &invalidParams{"invalid arguments: query is required"}
		}
		return enc.Encode(struct {
			Tool       string `json:"tool"`
			Query      string `json:"query"`
			ServerType string `json:"server_type"`
		}{name, *a.Query, s.serverType})
	}
}

func (s *server) echoPayload(_ context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		Size *int   `json:"size"`
		Data string `json:"data"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	if a.Size == nil || *a.Size < 0 || *a.Size > maxPayload {
		return &invalidParams{fmt.Sprintf("invalid arguments: size must be an integer from 0 to %d", maxPayload)}
	}
	return enc.Encode(struct {
		Size       int    `json:"size"`
		Received   int    `json:"received"`
		Payload    string `json:"payload"`
		ServerType string `json:"server_type"`
	}{*a.Size, utf8.RuneCountInString(a.Data), strings.Repeat(payloadAlphabet, *a.Size/64+1)[:*a.Size], s.serverType})
}

// progressKey holds a tools/call's *progress in its context when the call carries a progress token
// (mcp.go, dispatch).
type progressKey struct{}

// progress is a call's progress token and the transport's way to send a notification ahead of its reply.
type progress struct {
	token json.RawMessage // a JSON string or number, as the request gave it
	out   notifier
	msg   []byte
}

// send sends notifications/progress {progressToken, progress: i, total}; the transport has written or
// queued it when send returns.
func (p *progress) send(i, total int) error {
	m := append(p.msg[:0], `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":`...)
	m = append(m, p.token...)
	m = append(m, `,"progress":`...)
	m = strconv.AppendInt(m, int64(i), 10)
	m = append(m, `,"total":`...)
	m = strconv.AppendInt(m, int64(total), 10)
	p.msg = append(m, "}}"...)
	return p.out.send(p.msg)
}

func (s *server) streamProgress(ctx context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		Count *int `json:"count"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	if a.Count == nil || *a.Count < 0 || *a.Count > maxProgress {
		return &invalidParams{fmt.Sprintf("invalid arguments: count must be an integer from 0 to %d", maxProgress)}
	}
	sent := 0
	if p, ok := ctx.Value(progressKey{}).(*progress); ok { // no token: no notification
		for i := 1; i <= *a.Count; i++ {
			if err := p.send(i, *a.Count); err != nil {
				return err
			}
			sent++
		}
	}
	return enc.Encode(struct {
		Count      int    `json:"count"`
		Sent       int    `json:"sent"`
		ServerType string `json:"server_type"`
	}{*a.Count, sent, s.serverType})
}
