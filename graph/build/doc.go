// Package build records the build graph of a project (design §7.2.2,
// tier 2 of §9.2): what the build tools say the packages, targets and
// dependencies are, stored as typed snapshot objects, and the graph edges
// derived from them.
//
// # Nouns
//
//   - GoPackages ("go_packages"): the packages of one Go module tree, from
//     `go list -deps -test -json ./...` (GoList, ParseGoList).
//   - CargoMetadataSnapshot ("cargo_metadata"): the packages, targets and
//     resolved dependency graph of one Cargo workspace, from
//     `cargo metadata` (CargoMetadata, ParseCargoMetadata).
//   - BuildSnapshot ("build_snapshot"): what a commit's build_snapshot
//     field names: one entry per build root (an ecosystem and a directory)
//     with the id of its go_packages or cargo_metadata object.
//   - Project package: a package whose sources are inside the project root.
//     Only project packages are recorded in full; packages outside (the
//     standard library, dependencies) keep what identifies them.
//
// Snapshots hold no absolute paths of the project: directories and files
// are slash-separated and relative to the project root ("." for the root
// itself), and a path outside the root is left out, so that every clone
// of a project records the same objects for the same sources.
//
// # Edges
//
// GoEdges and CargoEdges turn a snapshot into graph edges, all with
// evidence tool "build". For Go:
//
//   - module contains package (every package that belongs to a module);
//   - package contains file (the .go files of a project package,
//     test files included);
//   - package depends_on package (the imports of a project package);
//   - target target_of package: a "bin" target for a main package, a "test"
//     target for a package with test files;
//   - test target depends_on package (the imports of the package's
//     internal and external test files). Test imports hang off the test
//     target rather than the package because only the test binary needs
//     them; go list is certain about them, so the confidence stays high.
//
// For Cargo:
//
//   - package depends_on package, one edge per pair in the resolve graph;
//     normal and build dependencies with confidence high, a pair that is
//     only a dev-dependency with confidence medium: it holds for test,
//     bench and example builds, and Cargo has no target standing for the
//     unit-test build of a lib or bin to hang it on;
//   - target target_of package (every target of a workspace member; the lib
//     and proc-macro targets of other packages, the only ones a dependent
//     can use);
//   - package contains file (the manifest and the targets' root sources,
//     when inside the project);
//   - crate crate_from_target target, for lib, bin and proc-macro targets
//     (the crate name is the target name with '-' replaced by '_').
//
// Package nodes are keyed by name (Go import path, Cargo package name), so
// two versions of one Cargo package are one node.
package build
