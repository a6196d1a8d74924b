// Command solverd solves puzzles: one-shot commands (solve, verify, bfs,
// scramble) and the JetStream consumer daemon (run).
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
