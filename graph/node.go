package graph

import (
	"strconv"

	"github.com/zeebo/blake3"

	"github.com/ctx-dev/ctx/object"
)

// derive hashes a key and a domain into a node's 32-byte id: BLAKE3 of
// "ctx node\x00", each part of the domain followed by a zero byte, then
// the key. The domain keeps ids of different kinds of key apart; no
// object has such an id.
func derive(key string, domain ...string) object.ID {
	// One call per node of every file's code graph: the preimage is
	// built on the stack when it fits (the domain's parts are not
	// joined into a string first), and Sum256 needs no Hasher.
	const prefix = "ctx node\x00"
	var buf [256]byte
	b := append(buf[:0], prefix...)
	for _, d := range domain {
		b = append(append(b, d...), 0)
	}
	return object.ID(blake3.Sum256(append(b, key...)))
}

// NarrativeNode is the graph node of a narrative node (knowledge), whose
// kind follows the node's type ("open-question" → open_question).
func NarrativeNode(nodeType, id string) NodeID {
	kind := NodeKind(nodeType)
	if nodeType == "open-question" {
		kind = NodeOpenQuestion
	}
	return NodeID{Kind: kind, ID: derive(id, "narrative"), Key: id}
}

// FileNode is the graph node of a file: its id derives from the repository
// id and the file's slash-separated path relative to the project root, so
// every clone computes the same one (design §7.2.1).
func FileNode(repoID, path string) NodeID {
	return NodeID{Kind: NodeFile, ID: derive(path, "file", repoID), Key: path}
}

// ItemNode is the graph node of a code item by its stable key
// ("net.Client.Connect", "core::net::Client::connect").
func ItemNode(repoID, key string) NodeID {
	return NodeID{Kind: NodeItem, ID: derive(key, "item", repoID), Key: key}
}

// CommitNode is the graph node of a commit: its id is the commit's.
func CommitNode(id object.ID) NodeID {
	return NodeID{Kind: NodeCommit, ID: id, Key: id.String()}
}

// Name is how a node is shown: kind and key, or kind and id.
func (n NodeID) Name() string {
	var buf [80]byte
	return string(n.AppendName(buf[:0]))
}

// AppendName appends Name to b.
func (n NodeID) AppendName(b []byte) []byte {
	b = append(append(b, n.Kind...), ':')
	switch {
	case n.Key == "":
		return append(b, n.ID.Short()...)
	case n.Kind == NodeCommit && len(n.Key) > object.ShortLen:
		return append(b, n.Key[:object.ShortLen]...)
	}
	return append(b, n.Key...)
}

// DirectoryNode is the graph node of a directory of the project, by its
// slash-separated path relative to the project root.
func DirectoryNode(repoID, path string) NodeID {
	return NodeID{Kind: NodeDirectory, ID: derive(path, "directory", repoID), Key: path}
}

// Ecosystems name the package worlds whose package, target and crate
// nodes are kept apart (a Go package "log" and a crate "log" are two
// nodes).
const (
	EcosystemGo    = "go"
	EcosystemCargo = "cargo"
	EcosystemNPM   = "npm"
	EcosystemPyPI  = "pypi"
)

// ModuleNode is the graph node of a source module by its key: a Rust
// module path ("core::net::client"), a Python dotted module ("pkg.mod"),
// a TypeScript or JavaScript module path ("src/net/client").
func ModuleNode(repoID, key string) NodeID {
	return NodeID{Kind: NodeModule, ID: derive(key, "module", repoID), Key: key}
}

// PackageNode is the graph node of a package of an ecosystem: a Go import
// path ("net/http"), a Cargo package name ("tokio"), an npm or PyPI
// package name.
func PackageNode(repoID, ecosystem, key string) NodeID {
	return NodeID{Kind: NodePackage, ID: derive(key, "package", repoID, ecosystem), Key: key}
}

// TargetNode is the graph node of a build target: a Cargo target or a Go
// command or test binary. Its key is "PACKAGE#KIND:NAME"
// ("core#lib:core", "net/http#test:http").
func TargetNode(repoID, ecosystem, pkg, kind, name string) NodeID {
	key := pkg + "#" + kind + ":" + name
	return NodeID{Kind: NodeTarget, ID: derive(key, "target", repoID, ecosystem), Key: key}
}

// CrateNode is the graph node of a Rust crate by its name as code names it
// ("core" in core::net::Client).
func CrateNode(repoID, name string) NodeID {
	return NodeID{Kind: NodeCrate, ID: derive(name, "crate", repoID), Key: name}
}

// DiagnosticNode is the graph node of the n-th diagnostic (from 0) of a
// recorded command run.
func DiagnosticNode(run object.ID, n int) NodeID {
	key := run.String()[:object.ShortLen] + "#" + strconv.Itoa(n)
	return NodeID{Kind: NodeDiagnostic, ID: derive(run.String()+"#"+strconv.Itoa(n), "diagnostic"), Key: key}
}
