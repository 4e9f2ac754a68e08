module github.com/fencelab/fencelab/live

go 1.26.0

require github.com/go-zookeeper/zk v1.0.4

// The live module is the main module's neighbour, not a published
// dependency: it always builds against the checkout beside it.
replace github.com/fencelab/fencelab => ../
