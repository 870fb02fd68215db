module mcpbench/load-driver

go 1.26
