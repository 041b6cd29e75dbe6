package e2e

import (
	"sort"
	"testing"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/shapes"
)

// TestShapesRegressionsTable checks the fixed scenarios without a client:
// every client named is one of the differential test's, every cause
// names its seeds once, in order, the seed the sample runs (if any) is
// one of them, and every shape is valid.
func TestShapesRegressionsTable(t *testing.T) {
	t.Parallel()
	clients := map[string]bool{}
	for _, c := range []*shapesClient{shapesClaude, shapesCodex, shapesQwen, shapesOpencode, shapesGemini, shapesDroid, shapesCline, shapesContinue} {
		clients[c.agent] = true
	}
	for client, regs := range shapesRegressions {
		if !clients[client] {
			t.Errorf("shapesRegressions[%q]: no such client in the differential test", client)
		}
		causes := map[string]bool{}
		for _, reg := range regs {
			if reg.cause == "" || causes[reg.cause] {
				t.Errorf("%s: cause %q empty or twice", client, reg.cause)
			}
			causes[reg.cause] = true
			if len(reg.seeds) == 0 {
				t.Errorf("%s: %q: no seeds", client, reg.cause)
			}
			if !sort.SliceIsSorted(reg.seeds, func(i, j int) bool { return reg.seeds[i] < reg.seeds[j] }) {
				t.Errorf("%s: %q: seeds out of order: %v", client, reg.cause, reg.seeds)
			}
			in := false
			for i, seed := range reg.seeds {
				if i > 0 && seed == reg.seeds[i-1] {
					t.Errorf("%s: %q: seed %d twice", client, reg.cause, seed)
				}
				in = in || seed == reg.ci
				if err := shapes.Generate(seed).Check(); err != nil {
					t.Errorf("%s: %q: seed %d: %v", client, reg.cause, seed, err)
				}
			}
			if !in && reg.ci != 0 {
				t.Errorf("%s: %q: the sample's seed %d is not one of %v", client, reg.cause, reg.ci, reg.seeds)
			}
		}
	}
}
