package main

// examples are the Examples: sections of `solverd --help` and its
// commands, by command path; cmdkit.SetExamples fills them in, so each command's
// own file stays about what it does. TestEveryCommandHasExamples keeps the
// list complete.
var examples = map[string]string{
	"solverd": `  solverd solve -p 8 "8 6 7/2 5 4/3 0 1"
  solverd scramble -p 15 --count 100 --seed 1 | solverd solve -p 15 --mode fast
  solverd tables build 15-pdb-663
  solverd run --workers 4`,
	"solverd bfs": `  solverd bfs -p 8
  solverd bfs -p sliding:2x4 | results exact -p sliding:2x4`,
	"solverd run": `  solverd run
  TESSERA_NATS_URL=nats://nats:4222 solverd run --workers 4 --quick-workers 1
  solverd run --timeout 5m --budget-nodes 1000000000   # this host's caps on every job`,
	"solverd scramble": `  solverd scramble -p 15 --count 3 --seed 1
  solverd scramble -p loopover:5x5 --count 10 --walk 20   # random walks of 20 moves`,
	"solverd verify": `  solverd verify -p 8 "1 2 3/4 5 6/7 0 8" "L"`,
	"solverd queue": `  solverd queue status
  solverd queue apply --nats-max-deliver 5 --nats-ack-wait 1m`,
	"solverd queue apply": `  solverd queue apply
  solverd queue apply --nats-max-deliver 5 --nats-ack-wait 1m
  solverd queue apply --nats-url nats://n1:4222,nats://n2:4222,nats://n3:4222 --nats-replicas 3`,
	"solverd queue status": `  solverd queue status
  solverd queue status --json | jq '.streams[] | {name, replicas, leader}'
  solverd queue status --check --monitor-url http://n1:8222,http://n2:8222,http://n3:8222   # cron: exit 1 names each problem`,
	"solverd workers": `  solverd workers
  solverd workers --json | jq '.[] | {host, pid, role, jobs: (.jobs | length), nodes_per_second}'`,
	"solverd config": `  solverd config show`,
	"solverd config show": `  solverd config show                      # every key: value and source (default, file, env, flag)
  solverd config show --json | jq '.keys[] | select(.source != "default")'`,
	"solverd tables": `  solverd tables build 15-pdb-78
  solverd tables list
  solverd tables push --tables-bucket tessera-tables`,
	"solverd tables build": `  solverd tables build 15-pdb-663
  solverd tables build --all`,
	"solverd tables list":   `  solverd tables list`,
	"solverd tables verify": `  solverd tables verify`,
	"solverd tables pull": `  solverd tables pull                # every table in the bucket missing here
  solverd tables pull 15-pdb-78`,
	"solverd tables push": `  solverd tables push                # every table of the tables directory
  solverd tables push 15-pdb-78`,
}
