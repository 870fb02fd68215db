module mcpbench/servers/baseline

go 1.26.0

require (
	github.com/redis/go-redis/v9 v9.23.0
	mcpbench/contract v0.0.0-00010101000000-000000000000
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

// The contract code every Go server shares: the directory beside this one (servers/common-go), read
// from the checkout, so the build needs nothing more from the network; the Dockerfile copies it in.
replace mcpbench/contract => ../common-go
