package graph

import (
	"fmt"
	"testing"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/object"
)

// TestNodeIDGolden pins derived node ids. They are part of the on-disk
// format: edge batches name nodes by them, so a change here makes every
// stored edge point at a node no reader computes any more. If this test
// fails, the change to node.go is the bug.
func TestNodeIDGolden(t *testing.T) {
	tests := []struct {
		name     string
		node     NodeID
		kind     NodeKind
		key      string
		preimage string // what derive hashes, spelled out
		id       string
	}{
		{"narrative task", NarrativeNode("task", "T-1"), NodeTask, "T-1",
			"ctx node\x00narrative\x00T-1",
			"2d774d423af0b22412deb767d6f3c8f074739c65a5490ebafc867d5792377cc8"},
		{"narrative open-question", NarrativeNode("open-question", "Q-7"), NodeOpenQuestion, "Q-7",
			"ctx node\x00narrative\x00Q-7",
			"8889708d7119d3aacb4971009491426982e09ca663c3454123547eb092fcf0b0"},
		{"narrative empty key", NarrativeNode("decision", ""), NodeDecision, "",
			"ctx node\x00narrative\x00",
			"a22a467e78471ed8c7fe736454c9075b4080dc4b74b9f93ea59a1a7ba5a479e6"},
		{"file", FileNode("r1", "cmd/ctx/main.go"), NodeFile, "cmd/ctx/main.go",
			"ctx node\x00file\x00r1\x00cmd/ctx/main.go",
			"442bcef7c77337d5cbb13ca5f1baf4c9c1ee84e0ef37f023f26a74db8700445b"},
		{"file other repo", FileNode("r2", "cmd/ctx/main.go"), NodeFile, "cmd/ctx/main.go",
			"ctx node\x00file\x00r2\x00cmd/ctx/main.go",
			"dc2d884e3526a9a6575c8aef7ace0e4bd04704b9cac4d42a234bd0134b8f3b8c"},
		{"file root", FileNode("r1", ""), NodeFile, "",
			"ctx node\x00file\x00r1\x00",
			"7a0f7c9d19c408a7ae8d9b3006388305d42e4d5f564f24728b7464c3710266ed"},
		{"item go", ItemNode("r1", "net.Client.Connect"), NodeItem, "net.Client.Connect",
			"ctx node\x00item\x00r1\x00net.Client.Connect",
			"3befbbc3756e68e8b8cbfab55ae67d2ee01967ba5e124d934920c430fd823997"},
		{"item rust", ItemNode("r1", "core::net::Client::connect"), NodeItem, "core::net::Client::connect",
			"ctx node\x00item\x00r1\x00core::net::Client::connect",
			"7ae70a469c19ea9d49a6213a07864858fd81f08cab7f927a8f8dc3ef0345f096"},
		{"directory", DirectoryNode("r1", "cmd/ctx"), NodeDirectory, "cmd/ctx",
			"ctx node\x00directory\x00r1\x00cmd/ctx",
			"b28860b9434f7508f1cdbadb574e085e3026a481391758f3be68fb272ada9ca0"},
		{"module", ModuleNode("r1", "core::net::client"), NodeModule, "core::net::client",
			"ctx node\x00module\x00r1\x00core::net::client",
			"3f7463eb1b1ac9bd89b49eed84dd9261c86f70f253fe578f12f70d664a387638"},
		{"go package", PackageNode("r1", EcosystemGo, "net/http"), NodePackage, "net/http",
			"ctx node\x00package\x00r1\x00go\x00net/http",
			"08c0c8ab0a3ca35836ed31121d00080cf76ec703d6bcd320e54fdc5f34301312"},
		{"cargo package", PackageNode("r1", EcosystemCargo, "tokio"), NodePackage, "tokio",
			"ctx node\x00package\x00r1\x00cargo\x00tokio",
			"6c65333c75ebc67c7545449c8f478f3198eee351614e8c99d1a9b8b12e03fc85"},
		{"cargo target", TargetNode("r1", EcosystemCargo, "core", "lib", "core"), NodeTarget, "core#lib:core",
			"ctx node\x00target\x00r1\x00cargo\x00core#lib:core",
			"47a61b64bf476195deceffe5cacd396d870166d282051d5078552236ccf19910"},
		{"crate", CrateNode("r1", "core"), NodeCrate, "core",
			"ctx node\x00crate\x00r1\x00core",
			"0be8cb1e4f283026a2b2c7aa9580147c62cf2667efc80f6693548c6842bf2bb1"},
		{"diagnostic", DiagnosticNode(object.Sum(object.KindBlob, []byte("run")), 3), NodeDiagnostic, "3deaf3aab47c#3",
			"ctx node\x00diagnostic\x003deaf3aab47cd16f9b2ebf92d290f31c390cb313187593d2507db320c2943e34#3",
			"5ca2426beaebaa5a65cbf3c93c8f7647bcb3ac7734b85af009b70a03108bd3cf"},
		{"directory root", DirectoryNode("r1", ""), NodeDirectory, "",
			"ctx node\x00directory\x00r1\x00",
			"cd31c152afdcc5a03bfb52140e359aedcb3377193f01d3cc66c41366d6373bee"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.node.Kind != tt.kind || tt.node.Key != tt.key {
				t.Errorf("kind, key = %q, %q; want %q, %q", tt.node.Kind, tt.node.Key, tt.kind, tt.key)
			}
			if got := tt.node.ID.String(); got != tt.id {
				t.Errorf("id = %s, want %s", got, tt.id)
			}
			if want := object.ID(blake3.Sum256([]byte(tt.preimage))); tt.node.ID != want {
				t.Errorf("id is not blake3(%q)", tt.preimage)
			}
		})
	}
}

func TestCommitNode(t *testing.T) {
	id := object.Sum(object.KindTyped, []byte("a commit"))
	n := CommitNode(id)
	if n.Kind != NodeCommit || n.ID != id || n.Key != id.String() {
		t.Fatalf("CommitNode = %+v", n)
	}
	if got, want := n.Name(), "commit:"+id.Short(); got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
}

func TestNodeName(t *testing.T) {
	tests := []struct {
		node NodeID
		want string
	}{
		{FileNode("r", "a/b.go"), "file:a/b.go"},
		{NarrativeNode("open-question", "Q-1"), "open_question:Q-1"},
		{NodeID{Kind: NodeCommit, Key: "short"}, "commit:short"},
		{CommitNode(object.ID{0xab, 0xcd}), "commit:" + object.ID{0xab, 0xcd}.String()[:object.ShortLen]},
		{NodeID{Kind: NodeItem, ID: derive("x", "y")}, "item:" + derive("x", "y").Short()},
	}
	for _, tt := range tests {
		if got := tt.node.Name(); got != tt.want {
			t.Errorf("%+v.Name() = %q, want %q", tt.node, got, tt.want)
		}
		if got := string(tt.node.AppendName([]byte("x"))); got != "x"+tt.want {
			t.Errorf("%+v.AppendName(x) = %q, want %q", tt.node, got, "x"+tt.want)
		}
	}
}

// TestNodeDomainsDistinct checks that the same key never gives the same id
// in two domains: a file and a directory of the same path, an item named
// like a file, a narrative node named like either, are different nodes.
func TestNodeDomainsDistinct(t *testing.T) {
	domains := map[string]func(key string) NodeID{
		"narrative":  func(k string) NodeID { return NarrativeNode("task", k) },
		"file r1":    func(k string) NodeID { return FileNode("r1", k) },
		"file r2":    func(k string) NodeID { return FileNode("r2", k) },
		"item r1":    func(k string) NodeID { return ItemNode("r1", k) },
		"item r2":    func(k string) NodeID { return ItemNode("r2", k) },
		"directory":  func(k string) NodeID { return DirectoryNode("r1", k) },
		"file empty": func(k string) NodeID { return FileNode("", k) },
		"item empty": func(k string) NodeID { return ItemNode("", k) },
		"dir empty":  func(k string) NodeID { return DirectoryNode("", k) },
	}
	keys := []string{"", "a", "a/b", "r1", "file", "item", "narrative", "directory", "\x00", "r1\x00a", "T-1"}
	seen := map[object.ID]string{}
	for name, mk := range domains {
		for _, k := range keys {
			n := mk(k)
			if n.ID.IsZero() {
				t.Fatalf("%s(%q) is the zero id", name, k)
			}
			what := fmt.Sprintf("%s(%q)", name, k)
			if prev, dup := seen[n.ID]; dup {
				t.Errorf("%s and %s have the same id %s", prev, what, n.ID.Short())
			}
			seen[n.ID] = what
		}
	}
	// A narrative node's id does not depend on its type: a task that
	// becomes a decision is the same node.
	if NarrativeNode("task", "X").ID != NarrativeNode("decision", "X").ID {
		t.Error("a narrative node's id depends on its type")
	}
	// A commit node's id is the commit's, not a derived one.
	c := object.Sum(object.KindTyped, []byte("c"))
	if CommitNode(c).ID != c {
		t.Error("CommitNode derives its id")
	}
}
