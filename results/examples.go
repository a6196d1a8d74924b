package main

// examples are the Examples: sections of `results --help` and its
// commands, by command path; cmdkit.SetExamples fills them in, so each command's
// own file stays about what it does. TestEveryCommandHasExamples keeps the
// list complete.
var examples = map[string]string{
	"results": `  results                       # the writer: consume TESSERA_RESULTS until SIGTERM
  results dist --batch 3
  results export --batch 3 --format jsonl -o batch3.jsonl
  results serve                 # the API and status page on 127.0.0.1:8080`,
	"results run": `  results run
  TESSERA_DATABASE_URL=postgres://tessera@db/tessera TESSERA_NATS_URL=nats://nats:4222 results run`,
	"results migrate": `  results migrate`,
	"results dist": `  results dist --batch 3
  results dist --puzzle 15 --json
  results dist --batch 3 --svg lengths.svg`,
	"results export": `  results export --batch 3 > batch3.csv
  results export --puzzle 8 --length 31 --format jsonl
  results export --batch 3 --status budget_exceeded,failed`,
	"results batches": `  results batches
  results batches --limit 100 --json`,
	"results cancel":  `  results cancel --batch 3`,
	"results pause":   `  results pause --batch 3     # a bulk batch makes way for an urgent one`,
	"results unpause": `  results unpause --batch 3`,
	"results requeue": `  results requeue --batch 3 --timeout 10m
  results requeue --batch 3 --status cancelled --timeout 5m   # solve a cancelled batch after all`,
	"results dead": `  results dead --batch 3
  results dead --limit 20 --json`,
	"results exact": `  solverd bfs -p sliding:2x4 | results exact -p sliding:2x4`,
	"results serve": `  results serve
  TESSERA_RESULTS_HTTP_TOKEN=$(cat token) results serve --http-addr :8080`,
}
