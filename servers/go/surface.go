package main

// The surface (docs/workload.md §7; common-go/surface.go), registered the SDK's way under DIMENSION_TOOLS=1
// only: a resource template, a fixed resource, a prompt, and a completion handler for the prompt's argument.

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpbench/contract"
)

// surfaceOptions advertises resources and prompts without listChanged (a stateless server cannot deliver
// it; left nil, the SDK would infer {"listChanged":true}) and sets the completion handler, which is what
// makes the SDK advertise completions and answer completion/complete (mcp/server.go, capabilities).
func surfaceOptions(opts *mcp.ServerOptions, b *contract.Backends) {
	opts.Capabilities.Resources = &mcp.ResourceCapabilities{}
	opts.Capabilities.Prompts = &mcp.PromptCapabilities{}
	opts.CompletionHandler = func(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		values := []string{}
		if ref := req.Params.Ref; ref.Type == "ref/prompt" && ref.Name == contract.CartSummaryName &&
			req.Params.Argument.Name == contract.UserIDArgument {
			var err error
			if values, err = contract.CompleteUserID(ctx, b.Redis, req.Params.Argument.Value); err != nil {
				return nil, err
			}
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values}}, nil
	}
}

func registerSurface(s *mcp.Server, b *contract.Backends) {
	// The SDK matches the URI against the template before calling the handler.
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: contract.ProductTemplate,
		Name:        contract.ProductName,
		Description: contract.ProductDescription,
		MIMEType:    contract.SurfaceMIMEType,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return resourceText(req.Params.URI)(b.Product(ctx, contract.ProductID(req.Params.URI)))
	})
	s.AddResource(&mcp.Resource{
		URI:         contract.PopularURI,
		Name:        contract.PopularName,
		Description: contract.PopularDescription,
		MIMEType:    contract.SurfaceMIMEType,
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return resourceText(req.Params.URI)(contract.Popular(ctx, b.Redis))
	})
	s.AddPrompt(&mcp.Prompt{
		Name:        contract.CartSummaryName,
		Description: contract.CartSummaryDescription,
		Arguments: []*mcp.PromptArgument{{
			Name: contract.UserIDArgument, Description: contract.UserIDDescription, Required: true,
		}},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		text, err := contract.CartSummary(ctx, b.Redis, req.Params.Arguments[contract.UserIDArgument])
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}}}, nil
	})
}

// resourceText makes a read's text its one JSON content, or passes the read's error on.
func resourceText(uri string) func(string, error) (*mcp.ReadResourceResult, error) {
	return func(text string, err error) (*mcp.ReadResourceResult, error) {
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: contract.SurfaceMIMEType, Text: text}}}, nil
	}
}
