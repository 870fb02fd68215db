package main

// The dimension tools (common-go/dimension.go), behind the hand-written protocol; off unless the
// contract's EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"mcpbench/contract"
)

// The tools' entries in tools/list, from the contract's schemas (common-go/dimension.go).
var (
	echoPayloadTool    = toolEntry(contract.EchoPayloadName, contract.EchoPayloadDescription, contract.EchoPayloadSchema)
	streamProgressTool = toolEntry(contract.StreamProgressName, contract.StreamProgressDescription, contract.StreamProgressSchema)
	steppedWorkTool    = toolEntry(contract.SteppedWorkName, contract.SteppedWorkDescription, contract.SteppedWorkSchema)
)

func toolEntry(name, description, schema string) string {
	return `{"name":"` + name + `","description":"` + description + `","inputSchema":` + schema + `}`
}

// addDimensionTools registers the tools the settings ask for and appends their entries to list.
func (s *server) addDimensionTools(list []byte) []byte {
	for i := 1; i <= s.extraTools; i++ {
		name := contract.ExtraToolName(i)
		s.tools[name] = s.extraTool(name)
		list = append(append(list, ','), toolEntry(name, contract.ExtraToolDescription(i), contract.ExtraToolSchema)...)
	}
	if s.dimensionTools {
		s.tools["echo_payload"] = s.echoPayload
		s.tools["stream_progress"] = s.streamProgress
		s.tools["stepped_work"] = s.steppedWork
		list = append(append(list, ','), echoPayloadTool...)
		list = append(append(list, ','), streamProgressTool...)
		list = append(append(list, ','), steppedWorkTool...)
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
		return enc.Encode(contract.ExtraResult(name, *a.Query, s.serverType))
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
	size := -1 // a missing size is refused like one out of range
	if a.Size != nil {
		size = *a.Size
	}
	reply, err := contract.EchoPayload(size, a.Data, s.serverType)
	if err != nil {
		return &invalidParams{"invalid arguments: " + err.Error()}
	}
	return enc.Encode(reply)
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
	if a.Count == nil {
		return &invalidParams{fmt.Sprintf("invalid arguments: count must be an integer from 0 to %d", contract.MaxProgress)}
	}
	if err := contract.CheckProgressCount(*a.Count); err != nil {
		return &invalidParams{"invalid arguments: " + err.Error()}
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
	return enc.Encode(contract.ProgressResult(*a.Count, sent, s.serverType))
}

// steppedWork's ctx is the request's: over HTTP net/http cancels it when the client closes the connection,
// so the steps stop there. There are no sessions to carry notifications/cancelled from another request, and
// over stdio (the process's context) nothing cancels a call: notifications/cancelled is acknowledged like any
// notification and the call runs on (README).
func (s *server) steppedWork(ctx context.Context, raw json.RawMessage, enc *json.Encoder) error {
	var a struct {
		Key        string `json:"key"`
		Steps      *int   `json:"steps"`
		IntervalMS *int   `json:"interval_ms"`
	}
	if err := decodeArgs(raw, &a); err != nil {
		return err
	}
	steps, interval := -1, -1 // a missing one is refused like one out of range
	if a.Steps != nil {
		steps = *a.Steps
	}
	if a.IntervalMS != nil {
		interval = *a.IntervalMS
	}
	if err := contract.CheckSteppedWork(a.Key, steps, interval); err != nil {
		return &invalidParams{"invalid arguments: " + err.Error()}
	}
	var notify func(int) error
	if p, ok := ctx.Value(progressKey{}).(*progress); ok {
		notify = func(i int) error { return p.send(i, steps) }
	}
	written, err := contract.SteppedWork(ctx, s.rdb, a.Key, steps, interval, notify)
	if err != nil {
		return err
	}
	return enc.Encode(contract.SteppedResult(a.Key, written, s.serverType))
}
