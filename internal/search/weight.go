package search

// Weight is the heuristic weight of weighted IDA*, in sixteenths: a node
// at depth g with bound h costs g + ⌊h·w/16⌋. Unweighted (16/16) is plain
// IDA*, the only weight whose answers are proved optimal; heavier weights
// trade length for far fewer nodes. One unit for every solver, so that a
// fast mode's weight means the same everywhere (1.5× is 24).
type Weight int

// WeightDen is the denominator of a Weight.
const WeightDen = 16

// Unweighted is the weight of plain, optimal IDA*.
const Unweighted Weight = WeightDen

// Scale is ⌊h·w/16⌋.
func (w Weight) Scale(h int) int { return h * int(w) / WeightDen }
