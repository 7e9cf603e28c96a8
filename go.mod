module github.com/kvcheck/kvcheck

go 1.26
