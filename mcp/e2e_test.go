package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestTypeScriptClient runs testdata/mcp/client.mjs: the official MCP
// TypeScript SDK's client drives the built `ctx mcp` through initialize,
// tools/list, tool calls and resources. It needs node and the SDK
// installed in testdata/mcp (npm ci there; .ci/run does it) and skips
// without them, unless CTX_REQUIRE_NODE=1 (set by .ci/run), where a
// missing piece fails the test.
func TestTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds ctx and runs node")
	}
	require := os.Getenv("CTX_REQUIRE_NODE") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if require {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		missing("the MCP TypeScript SDK is not installed: run npm ci in %s", dir)
	}
	// ctx and ctx-core, as installed: the front end runs ctx-core.
	binDir := t.TempDir()
	bin := filepath.Join(binDir, "ctx")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", binDir+string(filepath.Separator), "../cmd/ctx", "../cmd/ctx-core")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	project := filepath.Dir(newStore(t))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "client.mjs"), bin, project)
	cmd.Dir = project
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("client.mjs: %v", err)
	}
}
