package main

import (
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/nowhook/nowhook/cmd/nowhook/internal/agent"
)

// The scenarios take what follows from the number and order of the
// agents from agent.All, so that a new agent, its file and one line in
// All, changes none of them.

// setAgentsEnv gives every scenario, from agent.All:
//   - $AGENT_NAMES: the agents' --agents names in All's order, joined by
//     ", ", as setup and remove list the known agents;
//   - $QUESTION_AFTER_AGENTS: the number of the wizard's first question
//     after "Which agents does this repository use?", which asks one
//     yes/no question per agent in accessible mode.
func setAgentsEnv(env *testscript.Env) {
	var names []string
	for _, a := range agent.All {
		names = append(names, a.Name)
	}
	env.Setenv("AGENT_NAMES", strings.Join(names, ", "))
	env.Setenv("QUESTION_AFTER_AGENTS", strconv.Itoa(len(agent.All)+1))
}

// cmdAnswers: answers FILE... rewrites each answer file of the accessible
// wizard in place, replacing each line
//
//	@agents [ANSWER] [NAME=ANSWER]...
//
// by the answers to "Which agents does this repository use?": one line per
// agent in agent.All's order, NAME=ANSWER for the agent named NAME and the
// bare ANSWER (an empty line, the default, when there is none) for every
// other. Every other line stays as it is.
func cmdAnswers(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: answers FILE...")
	}
	for _, file := range args {
		b, err := os.ReadFile(ts.MkAbs(file))
		ts.Check(err)
		var out []string
		for i, line := range strings.SplitAfter(string(b), "\n") {
			words := strings.Fields(line)
			if len(words) == 0 || words[0] != "@agents" {
				out = append(out, line)
				continue
			}
			rest, named := "", map[string]string{}
			for _, w := range words[1:] {
				name, answer, ok := strings.Cut(w, "=")
				if _, known := agent.Lookup(name); ok && !known {
					ts.Fatalf("answers: %s:%d: no agent is named %q (known: %s)", file, i+1, name, strings.Join(agent.Names(), ", "))
				}
				if ok {
					named[name] = answer
				} else {
					rest = w
				}
			}
			for _, a := range agent.All {
				answer, ok := named[a.Name]
				if !ok {
					answer = rest
				}
				out = append(out, answer+"\n")
			}
		}
		ts.Check(os.WriteFile(ts.MkAbs(file), []byte(strings.Join(out, "")), 0o644))
	}
}
