package spec

// export_test.go lends the external tests of package spec_test (those that
// need spec/space, which imports spec) the checks of spec's own tests.

// CheckPartialOrderAgrees is checkPartialOrderAgrees (por_test.go).
var CheckPartialOrderAgrees = checkPartialOrderAgrees

// CheckSpecRules is checkSpecRules (por_test.go).
var CheckSpecRules = checkSpecRules

// RandomValidConfig is randomConfig (robust_test.go).
var RandomValidConfig = randomConfig

// CheckLivelockReplays is checkLivelockReplays (liveness_test.go).
var CheckLivelockReplays = checkLivelockReplays
