module github.com/fencelab/fencelab/live

go 1.26.0

require (
	github.com/fencelab/fencelab v0.0.0-00010101000000-000000000000
	github.com/go-redsync/redsync/v4 v4.18.1
	github.com/go-sql-driver/mysql v1.10.1
	github.com/redis/go-redis/v9 v9.23.0
	github.com/stretchr/testify v1.12.1
)

require (
	filippo.io/edwards25519 v1.2.0 // indirect
	github.com/anishathalye/porcupine v1.3.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

require github.com/go-zookeeper/zk v1.0.4

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

// The live module is the main module's neighbour, not a published
// dependency: it always builds against the checkout beside it.
replace github.com/fencelab/fencelab => ../
