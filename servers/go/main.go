// Command server is the mcpbench reference server on the official Go MCP SDK
// (github.com/modelcontextprotocol/go-sdk): Streamable HTTP at POST /mcp,
// stateless, JSON replies, three tools backed by Redis and the product API.
// With -stdio it serves the same server over stdin/stdout instead.
package main

import (
	"context"
	"errors"
	"flag"
	"log"
	"net"
	"net/http"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcpbench/contract"
)

// maxBodyBytes: requests above 1 MiB are refused (the SDK answers 413).
const maxBodyBytes = 1 << 20

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout (newline-delimited JSON-RPC) instead of HTTP")
	flag.Parse()
	log.SetFlags(0) // log writes to stderr: in stdio mode stdout carries JSON-RPC only
	cfg := contract.LoadConfig("go")

	b, err := contract.NewBackends(cfg)
	if err != nil {
		log.Fatalf("backends: %v", err)
	}
	defer b.Close()

	opts := &mcp.ServerOptions{
		// Tools only: a stateless server cannot deliver list-changed or log notifications.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
		// Resolves a schema once per pointer: the EXTRA_TOOLS tools share one (dimension_tools.go).
		SchemaCache: mcp.NewSchemaCache(),
	}
	if cfg.DimensionTools {
		surfaceOptions(opts, b) // resources, prompts and completions too (surface.go)
	}
	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "mcpbench-" + cfg.ServerType, Version: "1.0.0"}, opts)
	registerTools(mcpServer, b)
	registerDimensionTools(mcpServer, b, cfg.ExtraTools, cfg.DimensionTools)
	if cfg.DimensionTools {
		registerSurface(mcpServer, b)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if *stdio {
		// One session for the process. The SDK runs every call but initialize on its own
		// goroutine (mcp/server.go: jsonrpc2.Async for each call), so calls in flight overlap
		// and replies go out as they finish. Run returns at EOF on stdin or on SIGTERM; at EOF
		// the SDK cancels the calls still in flight and writes no reply for them (README).
		log.Printf("%s serving stdio (GOMAXPROCS=%d, cores=%d)", cfg.ServerType, runtime.GOMAXPROCS(0), cfg.Cores)
		if err := mcpServer.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			log.Printf("stdio: %v", err)
		}
		return
	}

	handler := mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return mcpServer }, // one server shared by every request
		&mcp.StreamableHTTPOptions{
			// Stateless unless SESSIONS=1 (the abandoned dimension): then the SDK keeps each session.
			Stateless: !cfg.Sessions,
			// JSON replies unless SSE_REPLIES=1: a JSON reply cannot carry the call's progress
			// notifications (dimension_tools.go).
			JSONResponse: !cfg.SSEReplies,
			// The SDK's DNS-rebinding guard (403 for a non-localhost Host on a loopback
			// connection) stays on; checkHosts adds the ALLOWED_HOSTS list. "*" turns both off.
			DisableLocalhostProtection: cfg.AllowHosts == nil,
			MaxRequestBodyBytes:        maxBodyBytes,
		})

	mux := http.NewServeMux()
	mux.Handle("/mcp", contract.CheckHosts(handler, cfg.AllowHosts))
	srv := &http.Server{
		Addr:              net.JoinHostPort(cfg.Host, cfg.Port),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second, // longer than the load generator's keep-alive gaps
	}

	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatalf("listen: %v", err)
		}
	}()
	log.Printf("%s listening on %s (GOMAXPROCS=%d, cores=%d)", cfg.ServerType, srv.Addr, runtime.GOMAXPROCS(0), cfg.Cores)

	<-ctx.Done()
	// Let in-flight calls finish; the orchestrator SIGKILLs after 10 s anyway.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Printf("shutdown: %v", err)
	}
}
