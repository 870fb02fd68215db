// Command server is the mcpbench reference server on mark3labs/mcp-go
// (github.com/mark3labs/mcp-go): Streamable HTTP at POST /mcp, stateless,
// JSON replies, three tools backed by Redis and the product API.
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

	"github.com/mark3labs/mcp-go/server"

	"mcpbench/contract"
)

// maxBodyBytes: requests above 1 MiB are refused. mcp-go reads the whole body with no
// limit of its own, so net/http's MaxBytesHandler enforces it (a JSON-RPC parse error).
const maxBodyBytes = 1 << 20

// mcp-go's stdio server runs tool calls on a fixed pool of workers (default 5) fed by a
// queue (default 100); when the queue is full it runs the call on the read loop, which then
// stops reading. The calls are I/O-bound and HTTP mode caps none, so the stdio server
// takes the SDK's maximum of each: up to 100 calls run at once, the rest wait their turn.
const (
	stdioWorkers = 100
	stdioQueue   = 10000
)

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout (newline-delimited JSON-RPC) instead of HTTP")
	flag.Parse()
	log.SetFlags(0) // log writes to stderr: in stdio mode stdout carries JSON-RPC only
	cfg := contract.LoadConfig("go-mcp-go")

	b, err := contract.NewBackends(cfg)
	if err != nil {
		log.Fatalf("backends: %v", err)
	}
	defer b.Close()

	// Tools only: a stateless server cannot deliver list-changed notifications.
	opts := []server.ServerOption{server.WithToolCapabilities(false)}
	if cfg.DimensionTools {
		opts = append(opts, surfaceOptions(b)...) // resources, prompts and completions too (surface.go)
	}
	mcpServer := server.NewMCPServer("mcpbench-"+cfg.ServerType, "1.0.0", opts...)
	registerTools(mcpServer, b)
	registerDimensionTools(mcpServer, b, cfg.ExtraTools, cfg.DimensionTools)
	if cfg.DimensionTools {
		registerSurface(mcpServer, b)
	}

	if *stdio {
		// Returns at EOF on stdin or on SIGTERM/SIGINT (ServeStdio handles both); the
		// SDK's error log goes to stderr.
		log.Printf("%s serving stdio (GOMAXPROCS=%d, cores=%d, %d tool workers)", cfg.ServerType, runtime.GOMAXPROCS(0), cfg.Cores, stdioWorkers)
		if err := server.ServeStdio(mcpServer,
			server.WithWorkerPoolSize(stdioWorkers), server.WithQueueSize(stdioQueue)); err != nil && !errors.Is(err, context.Canceled) {
			log.Printf("stdio: %v", err)
		}
		return
	}

	handler := server.NewStreamableHTTPServer(mcpServer,
		// Stateless unless SESSIONS=1 (the abandoned dimension): then mcp-go keeps each session.
		server.WithStateLess(!cfg.Sessions),
		// GET would open an SSE stream that a stateless server can never send anything on.
		server.WithDisableStreaming(true),
		// mcp-go's DNS-rebinding guard (403 for a non-localhost Host on a loopback connection)
		// stays on; checkHosts adds the ALLOWED_HOSTS list. "*" turns both off.
		server.WithDisableLocalhostProtection(cfg.AllowHosts == nil))

	mux := http.NewServeMux()
	mux.Handle("/mcp", contract.CheckHosts(http.MaxBytesHandler(handler, maxBodyBytes), cfg.AllowHosts))
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

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	<-ctx.Done()
	// Let in-flight calls finish; the orchestrator SIGKILLs after 10 s anyway.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Printf("shutdown: %v", err)
	}
}
