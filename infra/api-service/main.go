// Command api-service is the product API of the mcpbench workload (docs/workload.md §1): an in-memory
// catalog of 100,000 products, a price-range search, product look-up and cart arithmetic. It is a
// dependency of every benchmarked MCP server, so it is built to never be the bottleneck: everything
// is computed at start-up and each product's JSON is serialized once. `api-service calibrate-stdio` is the
// canned MCP server of calibrate.go over stdio instead.
package main

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "calibrate-stdio" {
		if err := newHandler().serveStdio(os.Stdin, os.Stdout); err != nil {
			log.Fatalf("api-service calibrate-stdio: %v", err)
		}
		return
	}
	host := os.Getenv("HOST") // loopback unless the runtime says otherwise (a container: 0.0.0.0)
	if host == "" {
		host = "127.0.0.1"
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8100"
	}
	h := newHandler()
	srv := &http.Server{
		Addr:              net.JoinHostPort(host, port),
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       120 * time.Second, // load generators keep connections alive for minutes
		MaxHeaderBytes:    16 << 10,
		// Clients closing keep-alive connections mid-run are normal under load: not worth a log line.
		ErrorLog: log.New(io.Discard, "", 0),
	}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		log.Fatalf("api-service: %v", err)
	}
	log.Printf("api-service: %d products, listening on %s", len(h.cat.products), ln.Addr())

	done := make(chan struct{})
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
		<-sig
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		close(done)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		log.Fatalf("api-service: %v", err)
	}
	<-done
}
