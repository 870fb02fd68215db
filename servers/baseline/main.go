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
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"mcpbench/contract"
)

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout (newline-delimited JSON-RPC) instead of HTTP")
	flag.Parse()
	log.SetFlags(0) // log writes to stderr: in stdio mode stdout carries JSON-RPC only
	cfg := contract.LoadConfig("baseline")
	s, err := newServer(cfg)
	if err != nil {
		log.Fatalf("baseline: %v", err)
	}
	if *stdio {
		log.Printf("baseline: serving stdio (GOMAXPROCS %d, server_type %s)", runtime.GOMAXPROCS(0), cfg.ServerType)
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
	mux.Handle("/mcp", contract.CheckHosts(s, cfg.AllowHosts))
	srv := &http.Server{
		Addr:              net.JoinHostPort(cfg.Host, cfg.Port),
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second, // load generators keep connections alive for the whole run
		MaxHeaderBytes:    64 << 10,
	}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatalf("baseline: %v", err)
	}
	log.Printf("baseline: listening on %s (GOMAXPROCS %d, server_type %s)", ln.Addr(), runtime.GOMAXPROCS(0), cfg.ServerType)

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
