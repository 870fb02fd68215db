package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// backends holds the two pooled clients every tool call uses.
type backends struct {
	rdb        *redis.Client
	http       *http.Client
	apiURL     string
	serverType string
}

func newBackends(cfg config) (*backends, error) {
	opt, err := redis.ParseURL(cfg.redisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	// A tool call holds at most one Redis connection at a time (checkout pipelines its three
	// writes on one) and a command takes well under a millisecond, so 16 per core covers what a
	// core can keep in flight; the pool grows past it rather than blocking if a burst needs more.
	opt.PoolSize = 16 * cfg.cores
	opt.MinIdleConns = 4 * cfg.cores // dialled at start-up, so the first calls pay no connect
	// Replies here are a few hundred bytes: the 32 KiB default buffers would only cost memory.
	opt.ReadBufferSize, opt.WriteBufferSize = 8<<10, 8<<10
	// Three tiny commands need no dedicated pipeline pool with 128 KiB buffers.
	opt.PipelinePoolSize = -1
	// Plain Redis 7: skip the CLIENT SETINFO and maintenance-notification handshakes.
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	// The zero Transport keeps 2 idle connections per host; HTTP/1.1 carries one request per
	// connection, so every in-flight tool call needs its own or connections churn through TIME_WAIT.
	perHost := 64 * cfg.cores
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          perHost,
		MaxIdleConnsPerHost:   perHost,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		DisableCompression:    true, // small JSON on a local link: gzip would only burn CPU on both ends
		// Proxy left nil on purpose: the API service is always reached directly.
	}

	return &backends{
		rdb:        redis.NewClient(opt),
		http:       &http.Client{Transport: transport, Timeout: 10 * time.Second},
		apiURL:     cfg.apiURL,
		serverType: cfg.serverType,
	}, nil
}

func (b *backends) close() {
	b.rdb.Close()
	b.http.CloseIdleConnections()
}

// getJSON and postJSON call the product API and decode its JSON reply into out.
func (b *backends) getJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.apiURL+path, nil)
	if err != nil {
		return err
	}
	return b.do(req, out)
}

func (b *backends) postJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.apiURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return b.do(req, out)
}

func (b *backends) do(req *http.Request, out any) error {
	resp, err := b.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	// Drain what the decoder left (trailing newline) so the connection goes back to the pool.
	defer io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", req.Method, req.URL.Path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
