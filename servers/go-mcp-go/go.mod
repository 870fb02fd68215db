module mcpbench/servers/go-mcp-go

go 1.26.0

require (
	github.com/mark3labs/mcp-go v1.2.1
	mcpbench/contract v0.0.0-00010101000000-000000000000
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/redis/go-redis/v9 v9.23.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

// The contract code every Go server shares: the directory beside this one (servers/common-go), read
// from the checkout, so the build needs nothing more from the network; the Dockerfile copies it in.
replace mcpbench/contract => ../common-go
