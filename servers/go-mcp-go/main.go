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

	"github.com/mark3labs/mcp-go/server"
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
}

func loadConfig() config {
	cfg := config{
		host:       getenv("HOST", "127.0.0.1"), // loopback unless the runtime says otherwise (a container: 0.0.0.0)
		port:       getenv("PORT", "8080"),
		redisURL:   getenv("REDIS_URL", "redis://127.0.0.1:6379"),
		apiURL:     strings.TrimRight(getenv("API_SERVICE_URL", "http://127.0.0.1:8100"), "/"),
		serverType: getenv("SERVER_TYPE", "go-mcp-go"),
		cores:      runtime.GOMAXPROCS(0), // already cgroup-aware
		allowHosts: parseAllowedHosts(getenv("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")),

		extraTools:     extraToolsFromEnv(),
		dimensionTools: os.Getenv("DIMENSION_TOOLS") == "1",
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

	mcpServer := server.NewMCPServer("mcpbench-"+cfg.serverType, "1.0.0",
		// Tools only: a stateless server cannot deliver list-changed notifications.
		server.WithToolCapabilities(false))
	registerTools(mcpServer, b)
	registerDimensionTools(mcpServer, cfg.serverType, cfg.extraTools, cfg.dimensionTools)

	if *stdio {
		// Returns at EOF on stdin or on SIGTERM/SIGINT (ServeStdio handles both); the
		// SDK's error log goes to stderr.
		log.Printf("%s serving stdio (GOMAXPROCS=%d, cores=%d, %d tool workers)", cfg.serverType, runtime.GOMAXPROCS(0), cfg.cores, stdioWorkers)
		if err := server.ServeStdio(mcpServer,
			server.WithWorkerPoolSize(stdioWorkers), server.WithQueueSize(stdioQueue)); err != nil && !errors.Is(err, context.Canceled) {
			log.Printf("stdio: %v", err)
		}
		return
	}

	handler := server.NewStreamableHTTPServer(mcpServer,
		server.WithStateLess(true),
		// GET would open an SSE stream that a stateless server can never send anything on.
		server.WithDisableStreaming(true),
		// mcp-go's DNS-rebinding guard (403 for a non-localhost Host on a loopback connection)
		// stays on; checkHosts adds the ALLOWED_HOSTS list. "*" turns both off.
		server.WithDisableLocalhostProtection(cfg.allowHosts == nil))

	mux := http.NewServeMux()
	mux.Handle("/mcp", checkHosts(http.MaxBytesHandler(handler, maxBodyBytes), cfg.allowHosts))
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
