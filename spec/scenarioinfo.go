package spec

// ScenarioInfo is what a Spec keeps of the scenario it was made from
// (package spec/scenario, whose Scenario embeds it, sets Spec.Scenario):
// the goals the checker reports as reached or not, the invariants the
// scenario leaves to another one, and the name, doc and seed report the
// transcripts and their pages print. The engine reads only Goals and
// CheckedElsewhere; the scenario machinery itself (files, variants,
// expected verdicts) is spec/scenario's, which imports spec.
type ScenarioInfo struct {
	Name string
	// Doc says in one line what the scenario reproduces.
	Doc string
	// Report names the seed report and the TensorRT-LLM issue.
	Report string
	Goals  []GoalDef
	// CheckedElsewhere maps invariants this scenario does not check to the
	// scenario that reports them: a finding of its own that would come
	// first in every variant and hide the one this scenario is about.
	CheckedElsewhere map[string]string
}
