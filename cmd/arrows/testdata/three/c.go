package three

// C's method uses B (b.go): one arrow.
type C struct{ n int }

// M adds the field n (declared here: no arrow) to B.
func (c C) M() int { return c.n + B() }
