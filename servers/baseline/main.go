// Command baseline is the benchmark's "no MCP SDK" reference server: the same three tools and the same
// Redis and HTTP I/O as every SDK server, behind a hand-written JSON-RPC 2.0 endpoint at POST /mcp. Its
// throughput is the workload's own ceiling, against which each SDK's overhead is stated. With -stdio it
// serves the same JSON-RPC over stdin/stdout instead (stdio.go).
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
)

type config struct {
	host       string
	port       string
	redisURL   string
	apiURL     string
	serverType string
	cores      int
	// ALLOWED_HOSTS: the host names a request's Host and Origin may carry; nil: no check.
	allowHosts map[string]bool
	// EXTRA_TOOLS / DIMENSION_TOOLS: the dimension tools (dimension_tools.go), off by default.
	extraTools     int
	dimensionTools bool
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func loadConfig() config {
	cores := runtime.GOMAXPROCS(0)
	if v, err := strconv.ParseFloat(strings.TrimSpace(os.Getenv("CPU_LIMIT")), 64); err == nil && v > 0 && !math.IsInf(v, 0) {
		cores = max(1, int(math.Ceil(v)))
		// Go's own cgroup-aware default never goes below 2 and misses quotas set on a parent cgroup
		// or none at all (a bare process); CPU_LIMIT is the grant the benchmark states, so it wins.
		// An explicit GOMAXPROCS in the environment still takes precedence.
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(cores)
		}
	}
	return config{
		host:       env("HOST", "127.0.0.1"), // loopback unless the runtime says otherwise (a container: 0.0.0.0)
		port:       env("PORT", "8080"),
		redisURL:   env("REDIS_URL", "redis://127.0.0.1:6379"),
		apiURL:     strings.TrimRight(env("API_SERVICE_URL", "http://127.0.0.1:8100"), "/"),
		serverType: env("SERVER_TYPE", "baseline"),
		cores:      cores,
		allowHosts: parseAllowedHosts(env("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")),

		extraTools:     extraToolsFromEnv(),
		dimensionTools: os.Getenv("DIMENSION_TOOLS") == "1",
	}
}

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout (newline-delimited JSON-RPC) instead of HTTP")
	flag.Parse()
	log.SetFlags(0) // log writes to stderr: in stdio mode stdout carries JSON-RPC only
	cfg := loadConfig()
	s, err := newServer(cfg)
	if err != nil {
		log.Fatalf("baseline: %v", err)
	}
	if *stdio {
		log.Printf("baseline: serving stdio (GOMAXPROCS %d, server_type %s)", runtime.GOMAXPROCS(0), cfg.serverType)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
		err := s.serveStdio(ctx, os.Stdin, os.Stdout)
		stop()
		s.close()
		if err != nil {
			log.Fatalf("baseline: stdio: %v", err)
		}
		return
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", checkHosts(s, cfg.allowHosts))
	srv := &http.Server{
		Addr:              net.JoinHostPort(cfg.host, cfg.port),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second, // load generators keep connections alive for the whole run
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatalf("baseline: %v", err)
	}
	log.Printf("baseline: listening on %s (GOMAXPROCS %d, server_type %s)", ln.Addr(), runtime.GOMAXPROCS(0), cfg.serverType)

	stopped := make(chan struct{})
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
		<-sig
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		close(stopped)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("baseline: %v", err)
	}
	<-stopped
	s.close()
}
