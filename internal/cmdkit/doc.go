// Package cmdkit is the one way the three mains and `producer --local`
// start, run and stop: the exit-code contract and its usage error, the
// NATS connection with the config's auth and the streams' settings, the
// start-up retry that gives up on refused settings, the results writer's
// wiring, and a group of loops stopped together (River's startstop, in
// small). The solver workers' wiring is in cmdkit/solverkit, apart, so
// that the results binary links no solver. `--local` runs exactly what
// `solverd run` and `results run` run because all three build their
// loops here.
package cmdkit
