package contract

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

// Backends holds the two pooled clients every tool call uses.
type Backends struct {
	Redis      *redis.Client
	HTTP       *http.Client
	APIURL     string
	ServerType string
}

func NewBackends(cfg Config) (*Backends, error) {
	rdb, err := NewRedis(cfg)
	if err != nil {
		return nil, err
	}
	return &Backends{Redis: rdb, HTTP: NewHTTPClient(cfg), APIURL: cfg.APIURL, ServerType: cfg.ServerType}, nil
}

// NewRedis is the Redis client every Go server uses, its pool sized from the cores granted.
func NewRedis(cfg Config) (*redis.Client, error) {
	opt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	// A tool call holds at most one Redis connection at a time (checkout pipelines its three
	// writes on one) and a command takes well under a millisecond, so 16 per core covers what a
	// core can keep in flight; the pool grows past it rather than blocking if a burst needs more.
	opt.PoolSize = 16 * cfg.Cores
	opt.MinIdleConns = 4 * cfg.Cores // dialled at start-up, so the first calls pay no connect
	// Replies here are a few hundred bytes: the 32 KiB default buffers would only cost memory.
	opt.ReadBufferSize, opt.WriteBufferSize = 8<<10, 8<<10
	// Three tiny commands need no dedicated pipeline pool with 128 KiB buffers.
	opt.PipelinePoolSize = -1
	// Plain Redis 7: skip the CLIENT SETINFO and maintenance-notification handshakes.
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return redis.NewClient(opt), nil
}

// NewHTTPClient is the product API's client: keep-alive connections sized from the cores granted.
func NewHTTPClient(cfg Config) *http.Client {
	// The zero Transport keeps 2 idle connections per host; HTTP/1.1 carries one request per
	// connection, so every in-flight tool call needs its own or connections churn through TIME_WAIT.
	perHost := 64 * cfg.Cores
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          perHost,
		MaxIdleConnsPerHost:   perHost,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 10 * time.Second,
		DisableCompression:    true, // small JSON on a local link: gzip would only burn CPU on both ends
		// Proxy left nil on purpose: the API service is always reached directly.
	}
	return &http.Client{Transport: transport, Timeout: 10 * time.Second}
}

func (b *Backends) Close() {
	_ = b.Redis.Close()
	b.HTTP.CloseIdleConnections()
}

// getJSON and postJSON call the product API and decode its JSON reply into out.
func (b *Backends) getJSON(ctx context.Context, path string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.APIURL+path, nil)
	if err != nil {
		return err
	}
	return b.do(req, out)
}

func (b *Backends) postJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, b.APIURL+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return b.do(req, out)
}

func (b *Backends) do(req *http.Request, out any) error {
	resp, err := b.HTTP.Do(req)
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
