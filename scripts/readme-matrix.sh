#!/bin/sh
# Writes the agent table, agent.Matrix() (cmd/nowhook/internal/agent), into
# README.md between its agent-matrix lines. TestREADMEMatrix does the
# writing when given -write-readme, and fails without it when README.md is
# stale: only code under cmd/nowhook may import the agent table, so the
# writer lives in that package's tests.
set -eu

main() {
	cd "$(dirname "$0")/.."
	go test ./cmd/nowhook -run '^TestREADMEMatrix$' -count=1 -write-readme
}

main "$@"
