package contract

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCheckHosts(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	guarded := CheckHosts(ok, ParseAllowedHosts("localhost,127.0.0.1,[::1],Go"))
	open := CheckHosts(ok, ParseAllowedHosts("*"))
	for _, c := range []struct {
		method, host, origin string
		want                 int
	}{
		{"POST", "localhost:8080", "", 200},
		{"POST", "127.0.0.1:8080", "http://127.0.0.1:8080", 200},
		{"POST", "[::1]:8080", "http://[::1]:9000", 200},
		{"POST", "GO:8080", "", 200},
		{"POST", "localhost", "", 200},
		{"POST", "evil.example:8080", "", 403},
		{"POST", "localhost:8080", "http://evil.example", 403},
		{"GET", "localhost:8080", "http://evil.example:8080", 403},
		{"DELETE", "localhost:8080", "null", 403},
		{"POST", "", "", 403},
	} {
		req := httptest.NewRequest(c.method, "/mcp", nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		rec := httptest.NewRecorder()
		guarded.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s Host %q Origin %q: %d, want %d", c.method, c.host, c.origin, rec.Code, c.want)
		}
		rec = httptest.NewRecorder()
		if open.ServeHTTP(rec, req); rec.Code != 200 {
			t.Errorf("ALLOWED_HOSTS=*: %s Host %q Origin %q: %d", c.method, c.host, c.origin, rec.Code)
		}
	}
}
