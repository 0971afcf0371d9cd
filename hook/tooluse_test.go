package hook

import (
	"encoding/json"
	"testing"
)

func TestToolOutput(t *testing.T) {
	tests := []struct {
		name, raw, want string
		failed          bool
	}{
		{"string", `"a.go\nb.go"`, "a.go\nb.go", false},
		{"bash", `{"stdout":"a.go\nb.go\n","stderr":"","interrupted":false}`, "a.go\nb.go\n", false},
		{"bash with stderr", `{"stdout":"a.go","stderr":"ls: x: No such file"}`, "a.go\nls: x: No such file", false},
		{"interrupted", `{"stdout":"a.go\n","interrupted":true}`, "a.go\n", true},
		{"exit code", `{"stdout":"","stderr":"boom","exit_code":2}`, "boom", true},
		{"glob filenames", `{"filenames":["/p/a.go","/p/b.go"],"numFiles":2}`, "/p/a.go\n/p/b.go\n", false},
		{"grep content", `{"mode":"content","content":"a.go:3:x"}`, "a.go:3:x\n", false},
		{"other object", `{"x":1}`, `{"x":1}`, false},
		{"empty", ``, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, failed := toolOutput(json.RawMessage(tt.raw))
			if string(got) != tt.want || failed != tt.failed {
				t.Errorf("toolOutput(%s) = %q, %v; want %q, %v", tt.raw, got, failed, tt.want, tt.failed)
			}
		})
	}
}

func TestToolOp(t *testing.T) {
	tests := []struct {
		name, tool, input string
		op, err           bool
	}{
		{"read", "Read", `{"file_path":"/p/a.go"}`, true, false},
		{"read without a path", "Read", `{}`, false, true},
		{"edit", "Edit", `{"file_path":"a.go","old_string":"x","new_string":"y"}`, true, false},
		{"notebook", "NotebookEdit", `{"notebook_path":"/p/n.ipynb"}`, true, false},
		{"bash", "Bash", `{"command":"ls"}`, true, false},
		{"grep", "Grep", `{"pattern":"retry","path":"src"}`, true, false},
		{"not followed", "WebFetch", `{"url":"https://example.com"}`, false, false},
		{"bad input", "Read", `[1,2]`, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			op, err := toolOp(Input{ToolName: tt.tool, ToolInput: json.RawMessage(tt.input), Cwd: "/p"})
			if (op != nil) != tt.op || (err != nil) != tt.err {
				t.Errorf("toolOp(%s, %s) = op %v, err %v", tt.tool, tt.input, op != nil, err)
			}
		})
	}
}
