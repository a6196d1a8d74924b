// Package faults holds the fault suite: the real binaries
// (producer, solverd run, results run) against a real nats-server process
// with file storage and a private PostgreSQL, while solvers and the writer
// are killed with -9, NATS and PostgreSQL are stopped and restarted, and
// poison, duplicate, oversized and starving input arrives. After each
// scenario one checker proves that every state ended as exactly one row (or
// a dead letter naming its reason), that the batch counters and distance
// counts equal the rows, and that nothing is left in the streams.
//
// The package is its tests. `make test-faults` runs the whole suite
// (TESSERA_FAULTS=full) and prints the figures kept in docs/RELIABILITY.md;
// plain `go test` runs a subset small enough for CI, and -short skips it.
package faults
