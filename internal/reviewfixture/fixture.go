package reviewfixture

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stet-dev/stet"
)

// Files is the workspace before any agent ran.
var Files = map[string]string{
	"README.md":    "# Demo\n\nA small demo project.\n",
	"notes.txt":    "the user's notes\nkeep these\n",
	"old.txt":      "obsolete\n",
	"config.yaml":  "port: 8080\ndebug: false\n",
	"data.txt":     "alpha\nbeta\n",
	"src/app.go":   "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
	"src/util.go":  "package main\n\nfunc helper() int { return 1 }\n",
	".git/config":  "[core]\n",
	"big.txt":      strings.Repeat("line\n", 40),
	"docs/keep.md": "kept\n",
}

// HumanREADME is what a person writes into README.md after agent-b's edits.
const HumanREADME = "# Demo\n\nEdited by a person in an editor.\n"

// Sessions are the fixture's session ids, oldest first.
var Sessions = []string{"agent-a", "agent-b", "agent-c"}

// Write puts Files under root.
func Write(root string) error {
	for name, content := range Files {
		if err := put(root, name, content); err != nil {
			return err
		}
	}
	return nil
}

// put writes a file as a person (or a shell command) would, around stet.
func put(root, name, content string) error {
	p := filepath.Join(root, filepath.FromSlash(name))
	// The fixture plays the person at the keyboard: not a workspace path of stet's.
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	// The fixture plays the person at the keyboard: not a workspace path of stet's.
	return os.WriteFile(p, []byte(content), 0o644)
}

func ptr(s string) *string { return &s }

// Run plays the three sessions on ws, whose first root is root. It returns
// an error when a step that must land is refused, or one that must be
// refused lands.
func Run(ctx context.Context, ws *stet.Workspace, root string) error {
	sess := func(id string) (*stet.Session, error) { return ws.Session(id) }
	ok := func(_ any, err error) error { return err }
	refused := func(kind string) func(any, error) error {
		return func(_ any, err error) error {
			r, isRef := stet.AsRefusal(err)
			if !isRef {
				return fmt.Errorf("want a %s refusal, got %v", kind, err)
			}
			if r.Kind != kind {
				return fmt.Errorf("want a %s refusal, got %s: %s", kind, r.Kind, r.Message)
			}
			return nil
		}
	}
	a, err := sess("agent-a")
	if err != nil {
		return err
	}
	b, err := sess("agent-b")
	if err != nil {
		return err
	}
	c, err := sess("agent-c")
	if err != nil {
		return err
	}
	steps := []func() error{
		func() error { return a.Turn("Add a greeting to the app", "notes.txt") },
		func() error { return ok(a.Do(ctx, stet.ListArgs{Path: "."})) },
		func() error { return ok(a.Do(ctx, stet.ListArgs{Path: "src"})) },
		func() error { return ok(a.Do(ctx, stet.ReadArgs{Path: "src/app.go"})) },
		func() error {
			return ok(a.Do(ctx, stet.EditArgs{Path: "src/app.go", OldString: ptr("println(\"hi\")"), NewString: ptr("println(\"hello, world\")\n\tgreet()")}))
		},
		func() error {
			return ok(a.Do(ctx, stet.WriteArgs{Path: "src/greet.go", Content: "package main\n\nfunc greet() {\n\tprintln(\"greetings\")\n}\n"}))
		},
		func() error { return ok(a.Do(ctx, stet.ReadArgs{Path: "notes.txt"})) },
		func() error {
			return refused(stet.KindInput)(a.Do(ctx, stet.WriteArgs{Path: "notes.txt", Content: "regenerated\n", Overwrite: true}))
		},
		func() error {
			return refused(stet.KindOutside)(a.Do(ctx, stet.WriteArgs{Path: "../outside.txt", Content: "x\n"}))
		},
		func() error { return a.Turn("Tidy up the old files") },
		func() error { return ok(a.Do(ctx, stet.ReadArgs{Path: "old.txt"})) },
		func() error { return ok(a.Do(ctx, stet.DeleteArgs{Path: "old.txt"})) },
		func() error { return ok(a.Do(ctx, stet.ReadArgs{Path: "src/util.go"})) },
		func() error { return ok(a.Do(ctx, stet.MoveArgs{From: "src/util.go", To: "src/helpers.go"})) },

		func() error { return b.Turn("Improve the README") },
		func() error { return ok(b.Do(ctx, stet.ReadArgs{Path: "README.md"})) },
		func() error {
			return ok(b.Do(ctx, stet.EditArgs{Path: "README.md", OldString: ptr("A small demo project."), NewString: ptr("A small demo project.\n\nRun it with go run ./src.")}))
		},
		func() error {
			return ok(b.Do(ctx, stet.EditArgs{Path: "README.md", OldString: ptr("# Demo"), NewString: ptr("# Demo project")}))
		},
		func() error {
			return refused(stet.KindProtected)(b.Do(ctx, stet.WriteArgs{Path: ".git/config", Content: "[core]\nbare = true\n", Overwrite: true}))
		},
		func() error { return ok(b.Do(ctx, stet.ReadArgs{Path: "big.txt", Offset: 1, Limit: 5})) },
		func() error {
			return refused(stet.KindNotSeen)(b.Do(ctx, stet.WriteArgs{Path: "big.txt", Content: "short\n", Overwrite: true}))
		},
		func() error { return put(root, "README.md", HumanREADME) },

		func() error { return c.Turn("Turn on debug and add a line to data.txt") },
		func() error { return ok(c.Do(ctx, stet.ReadArgs{Path: "config.yaml"})) },
		func() error { return ok(c.Do(ctx, stet.ListArgs{Path: "docs"})) },
		func() error {
			return ok(c.Do(ctx, stet.EditArgs{Path: "config.yaml", OldString: ptr("debug: false"), NewString: ptr("debug: true")}))
		},
		func() error {
			return ok(c.Do(ctx, stet.WriteArgs{Path: "docs/new.md", Content: "# New\n\nwritten by agent-c\n"}))
		},
		func() error { return ok(c.Do(ctx, stet.ReadArgs{Path: "data.txt"})) },
		func() error {
			return put(root, "data.txt", "alpha\nbeta\ngamma (a person's line)\n")
		},
		func() error {
			return refused(stet.KindChanged)(c.Do(ctx, stet.EditArgs{Path: "data.txt", OldString: ptr("beta"), NewString: ptr("BETA")}))
		},
	}
	for i, st := range steps {
		if err := st(); err != nil {
			return fmt.Errorf("fixture step %d: %w", i+1, err)
		}
	}
	return nil
}
