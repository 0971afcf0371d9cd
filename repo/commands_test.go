package repo

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctx-dev/ctx/graph"
	"github.com/ctx-dev/ctx/graph/diag"
	"github.com/ctx-dev/ctx/object"
)

func recordCommand(t *testing.T, r *Repo, opts CommandOptions) (*CommandResult, error) {
	t.Helper()
	w, err := r.Lock(t.Context(), LockOptions{Timeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Unlock()
	return w.RecordCommand(t.Context(), opts)
}

// latestRuns reads the head's diagnostics snapshot: the latest run of
// each command, by name.
func latestRuns(t *testing.T, r *Repo) map[string]*diag.CommandRun {
	t.Helper()
	_, c := head(t, r)
	out := map[string]*diag.CommandRun{}
	if c.DiagnosticsSnapshot == nil {
		return out
	}
	snap := new(DiagnosticsSnapshot)
	if err := object.GetTyped(r.Objects, *c.DiagnosticsSnapshot, snap); err != nil {
		t.Fatal(err)
	}
	for _, ref := range snap.Runs {
		run := new(diag.CommandRun)
		if err := object.GetTyped(r.Objects, ref.Run, run); err != nil {
			t.Fatal(err)
		}
		out[ref.Name] = run
	}
	return out
}

func numbered(n int, format string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format+"\n", i+1)
	}
	return b.String()
}

func TestRecordCommand(t *testing.T) {
	goBuild := "# example.com/fix\n./main.go:4:15: undefined: foo\n./lib/lib.go:3:1: missing return\n"
	tests := []struct {
		name     string
		opts     CommandOptions
		maxLines int
		diags    []string // path:line:col severity of each diagnostic
		kept     string   // the output kept; "-" for none
		maxKept  int      // or at most this many lines of it
		trunc    bool
	}{
		{
			name:  "go build failure",
			opts:  CommandOptions{Name: "go build ./...", Output: []byte(goBuild), ExitCode: 1},
			diags: []string{"main.go:4:15 error", "lib/lib.go:3:1 error"},
			kept:  goBuild,
		},
		{
			name:  "generic file:line:col",
			opts:  CommandOptions{Name: "make", Output: []byte("cc -c app.c\nsrc/app.c:10:3: error: expected ';'\nsrc/app.c:12:1: warning: unused variable\nmake: *** [app.o] Error 1\n"), ExitCode: 2},
			diags: []string{"src/app.c:10:3 error", "src/app.c:12:1 warning"},
		},
		{
			name:    "passing run, short summary",
			opts:    CommandOptions{Name: "go test ./...", Output: []byte(numbered(200, "=== RUN   TestX%d") + "PASS\nok  \texample.com/fix\t0.01s\n")},
			maxKept: diag.PassingLines,
			trunc:   true,
		},
		{
			name: "passing run, short output",
			opts: CommandOptions{Name: "true", Output: []byte("done\n")},
			kept: "done\n",
		},
		{
			name:     "failing run over max_log_lines",
			opts:     CommandOptions{Name: "make", Output: []byte(numbered(300, "line %d") + "src/x.c:1:1: error: boom\n" + numbered(300, "tail %d")), ExitCode: 1},
			maxLines: 40,
			diags:    []string{"src/x.c:1:1 error"},
			maxKept:  40,
			trunc:    true,
		},
		{
			name: "no output",
			opts: CommandOptions{Name: "false", ExitCode: 1},
			kept: "-",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTestRepo(t)
			if tc.maxLines > 0 {
				r.Config.Ingestion.MaxLogLines = tc.maxLines
			}
			res, err := recordCommand(t, r, tc.opts)
			if err != nil {
				t.Fatalf("RecordCommand: %v", err)
			}
			run := latestRuns(t, r)[tc.opts.Name]
			if run == nil || !res.Committed {
				t.Fatalf("no run of %q recorded", tc.opts.Name)
			}
			var diags []string
			for _, d := range run.Diagnostics {
				diags = append(diags, fmt.Sprintf("%s:%d:%d %s", d.Path, d.Line, d.Col, d.Severity))
			}
			if strings.Join(diags, ", ") != strings.Join(tc.diags, ", ") {
				t.Errorf("diagnostics %q, want %q", diags, tc.diags)
			}
			if run.ExitCode != tc.opts.ExitCode || run.StartedAt != TestTime.Unix() {
				t.Errorf("exit %d, started %d", run.ExitCode, run.StartedAt)
			}
			kept := "-"
			if run.Output != nil {
				_, data, err := r.Objects.Get(*run.Output)
				if err != nil {
					t.Fatal(err)
				}
				kept = string(data)
			}
			switch {
			case tc.kept != "" && kept != tc.kept:
				t.Errorf("kept %q, want %q", kept, tc.kept)
			case tc.maxKept > 0 && (strings.Count(kept, "\n") > tc.maxKept || res.KeptLines > tc.maxKept):
				t.Errorf("kept %d lines (KeptLines %d), want at most %d:\n%s", strings.Count(kept, "\n"), res.KeptLines, tc.maxKept, kept)
			}
			if run.Truncated != tc.trunc {
				t.Errorf("Truncated = %v, want %v", run.Truncated, tc.trunc)
			}
			// A failure keeps the lines of its diagnostics.
			for _, d := range run.Diagnostics {
				if !strings.Contains(kept, d.Message) {
					t.Errorf("kept output lacks the diagnostic %q", d.Message)
				}
			}
			// A passing run keeps its summary line.
			if tc.opts.ExitCode == 0 && strings.Contains(string(tc.opts.Output), "ok  \t") && !strings.Contains(kept, "ok  \texample.com/fix") {
				t.Errorf("passing run lost its summary:\n%s", kept)
			}
		})
	}
}

// TestRecordCommandReplaces checks that a run replaces the previous run
// of the same command in the diagnostics snapshot, and no other.
func TestRecordCommandReplaces(t *testing.T) {
	r := NewTestRepo(t)
	runs := []CommandOptions{
		{Name: "go vet ./...", Output: []byte("./a.go:1:1: bad\n"), ExitCode: 1},
		{Name: "go test ./...", Output: []byte("ok  \texample.com/fix\t0.01s\n")},
		{Name: "go  vet\t./... ", Output: []byte("./b.go:2:1: worse\n"), ExitCode: 1},
	}
	for _, o := range runs {
		if _, err := recordCommand(t, r, o); err != nil {
			t.Fatal(err)
		}
	}
	got := latestRuns(t, r)
	if len(got) != 2 || got["go test ./..."] == nil {
		t.Fatalf("runs %v, want go vet and go test", sortedKeys(got))
	}
	vet := got["go vet ./..."]
	if vet == nil || len(vet.Diagnostics) != 1 || vet.Diagnostics[0].Path != "b.go" {
		t.Errorf("go vet run = %+v, want the second one", vet)
	}
	if _, err := recordCommand(t, r, CommandOptions{Name: " \t"}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("RecordCommand without a name = %v, want ErrInvalidArgument", err)
	}
}

// TestRecordCommandReferences checks that diagnostics reference the files
// and the items they name.
func TestRecordCommandReferences(t *testing.T) {
	r := NewTestRepo(t)
	writeDated(t, r, map[string]string{
		"go.mod":  "module example.com/fix\n",
		"main.go": "package main\n\nfunc main() {\n\tfoo()\n}\n",
	})
	mustIngest(t, r, IngestOptions{Semantics: true})
	res, err := recordCommand(t, r, CommandOptions{Name: "go build", Output: []byte("# example.com/fix\n./main.go:4:2: undefined: foo\n"), ExitCode: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := buildGraph(t, r, GraphOptions{})
	from := graph.DiagnosticNode(res.RunID, 0)
	var to []string
	for _, e := range g.edges {
		if e.From.ID == from.ID && e.Label == graph.References {
			to = append(to, string(e.To.Kind)+" "+e.To.Key)
		}
	}
	if strings.Join(to, ", ") != "file main.go, item example.com/fix.main" {
		t.Errorf("diagnostic references %q, want main.go and its main function", to)
	}
}

// TestRecordCommandAllowSecrets checks that AllowSecrets keeps a secret in
// the output and the name.
func TestRecordCommandAllowSecrets(t *testing.T) {
	token := "gh" + "p_" + fake(200, 36, alnum)
	out := "GITHUB_TOKEN=" + token + "\n"
	for _, allow := range []bool{false, true} {
		r := NewTestRepo(t)
		res, err := recordCommand(t, r, CommandOptions{Name: "env " + token, Argv: []string{"env", token}, Output: []byte(out), ExitCode: 1, AllowSecrets: allow})
		if err != nil {
			t.Fatal(err)
		}
		run := res.Run
		_, kept, err := r.Objects.Get(*run.Output)
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(kept), token) || strings.Contains(run.Name, token) || strings.Contains(run.Argv[1], token)
		all := strings.Contains(string(kept), token) && strings.Contains(run.Name, token) && strings.Contains(run.Argv[1], token)
		switch {
		case allow && (!all || len(res.Redacted) != 0):
			t.Errorf("with AllowSecrets, the run %+v lost the secret (redacted %+v)", run, res.Redacted)
		case !allow && (has || len(res.Redacted) != 3):
			t.Errorf("without AllowSecrets, the run %+v kept the secret (redacted %+v)", run, res.Redacted)
		}
	}
}
