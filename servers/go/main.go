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
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxBodyBytes: requests above 1 MiB are refused (the SDK answers 413).
const maxBodyBytes = 1 << 20

type config struct {
	host       string
	port       string
	redisURL   string
	apiURL     string
	serverType string
	cores      int // CPU cores granted; pools are sized from it
	// ALLOWED_HOSTS: the host names a request's Host and Origin may carry; nil: no check.
	allowHosts map[string]bool
	// EXTRA_TOOLS / DIMENSION_TOOLS: the dimension tools (dimension_tools.go), off by default.
	extraTools     int
	dimensionTools bool
	// SSE_REPLIES=1: replies are SSE streams, so stream_progress's notifications ride on them.
	sseReplies bool
}

func loadConfig() config {
	cfg := config{
		host:       getenv("HOST", "127.0.0.1"), // loopback unless the runtime says otherwise (a container: 0.0.0.0)
		port:       getenv("PORT", "8080"),
		redisURL:   getenv("REDIS_URL", "redis://127.0.0.1:6379"),
		apiURL:     strings.TrimRight(getenv("API_SERVICE_URL", "http://127.0.0.1:8100"), "/"),
		serverType: getenv("SERVER_TYPE", "go"),
		cores:      runtime.GOMAXPROCS(0), // already cgroup-aware
		allowHosts: parseAllowedHosts(getenv("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")),

		extraTools:     extraToolsFromEnv(),
		dimensionTools: os.Getenv("DIMENSION_TOOLS") == "1",
		sseReplies:     os.Getenv("SSE_REPLIES") == "1",
	}
	if limit, err := strconv.ParseFloat(os.Getenv("CPU_LIMIT"), 64); err == nil && limit > 0 && !math.IsInf(limit, 0) {
		cfg.cores = max(1, int(math.Ceil(limit)))
		// Go 1.25+ reads the cgroup quota itself, but never goes below 2 and sees nothing for a
		// bare process; CPU_LIMIT is the grant the benchmark states, so it wins (as in baseline).
		// An explicit GOMAXPROCS in the environment still takes precedence.
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(cfg.cores)
		}
	}
	return cfg
}

func getenv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout (newline-delimited JSON-RPC) instead of HTTP")
	flag.Parse()
	log.SetFlags(0) // log writes to stderr: in stdio mode stdout carries JSON-RPC only
	cfg := loadConfig()

	b, err := newBackends(cfg)
	if err != nil {
		log.Fatalf("backends: %v", err)
	}
	defer b.close()

	mcpServer := mcp.NewServer(&mcp.Implementation{Name: "mcpbench-" + cfg.serverType, Version: "1.0.0"},
		&mcp.ServerOptions{
			// Tools only: a stateless server cannot deliver list-changed or log notifications.
			Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
			// Resolves a schema once per pointer: the EXTRA_TOOLS tools share one (dimension_tools.go).
			SchemaCache: mcp.NewSchemaCache(),
		})
	registerTools(mcpServer, b)
	registerDimensionTools(mcpServer, cfg.serverType, cfg.extraTools, cfg.dimensionTools)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if *stdio {
		// One session for the process. The SDK runs every call but initialize on its own
		// goroutine (mcp/server.go: jsonrpc2.Async for each call), so calls in flight overlap
		// and replies go out as they finish. Run returns at EOF on stdin or on SIGTERM; at EOF
		// the SDK cancels the calls still in flight and writes no reply for them (README).
		log.Printf("%s serving stdio (GOMAXPROCS=%d, cores=%d)", cfg.serverType, runtime.GOMAXPROCS(0), cfg.cores)
		if err := mcpServer.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			log.Printf("stdio: %v", err)
		}
		return
	}

	handler := mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return mcpServer }, // one server shared by every request
		&mcp.StreamableHTTPOptions{
			Stateless: true,
			// JSON replies unless SSE_REPLIES=1: a JSON reply cannot carry the call's progress
			// notifications (dimension_tools.go).
			JSONResponse: !cfg.sseReplies,
			// The SDK's DNS-rebinding guard (403 for a non-localhost Host on a loopback
			// connection) stays on; checkHosts adds the ALLOWED_HOSTS list. "*" turns both off.
			DisableLocalhostProtection: cfg.allowHosts == nil,
			MaxRequestBodyBytes:        maxBodyBytes,
		})

	mux := http.NewServeMux()
	mux.Handle("/mcp", checkHosts(handler, cfg.allowHosts))
	srv := &http.Server{
		Addr:              net.JoinHostPort(cfg.host, cfg.port),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second, // longer than the load generator's keep-alive gaps
	}

	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Fatalf("listen: %v", err)
		}
	}()
	log.Printf("%s listening on %s (GOMAXPROCS=%d, cores=%d)", cfg.serverType, srv.Addr, runtime.GOMAXPROCS(0), cfg.cores)

	<-ctx.Done()
	// Let in-flight calls finish; the orchestrator SIGKILLs after 10 s anyway.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Printf("shutdown: %v", err)
	}
}
