package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/stet-dev/stet"
)

// cliCase is one CLI command timed from process start to exit.
type cliCase struct {
	Name    string    `json:"name"`
	Command string    `json:"command"`
	Big     bool      `json:"big_state"` // the state directory holds other sessions' records
	Samples []float64 `json:"samples_ms"`
	Err     string    `json:"error,omitempty"`
}

// cliRun is the CLI latency of the run.
type cliRun struct {
	Records int        `json:"records"` // lines of the big state's journal before the timed calls
	Cases   []*cliCase `json:"cases"`
}

// cliBench times `stet read` of a 4 KiB file and `stet edit` of a 1 MiB
// file, each with a fresh state directory per call and with one shared
// state directory whose journal holds about records lines of other sessions.
// Each call runs in a session of its own, so only the journal's size
// differs between the two.
type cliBench struct {
	c      *config
	root   string
	big    string // the big state directory
	work   string
	devnul *os.File
}

func runCLI(ctx context.Context, c *config, records, warmup, n int) (*cliRun, error) {
	b := &cliBench{c: c, work: filepath.Join(c.work, "cli")}
	b.root = filepath.Join(b.work, "root")
	b.big = filepath.Join(b.work, "big.state")
	if err := writeFixture(filepath.Join(b.root, "read_4k.go"), fixture(4*kib, 0, "")); err != nil {
		return nil, err
	}
	if err := writeFixture(filepath.Join(b.root, "edit_1m.go"), fixture(mib, 0, tokenA)); err != nil {
		return nil, err
	}
	got, err := fillJournal(ctx, b.big, filepath.Join(b.work, "others"), records)
	if err != nil {
		return nil, fmt.Errorf("filling the journal: %w", err)
	}
	b.devnul, err = os.OpenFile(os.DevNull, os.O_WRONLY, 0) // not a workspace path: /dev/null
	if err != nil {
		return nil, err
	}
	defer b.devnul.Close()

	edit := fixture(mib, 0, tokenA)
	cases := []*cliCase{
		{Name: "read_4k", Command: "stet read read_4k.go"},
		{Name: "read_4k", Command: "stet read read_4k.go", Big: true},
		{Name: "edit_1m", Command: "stet edit --old-string X --new-string Y edit_1m.go"},
		{Name: "edit_1m", Command: "stet edit --old-string X --new-string Y edit_1m.go", Big: true},
	}
	call := 0
	for round := range warmup + n {
		for k := range cases {
			cs := cases[(k+round)%len(cases)]
			if cs.Err != "" {
				continue
			}
			call++
			state := b.big
			if !cs.Big {
				state = filepath.Join(b.work, fmt.Sprintf("fresh-%04d.state", call))
			}
			session := fmt.Sprintf("cli-%04d", call)
			var d time.Duration
			var err error
			if cs.Name == "read_4k" {
				d, err = b.exec(state, session, "read", "read_4k.go")
			} else {
				d, err = b.editOnce(state, session, &edit)
			}
			if err != nil {
				cs.Err = err.Error()
				continue
			}
			if round >= warmup {
				cs.Samples = append(cs.Samples, ms(d))
			}
		}
	}
	return &cliRun{Records: got, Cases: cases}, nil
}

// editOnce reads the token's neighbourhood untimed (the session must have
// seen what it edits), then times the edit and checks the file.
func (b *cliBench) editOnce(state, session string, cur *[]byte) (time.Duration, error) {
	line := tokenLine(mib)
	if _, err := b.exec(state, session, "read", "--offset", fmt.Sprint(line-1), "--limit", "3", "edit_1m.go"); err != nil {
		return 0, err
	}
	old, new := swapToken(*cur)
	d, err := b.exec(state, session, "edit", "--old-string", old, "--new-string", new, "edit_1m.go")
	if err != nil {
		return 0, err
	}
	want := fixture(mib, 0, new)
	*cur = want
	return d, checkFile(filepath.Join(b.root, "edit_1m.go"), want)
}

// exec runs stet with the global flags and args, output discarded, and
// times it from the start of the process to its exit. A failing call is
// run again to capture what it said.
func (b *cliBench) exec(state, session string, args ...string) (time.Duration, error) {
	argv := append([]string{"--root", b.root, "--state", state, "--session", session}, args...)
	cmd := exec.Command(b.c.stetBin, argv...)
	cmd.Dir, cmd.Env = b.root, b.c.env
	cmd.Stdout, cmd.Stderr = b.devnul, b.devnul
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		var out bytes.Buffer
		again := exec.Command(b.c.stetBin, argv...)
		again.Dir, again.Env = b.root, b.c.env
		again.Stdout, again.Stderr = &out, &out
		again.Run()
		return 0, fmt.Errorf("stet %s: %v: %s", strings.Join(args, " "), err, head(out.Bytes()))
	}
	return d, nil
}

// fillJournal gives the state directory a journal of at least records
// lines from other sessions, through the facade in this process: sessions
// that each read a few files of their own workspace and edit one.
func fillJournal(ctx context.Context, state, root string, records int) (int, error) {
	const files = 20
	for i := range files {
		if err := writeFixture(filepath.Join(root, fmt.Sprintf("f%02d.go", i)), fixture(4*kib, 0, tokenA)); err != nil {
			return 0, err
		}
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		return 0, err
	}
	defer ws.Close()
	count := func() (int, error) {
		b, err := readFile(filepath.Join(state, "journal.jsonl"))
		return bytes.Count(b, []byte("\n")), err
	}
	for n := 0; ; n++ {
		if n%50 == 0 {
			got, err := count()
			if err != nil && n > 0 {
				return 0, err
			}
			if got >= records {
				return got, nil
			}
		}
		s, err := ws.Session(fmt.Sprintf("other-%05d", n))
		if err != nil {
			return 0, err
		}
		for k := range 8 {
			if _, err := s.Read(ctx, stet.ReadArgs{Path: fmt.Sprintf("f%02d.go", (n+k)%files)}); err != nil {
				return 0, err
			}
		}
		rel := fmt.Sprintf("f%02d.go", n%files)
		cur, err := readFile(filepath.Join(root, rel))
		if err != nil {
			return 0, err
		}
		old, new := swapToken(cur)
		if _, err := s.Edit(ctx, stet.EditArgs{Path: rel, OldString: &old, NewString: &new}); err != nil {
			return 0, err
		}
	}
}
