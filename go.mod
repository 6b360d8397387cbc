module github.com/stet-dev/stet

go 1.26.0

require (
	github.com/aymanbagabas/go-udiff v0.4.1 // indirect
	github.com/bluekeyes/go-gitdiff v0.9.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
