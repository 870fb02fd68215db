// Package contract is the Go servers' share of the server contract (docs/server-contract.md): the
// environment they read, the Redis and HTTP clients, the three workload tools' logic, the host guard
// and the dimension tools' schemas and replies. Each server keeps what is its SDK's own: how the tools
// are registered and how MCP is served.
package contract

import (
	"log"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Config is the contract's environment.
type Config struct {
	Host       string
	Port       string
	RedisURL   string
	APIURL     string
	ServerType string
	Cores      int // CPU cores granted; pools are sized from it
	// ALLOWED_HOSTS: the host names a request's Host and Origin may carry; nil: no check.
	AllowHosts map[string]bool
	// EXTRA_TOOLS / DIMENSION_TOOLS: the dimension tools (dimension.go), off by default.
	ExtraTools     int
	DimensionTools bool
	// SSE_REPLIES=1: replies are SSE streams, so stream_progress's notifications ride on them; a
	// server whose SDK streams anyway ignores it.
	SSEReplies bool
	// SESSIONS=1: the SDK's stateful transport, issuing Mcp-Session-Id and keeping each session until DELETE
	// or its own timeout (the abandoned dimension, docs/server-contract.md); unset, stateless as the lineup runs.
	Sessions bool
}

// LoadConfig reads the environment; serverType is SERVER_TYPE's default. It sets GOMAXPROCS from
// CPU_LIMIT unless GOMAXPROCS is set.
func LoadConfig(serverType string) Config {
	cfg := Config{
		Host:       Getenv("HOST", "127.0.0.1"), // loopback unless the runtime says otherwise (a container: 0.0.0.0)
		Port:       Getenv("PORT", "8080"),
		RedisURL:   Getenv("REDIS_URL", "redis://127.0.0.1:6379"),
		APIURL:     strings.TrimRight(Getenv("API_SERVICE_URL", "http://127.0.0.1:8100"), "/"),
		ServerType: Getenv("SERVER_TYPE", serverType),
		Cores:      runtime.GOMAXPROCS(0), // already cgroup-aware
		AllowHosts: ParseAllowedHosts(Getenv("ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")),

		ExtraTools:     extraToolsFromEnv(),
		DimensionTools: os.Getenv("DIMENSION_TOOLS") == "1",
		SSEReplies:     os.Getenv("SSE_REPLIES") == "1",
		Sessions:       os.Getenv("SESSIONS") == "1",
	}
	if limit, err := strconv.ParseFloat(strings.TrimSpace(os.Getenv("CPU_LIMIT")), 64); err == nil && limit > 0 && !math.IsInf(limit, 0) {
		cfg.Cores = max(1, int(math.Ceil(limit)))
		// Go 1.25+ reads the cgroup quota itself, but never goes below 2, misses quotas set on a parent
		// cgroup and sees nothing for a bare process; CPU_LIMIT is the grant the benchmark states, so it
		// wins. An explicit GOMAXPROCS in the environment still takes precedence.
		if os.Getenv("GOMAXPROCS") == "" {
			runtime.GOMAXPROCS(cfg.Cores)
		}
	}
	return cfg
}

// Getenv is os.Getenv with a fallback for unset or empty.
func Getenv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// extraToolsFromEnv reads EXTRA_TOOLS: unset, "" or "0" registers none.
func extraToolsFromEnv() int {
	v := strings.TrimSpace(os.Getenv("EXTRA_TOOLS"))
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 99999 {
		log.Fatalf("EXTRA_TOOLS=%q: want an integer from 0 to 99999", v)
	}
	return n
}
