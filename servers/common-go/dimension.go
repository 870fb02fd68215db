package contract

// The dimension tools (issue 37: tools/list at scale, reply and argument size, streamed progress,
// cancellation); off unless the contract's EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on
// (docs/server-contract.md). Their schemas, descriptions and replies are here, and stepped_work's Redis
// writes; each server registers them in its SDK's way.

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/redis/go-redis/v9"
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	MaxPayload      = 16 << 20
	MaxProgress     = 1000
	MaxStepKey      = 100
	MaxSteps        = 1000
	MaxStepInterval = 10000 // ms

	ExtraToolSchema = `{"type":"object","properties":{` +
		`"query":{"type":"string","description":"free-text search query"},` +
		`"limit":{"type":"integer","minimum":1,"maximum":100,"description":"how many records to return"},` +
		`"sort":{"type":"string","enum":["relevance","price","rating","newest"],"description":"sort order"},` +
		`"filters":{"type":"object","description":"optional filters","properties":{` +
		`"category":{"type":"string"},"min_price":{"type":"number"},"in_stock":{"type":"boolean"}}}},` +
		`"required":["query"]}`

	EchoPayloadName        = "echo_payload"
	EchoPayloadDescription = "Returns size bytes of deterministic text and counts the characters of data."
	EchoPayloadSchema      = `{"type":"object","properties":{` +
		`"size":{"type":"integer","minimum":0,"maximum":16777216,"description":"how many characters of payload to return"},` +
		`"data":{"type":"string","default":"","description":"any text; only its length is counted"}},` +
		`"required":["size"]}`

	StreamProgressName        = "stream_progress"
	StreamProgressDescription = "Sends count progress notifications, then answers."
	StreamProgressSchema      = `{"type":"object","properties":{` +
		`"count":{"type":"integer","minimum":0,"maximum":1000,"description":"how many progress notifications to send"}},` +
		`"required":["count"]}`

	SteppedWorkName        = "stepped_work"
	SteppedWorkDescription = "Appends steps timestamps to a Redis list, interval_ms apart, with progress; stops when cancelled."
	SteppedWorkSchema      = `{"type":"object","properties":{` +
		`"key":{"type":"string","minLength":1,"maxLength":100,"description":"names the Redis list bench:steps:<key> the steps are appended to"},` +
		`"steps":{"type":"integer","minimum":1,"maximum":1000,"description":"how many steps to do"},` +
		`"interval_ms":{"type":"integer","minimum":0,"maximum":10000,"description":"milliseconds between steps"}},` +
		`"required":["key","steps","interval_ms"]}`
)

// ExtraToolName and ExtraToolDescription name the i-th EXTRA_TOOLS tool (from 1).
func ExtraToolName(i int) string { return fmt.Sprintf("extra_%05d", i) }

func ExtraToolDescription(i int) string {
	return fmt.Sprintf("Extra tool %d: a catalog lookup registered for the tools/list scale test.", i)
}

// ExtraResult is an extra tool's reply.
func ExtraResult(name, query, serverType string) any {
	return struct {
		Tool       string `json:"tool"`
		Query      string `json:"query"`
		ServerType string `json:"server_type"`
	}{name, query, serverType}
}

// EchoPayload is echo_payload's reply: size characters of deterministic text and data's length in
// characters; a size out of range is an error (a server whose SDK validates the schema never gets one).
func EchoPayload(size int, data, serverType string) (any, error) {
	if size < 0 || size > MaxPayload {
		return nil, fmt.Errorf("size must be an integer from 0 to %d", MaxPayload)
	}
	return struct {
		Size       int    `json:"size"`
		Received   int    `json:"received"`
		Payload    string `json:"payload"`
		ServerType string `json:"server_type"`
	}{size, utf8.RuneCountInString(data), Payload(size), serverType}, nil
}

// Payload is size characters of the payload alphabet, repeated.
func Payload(size int) string { return strings.Repeat(payloadAlphabet, size/64+1)[:size] }

// CheckProgressCount refuses a stream_progress count out of range.
func CheckProgressCount(count int) error {
	if count < 0 || count > MaxProgress {
		return fmt.Errorf("count must be an integer from 0 to %d", MaxProgress)
	}
	return nil
}

// ProgressResult is stream_progress's reply: the count asked for and the notifications sent.
func ProgressResult(count, sent int, serverType string) any {
	return struct {
		Count      int    `json:"count"`
		Sent       int    `json:"sent"`
		ServerType string `json:"server_type"`
	}{count, sent, serverType}
}

// CheckSteppedWork refuses stepped_work arguments out of range (key in characters, as JSON Schema counts).
func CheckSteppedWork(key string, steps, intervalMS int) error {
	switch {
	case key == "" || utf8.RuneCountInString(key) > MaxStepKey:
		return fmt.Errorf("key must be a string of 1 to %d characters", MaxStepKey)
	case steps < 1 || steps > MaxSteps:
		return fmt.Errorf("steps must be an integer from 1 to %d", MaxSteps)
	case intervalMS < 0 || intervalMS > MaxStepInterval:
		return fmt.Errorf("interval_ms must be an integer from 0 to %d", MaxStepInterval)
	}
	return nil
}

// SteppedWork is stepped_work's work: for i = 1 … steps it appends the Unix time in ms to the list
// bench:steps:<key>, calls progress(i) (nil: the call has no progress token) and, unless i is the last
// step, waits intervalMS. ctx is the call's as the SDK hands it to the handler, its only news of a
// cancellation: done before a step, or during a wait, it stops and returns the steps written and ctx's error.
func SteppedWork(ctx context.Context, rdb *redis.Client, key string, steps, intervalMS int, progress func(i int) error) (int, error) {
	list, interval := "bench:steps:"+key, time.Duration(intervalMS)*time.Millisecond
	for i := 1; i <= steps; i++ {
		if err := ctx.Err(); err != nil {
			return i - 1, err
		}
		if err := rdb.RPush(ctx, list, strconv.FormatInt(time.Now().UnixMilli(), 10)).Err(); err != nil {
			return i - 1, err
		}
		if progress != nil {
			if err := progress(i); err != nil {
				return i, fmt.Errorf("progress notification %d: %w", i, err)
			}
		}
		if i < steps {
			select {
			case <-ctx.Done():
				return i, ctx.Err()
			case <-time.After(interval):
			}
		}
	}
	return steps, nil
}

// SteppedResult is stepped_work's reply: the key and the steps written.
func SteppedResult(key string, steps int, serverType string) any {
	return struct {
		Key        string `json:"key"`
		Steps      int    `json:"steps"`
		ServerType string `json:"server_type"`
	}{key, steps, serverType}
}
