package main

// The surface (docs/workload.md §7; common-go/surface.go) behind the hand-written protocol, under
// DIMENSION_TOOLS=1 only: resources/list, resources/templates/list, resources/read, prompts/list,
// prompts/get and completion/complete. Without it they stay unknown methods (-32601).

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"

	"mcpbench/contract"
)

const (
	codeInternal         = -32603
	codeResourceNotFound = -32002 // MCP's code for a URI no resource answers

	// What initialize adds to capabilities.tools: no list ever changes, so no listChanged.
	surfaceCapabilities = `,"resources":{"listChanged":false},"prompts":{"listChanged":false},"completions":{}`

	resourcesList = `{"resources":[{"uri":"` + contract.PopularURI + `","name":"` + contract.PopularName +
		`","description":"` + contract.PopularDescription + `","mimeType":"` + contract.SurfaceMIMEType + `"}]}`
	templatesList = `{"resourceTemplates":[{"uriTemplate":"` + contract.ProductTemplate + `","name":"` + contract.ProductName +
		`","description":"` + contract.ProductDescription + `","mimeType":"` + contract.SurfaceMIMEType + `"}]}`
	promptsList = `{"prompts":[{"name":"` + contract.CartSummaryName + `","description":"` + contract.CartSummaryDescription +
		`","arguments":[{"name":"` + contract.UserIDArgument + `","description":"` + contract.UserIDDescription + `","required":true}]}]}`
)

// dispatchSurface answers the surface's methods; ok is false for any other method.
func (s *server) dispatchSurface(ctx context.Context, req *rpcRequest, b *buffers) (out []byte, ok bool) {
	switch req.Method {
	case "resources/list":
		return append(append(appendResultStart(b.out, req.ID), resourcesList...), '}'), true
	case "resources/templates/list":
		return append(append(appendResultStart(b.out, req.ID), templatesList...), '}'), true
	case "prompts/list":
		return append(append(appendResultStart(b.out, req.ID), promptsList...), '}'), true
	case "resources/read":
		var p struct {
			URI string `json:"uri"`
		}
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil || p.URI == "" {
			return appendError(b.out, req.ID, codeInvalidParams, "invalid resources/read params"), true
		}
		var text string
		var err error
		if p.URI == contract.PopularURI {
			text, err = contract.Popular(ctx, s.rdb)
		} else if id := contract.ProductID(p.URI); id != "" {
			var product json.RawMessage // the API's object as it sent it
			err = s.get(ctx, s.productURL+url.PathEscape(id), &product)
			text = string(product)
		} else {
			return appendError(b.out, req.ID, codeResourceNotFound, "resource not found: "+p.URI), true
		}
		if err != nil {
			return appendError(b.out, req.ID, codeInternal, "reading "+p.URI+" failed: "+err.Error()), true
		}
		out = append(appendResultStart(b.out, req.ID), `{"contents":[{"uri":`...)
		out = appendString(out, p.URI)
		out = append(out, `,"mimeType":"`+contract.SurfaceMIMEType+`","text":`...)
		out = appendString(out, text)
		return append(out, "}]}}"...), true
	case "prompts/get":
		var p struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
		}
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil {
			return appendError(b.out, req.ID, codeInvalidParams, "invalid prompts/get params"), true
		}
		if p.Name != contract.CartSummaryName {
			return appendError(b.out, req.ID, codeInvalidParams, "unknown prompt: "+p.Name), true
		}
		userID, given := p.Arguments[contract.UserIDArgument]
		if !given {
			return appendError(b.out, req.ID, codeInvalidParams, "missing argument: "+contract.UserIDArgument), true
		}
		text, err := contract.CartSummary(ctx, s.rdb, userID)
		switch {
		case errors.Is(err, contract.ErrNoCart):
			return appendError(b.out, req.ID, codeInvalidParams, err.Error()), true
		case err != nil:
			return appendError(b.out, req.ID, codeInternal, "prompts/get failed: "+err.Error()), true
		}
		out = append(appendResultStart(b.out, req.ID), `{"messages":[{"role":"user","content":{"type":"text","text":`...)
		out = appendString(out, text)
		return append(out, "}}]}}"...), true
	case "completion/complete":
		var p struct {
			Ref struct {
				Type string `json:"type"`
				Name string `json:"name"`
			} `json:"ref"`
			Argument struct {
				Name  string `json:"name"`
				Value string `json:"value"`
			} `json:"argument"`
		}
		if len(req.Params) == 0 || json.Unmarshal(req.Params, &p) != nil || p.Ref.Type == "" || p.Argument.Name == "" {
			return appendError(b.out, req.ID, codeInvalidParams, "invalid completion/complete params"), true
		}
		var values []string // any other argument has none
		if p.Ref.Type == "ref/prompt" && p.Ref.Name == contract.CartSummaryName && p.Argument.Name == contract.UserIDArgument {
			var err error
			if values, err = contract.CompleteUserID(ctx, s.rdb, p.Argument.Value); err != nil {
				return appendError(b.out, req.ID, codeInternal, "completion/complete failed: "+err.Error()), true
			}
		}
		out = append(appendResultStart(b.out, req.ID), `{"completion":{"values":[`...)
		for i, v := range values {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendString(out, v)
		}
		return append(out, "]}}}"...), true
	}
	return nil, false
}
