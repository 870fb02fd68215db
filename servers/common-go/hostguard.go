// The DNS-rebinding guard for the contract's ALLOWED_HOSTS list (docs/server-contract.md). The SDKs' own
// guards stay on where there is one, but they cover loopback connections only and take no list; the
// no-SDK baseline has none.

package contract

import (
	"net/http"
	"net/url"
	"strings"
)

// ParseAllowedHosts reads ALLOWED_HOSTS: comma-separated host names, no ports, IPv6 in brackets.
// "*" (set only to measure what the check costs) gives nil: no check.
func ParseAllowedHosts(list string) map[string]bool {
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

// CheckHosts wraps a handler with the guard: 403 on every method for a Host, or an Origin if one
// is sent, whose host is not listed; no Origin (non-browser clients) passes. Not
// http.CrossOriginProtection: it lets GET through and compares Origin with Host, not with a list.
func CheckHosts(next http.Handler, allowed map[string]bool) http.Handler {
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
