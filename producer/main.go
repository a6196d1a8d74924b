// Command producer enqueues a batch of puzzle states on NATS JetStream —
// from a file, at random or by enumerating a small puzzle — and can follow
// it to completion (--wait) or run the whole pipeline in-process (--local).
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
