package contract

// The dimension tools (issue 37: tools/list at scale, reply and argument size, streamed progress); off
// unless the contract's EXTRA_TOOLS / DIMENSION_TOOLS settings turn them on (docs/server-contract.md).
// Their schemas, descriptions and replies are here; each server registers them in its SDK's way.

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

const (
	payloadAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	MaxPayload      = 16 << 20
	MaxProgress     = 1000

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
