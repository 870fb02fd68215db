package main

// The surface (docs/workload.md §7; common-go/surface.go), registered mcp-go's way under DIMENSION_TOOLS=1
// only: a resource template, a fixed resource, a prompt, and a prompt completion provider for its argument.

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"mcpbench/contract"
)

// surfaceOptions advertises resources and prompts without listChanged (a stateless server cannot deliver
// it) and completions, answered by userCompletions: mcp-go refuses completion/complete without
// WithCompletions (server/request_handler.go).
func surfaceOptions(b *contract.Backends) []server.ServerOption {
	return []server.ServerOption{
		server.WithResourceCapabilities(false, false),
		server.WithPromptCapabilities(false),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(userCompletions{b}),
	}
}

// userCompletions completes cart_summary's user_id; any other prompt argument has no values.
type userCompletions struct{ b *contract.Backends }

func (c userCompletions) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != contract.CartSummaryName || arg.Name != contract.UserIDArgument {
		return &mcp.Completion{Values: []string{}}, nil
	}
	values, err := contract.CompleteUserID(ctx, c.b.Redis, arg.Value)
	if err != nil {
		return nil, err
	}
	return &mcp.Completion{Values: values}, nil
}

func registerSurface(s *server.MCPServer, b *contract.Backends) {
	// mcp-go matches the URI against the template before calling the handler.
	s.AddResourceTemplate(mcp.NewResourceTemplate(contract.ProductTemplate, contract.ProductName,
		mcp.WithTemplateDescription(contract.ProductDescription), mcp.WithTemplateMIMEType(contract.SurfaceMIMEType)),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return resourceText(req.Params.URI)(b.Product(ctx, contract.ProductID(req.Params.URI)))
		})
	s.AddResource(mcp.NewResource(contract.PopularURI, contract.PopularName,
		mcp.WithResourceDescription(contract.PopularDescription), mcp.WithMIMEType(contract.SurfaceMIMEType)),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return resourceText(req.Params.URI)(contract.Popular(ctx, b.Redis))
		})
	s.AddPrompt(mcp.NewPrompt(contract.CartSummaryName,
		mcp.WithPromptDescription(contract.CartSummaryDescription),
		mcp.WithArgument(contract.UserIDArgument, mcp.ArgumentDescription(contract.UserIDDescription), mcp.RequiredArgument())),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			text, err := contract.CartSummary(ctx, b.Redis, req.Params.Arguments[contract.UserIDArgument])
			if err != nil {
				return nil, err
			}
			return mcp.NewGetPromptResult("", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
		})
}

// resourceText makes a read's text its one JSON content, or passes the read's error on.
func resourceText(uri string) func(string, error) ([]mcp.ResourceContents, error) {
	return func(text string, err error) ([]mcp.ResourceContents, error) {
		if err != nil {
			return nil, err
		}
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: contract.SurfaceMIMEType, Text: text}}, nil
	}
}
