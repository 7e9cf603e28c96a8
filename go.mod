module github.com/kvcheck/kvcheck

go 1.26

require github.com/spf13/pflag v1.1.0

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	github.com/cockroachdb/datadriven v1.0.3 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	pgregory.net/rapid v1.3.0 // indirect
)
