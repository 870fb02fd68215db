module mcpbench/stdio-driver

go 1.26
