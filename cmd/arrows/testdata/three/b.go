package three

// B uses nothing of the package.
func B() int { local := 1; return local }
