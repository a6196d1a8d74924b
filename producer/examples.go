package main

// examples are the Examples: sections of `producer --help` and its
// commands, by command path; cmdkit.SetExamples fills them in.
// TestEveryCommandHasExamples keeps the list complete.
var examples = map[string]string{
	"producer": `  producer --puzzle 8 --random 20000 --seed 1 --local --wait   # the whole pipeline in this process
  producer --puzzle 15 --file corpus.txt --wait
  solverd scramble -p 15 --count 100 | producer --puzzle 15 --file -
  producer --puzzle sliding:2x4 --enumerate
  producer --puzzle 8 --target-length 28 --count 3 --local`,
	"producer resume": `  results batches            # "stalled": its producer stopped before enqueuing every state
  producer resume 7 --wait`,
}
