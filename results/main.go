// Command results writes solver results to PostgreSQL and reads them back:
//
//	results [run]            migrate, then consume TESSERA_RESULTS into PostgreSQL
//	results migrate          apply the embedded schema migrations
//	results dist             histogram of optimal lengths (--batch ID | --puzzle P)
//	results export           a batch's rows as csv, jsonl or parquet (--batch ID --format F)
//	results batches          recent batches and their progress
//	results serve            HTTP: /healthz, /metrics, JSON API, status page (--http-addr)
//
// The main is wiring only: the loop is internal/ingest, the SQL is
// internal/store, the JetStream side is internal/queue, the HTTP handlers
// are internal/httpapi.
package main

import (
	"context"
	"os"

	"github.com/tessera-solver/tessera/internal/cmdkit"
)

func main() {
	ctx, stop := cmdkit.OnSignal(context.Background())
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
