package diag

import (
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"

	"github.com/ctx-dev/ctx/object"
)

// testRun returns a CommandRun with every field set.
func testRun() *CommandRun {
	out := object.Sum(object.KindBlob, []byte("output"))
	return &CommandRun{
		Name:       "go test ./...",
		Argv:       []string{"go", "test", "./..."},
		ExitCode:   1,
		StartedAt:  1795000000,
		DurationMS: 4210,
		Output:     &out,
		Truncated:  true,
		Summary: Summary{Tool: ToolGoTest, Passed: 31, Failed: 2, Skipped: -1, Errors: 2, Warnings: 1,
			Text: "go test: 2 failed, 31 passed, 1 warning"},
		Diagnostics: []Diagnostic{
			{Severity: SeverityError, Message: "Add(2, 3) = -1, want 5", Detail: "got -1\nwant 5",
				Path: "calc/calc_test.go", Line: 7, Test: "TestAdd", Tool: ToolGoTest},
			{Severity: SeverityError, Code: "E0433", Message: "failed to resolve", Path: "src/lib.rs",
				Line: 3, Col: 5, EndLine: 3, EndCol: 9, Tool: ToolCargo},
			{Severity: SeverityWarning, Code: "printf", Message: "bad format", Path: "/usr/lib/x.go", External: true, Line: 1},
			{Severity: SeverityHint, Message: "consider this"},
		},
	}
}

func TestCommandRunRoundTrip(t *testing.T) {
	minimal := &CommandRun{Name: "make", Summary: Summary{Passed: -1, Failed: -1, Skipped: -1, Text: "make: no diagnostics"}}
	for _, r := range []*CommandRun{testRun(), minimal} {
		p, err := object.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		got := new(CommandRun)
		if err := object.Decode(p, got); err != nil {
			t.Fatal(err)
		}
		want := *r
		if want.Diagnostics == nil {
			want.Diagnostics = []Diagnostic{} // nil and empty encode alike
		}
		if got.Diagnostics == nil {
			got.Diagnostics = []Diagnostic{}
		}
		if !reflect.DeepEqual(got, &want) {
			t.Errorf("round trip:\n got  %+v\n want %+v", got, &want)
		}
		reg, err := object.NewRegistry(Types()...)
		if err != nil {
			t.Fatal(err)
		}
		v, err := reg.Decode(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v.(*CommandRun); !ok {
			t.Errorf("registry decoded a %T", v)
		}
	}
}

// TestCommandRunParsed stores what Parse and Keep produce for every
// input and reads it back.
func TestCommandRunParsed(t *testing.T) {
	for _, tc := range readCases(t) {
		res := Parse(tc.name, tc.output, tc.root)
		kept, trunc := Keep(tc.output, tc.exit, res, goldenMaxLines)
		r := &CommandRun{Name: tc.name, ExitCode: tc.exit, Summary: res.Summary, Diagnostics: res.Diagnostics, Truncated: trunc}
		if len(kept) > 0 {
			id := object.Sum(object.KindBlob, kept)
			r.Output = &id
		}
		p, err := object.Encode(r)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		got := new(CommandRun)
		if err := object.Decode(p, got); err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !reflect.DeepEqual(got.Diagnostics, res.Diagnostics) || got.Summary != res.Summary {
			t.Errorf("%s: round trip changed the diagnostics", tc.file)
		}
		// Keep on a decoded result finds the lines by message.
		kept2, _ := Keep(tc.output, tc.exit, &Result{Diagnostics: got.Diagnostics, Summary: got.Summary}, goldenMaxLines)
		checkKept(t, tc.output, kept2, len(kept2) != len(tc.output) || string(kept2) != string(tc.output),
			tc.exit != 0 || res.HasErrors(), goldenMaxLines)
	}
}

func TestCommandRunLinks(t *testing.T) {
	r := testRun()
	ls := r.Links()
	if len(ls) != 1 || ls[0].Field != "output" || ls[0].ID != *r.Output || ls[0].Kind != object.KindBlob {
		t.Errorf("Links = %+v", ls)
	}
	r.Output, r.Truncated = nil, false
	if ls := r.Links(); len(ls) != 0 {
		t.Errorf("Links without output = %+v", ls)
	}
}

func TestCommandRunValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*CommandRun)
		want   string
	}{
		{"empty name", func(r *CommandRun) { r.Name = "" }, "name is empty"},
		{"two-line name", func(r *CommandRun) { r.Name = "a\nb" }, "one line"},
		{"negative duration", func(r *CommandRun) { r.DurationMS = -1 }, "duration_ms"},
		{"zero output", func(r *CommandRun) { r.Output = &object.ID{} }, "zero id"},
		{"truncated without output", func(r *CommandRun) { r.Output = nil }, "truncated without output"},
		{"bad argv", func(r *CommandRun) { r.Argv = []string{"\xff"} }, "argv[0]"},
		{"test count below -1", func(r *CommandRun) { r.Summary.Passed = -2 }, "summary"},
		{"negative errors", func(r *CommandRun) { r.Summary.Errors = -1 }, "summary"},
		{"unknown severity", func(r *CommandRun) { r.Diagnostics[1].Severity = "fatal" }, "diagnostics[1]: severity"},
		{"zero severity", func(r *CommandRun) { r.Diagnostics[0].Severity = "" }, "severity"},
		{"empty message", func(r *CommandRun) { r.Diagnostics[0].Message = "" }, "message is empty"},
		{"two-line message", func(r *CommandRun) { r.Diagnostics[0].Message = "a\nb" }, "more than one line"},
		{"long message", func(r *CommandRun) { r.Diagnostics[0].Message = strings.Repeat("x", MaxMessageBytes+1) }, "longer than"},
		{"long detail", func(r *CommandRun) { r.Diagnostics[0].Detail = strings.Repeat("x\n", MaxDetailLines) }, "detail"},
		{"negative line", func(r *CommandRun) { r.Diagnostics[0].Line = -1 }, "negative position"},
		{"column without line", func(r *CommandRun) { r.Diagnostics[0].Line, r.Diagnostics[0].Col = 0, 3 }, "without a line"},
		{"end column without end line", func(r *CommandRun) { r.Diagnostics[1].EndLine = 0 }, "end column"},
		{"range backwards", func(r *CommandRun) { r.Diagnostics[1].EndLine = 2 }, "ends before"},
		{"range backwards on one line", func(r *CommandRun) { r.Diagnostics[1].EndCol = 4 }, "ends before"},
		{"unclean path", func(r *CommandRun) { r.Diagnostics[0].Path = "./calc/x.go" }, "not clean"},
		{"dot path", func(r *CommandRun) { r.Diagnostics[0].Path = "." }, "not clean"},
		{"external without path", func(r *CommandRun) { r.Diagnostics[3].External = true }, "external"},
		{"bad UTF-8", func(r *CommandRun) { r.Diagnostics[0].Test = "T\xff" }, "test is not UTF-8"},
	}
	if err := testRun().Validate(); err != nil {
		t.Fatalf("valid run: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := testRun()
			tt.change(r)
			err := r.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
			if _, err := object.Encode(r); !errors.Is(err, object.ErrInvalidArgument) {
				t.Errorf("Encode = %v, want ErrInvalidArgument", err)
			}
		})
	}
}

// TestCommandRunDecodeRejects checks payloads the reader must refuse
// (FORMAT.md §4.1): a required field missing, an optional field present
// but empty, an unknown severity.
func TestCommandRunDecodeRejects(t *testing.T) {
	base := map[string]any{
		"name": "make", "exit_code": 0, "started_at": 0, "duration_ms": 0,
		"summary":     map[string]any{"tool": "", "passed": -1, "failed": -1, "skipped": -1, "errors": 0, "warnings": 0, "text": ""},
		"diagnostics": []any{map[string]any{"severity": "error", "message": "m"}},
	}
	tests := []struct {
		name   string
		change func(m map[string]any)
	}{
		{"missing name", func(m map[string]any) { delete(m, "name") }},
		{"missing summary count", func(m map[string]any) { delete(m["summary"].(map[string]any), "passed") }},
		{"missing diagnostics", func(m map[string]any) { delete(m, "diagnostics") }},
		{"empty optional argv", func(m map[string]any) { m["argv"] = []string{} }},
		{"empty optional code", func(m map[string]any) {
			m["diagnostics"] = []any{map[string]any{"severity": "error", "message": "m", "code": ""}}
		}},
		{"unknown severity", func(m map[string]any) {
			m["diagnostics"] = []any{map[string]any{"severity": "fatal", "message": "m"}}
		}},
		{"missing message", func(m map[string]any) { m["diagnostics"] = []any{map[string]any{"severity": "error"}} }},
		{"text for exit code", func(m map[string]any) { m["exit_code"] = "1" }},
	}
	if err := object.Decode(rawPayload(t, base), new(CommandRun)); err != nil {
		t.Fatalf("base payload: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := rawCopy(base)
			tt.change(m)
			if err := object.Decode(rawPayload(t, m), new(CommandRun)); !errors.Is(err, object.ErrDecode) {
				t.Errorf("Decode = %v, want ErrDecode", err)
			}
		})
	}
}

// TestCommandRunFrozen reads the payload written by the first version of
// command_run: objects already stored must decode the same forever.
func TestCommandRunFrozen(t *testing.T) {
	file := filepath.Join(goldenDir, "command_run_v1.hex")
	p, err := object.Encode(testRun())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if _, err := os.Stat(file); err != nil {
			if err := os.WriteFile(file, []byte(hex.EncodeToString(p)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	frozen, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	got := new(CommandRun)
	if err := object.Decode(frozen, got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, testRun()) {
		t.Errorf("frozen payload decodes to %+v", got)
	}
	if string(frozen) != string(p) {
		t.Error("the encoding of command_run changed; a changed meaning needs a new type name (FORMAT.md §4.1)")
	}
}

// rawPayload encodes v as the body of a command_run in canonical CBOR,
// bypassing Validate, to build payloads Encode would refuse.
func rawPayload(t testing.TB, v any) []byte {
	t.Helper()
	eo := cbor.CoreDetEncOptions()
	eo.NilContainers = cbor.NilContainerAsEmpty
	em, err := eo.EncMode()
	if err != nil {
		t.Fatal(err)
	}
	b, err := em.Marshal(map[string]any{"command_run": v})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawCopy copies a body deeply enough for the changes of a test.
func rawCopy(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			v = rawCopy(sub)
		}
		c[k] = v
	}
	return c
}
