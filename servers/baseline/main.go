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
	"net/url"
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
	}
}

// parseAllowedHosts reads ALLOWED_HOSTS: comma-separated host names, no ports, IPv6 in brackets.
// "*" (set only to measure what the check costs) gives nil: no check.
func parseAllowedHosts(list string) map[string]bool {
	if list == "*" {
		return nil
	}
	hosts := map[string]bool{}
	for h := range strings.SplitSeq(list, ",") {
		if h = strings.ToLower(strings.Trim(strings.TrimSpace(h), "[]")); h != "" {
			hosts[h] = true
		}
	}
	return hosts
}

// checkHosts is the DNS-rebinding guard for the ALLOWED_HOSTS list (no SDK here to do it).
// 403 on every method for a Host, or an Origin if one is sent, whose host is not listed;
// no Origin (non-browser clients) passes. Not http.CrossOriginProtection: it lets GET
// through and compares Origin with Host instead of with a list.
func checkHosts(next http.Handler, allowed map[string]bool) http.Handler {
	if allowed == nil { // ALLOWED_HOSTS=*
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowed[hostname(r.Host)] {
			http.Error(w, "Forbidden: Host not allowed", http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" {
			if u, err := url.Parse(origin); err != nil || !allowed[hostname(u.Host)] {
				http.Error(w, "Forbidden: Origin not allowed", http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hostname strips the port and IPv6 brackets and lower-cases: "[::1]:8080" -> "::1".
func hostname(hostport string) string {
	return strings.ToLower((&url.URL{Host: hostport}).Hostname())
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
