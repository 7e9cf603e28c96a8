package three

// A uses B (b.go) and C's method (c.go): two arrows.
func A() int { return B() + C{}.M() }
