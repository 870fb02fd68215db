module mcpbench/infra/api-service

go 1.24
