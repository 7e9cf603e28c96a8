module github.com/kvcheck/kvcheck

go 1.26

require (
	github.com/anishathalye/porcupine v1.3.1
	github.com/cockroachdb/datadriven v1.0.3
	github.com/google/go-cmp v0.7.0
	github.com/pmezard/go-difflib v1.0.0
	github.com/spf13/pflag v1.1.0
	pgregory.net/rapid v1.3.0
)

require gopkg.in/yaml.v3 v3.0.1 // indirect
