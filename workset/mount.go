package workset

import (
	"fmt"
	"path"
	"strings"
)

// Mount maps an agent-visible path prefix to a canonical host prefix on a
// file system (seed §5.3): a sandbox's bind mount, /workspace ↔
// /home/me/project.
type Mount struct {
	Agent        string `json:"agent"`
	Canonical    string `json:"canonical"`
	FilesystemID string `json:"filesystem_id"`
}

// Validate checks that both prefixes are clean absolute paths.
func (m Mount) Validate() error {
	for _, p := range []string{m.Agent, m.Canonical} {
		if !path.IsAbs(p) || path.Clean(p) != p {
			return fmt.Errorf("%w: mount prefix %q is not a clean absolute path", ErrInvalid, p)
		}
	}
	if m.FilesystemID == "" || strings.ContainsAny(m.FilesystemID, "\x00\n") {
		return fmt.Errorf("%w: mount of %s has no file system id", ErrInvalid, m.Agent)
	}
	return nil
}

// Mounts is a session's mount mappings.
type Mounts []Mount

// under reports whether p is prefix or below it.
func under(p, prefix string) bool {
	if prefix == "/" {
		return strings.HasPrefix(p, "/")
	}
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

func replacePrefix(p, old, new string) string {
	rest := strings.TrimPrefix(p, old)
	if old == "/" {
		rest = "/" + rest
	}
	return path.Join(new, rest)
}

// Forward translates an agent-visible absolute path to its canonical path
// and file system by the longest matching agent prefix. ok is false when
// no mount matches: the path is then unchanged.
func (ms Mounts) Forward(agentPath string) (canonical, fsid string, ok bool) {
	best := -1
	for i, m := range ms {
		if under(agentPath, m.Agent) && (best < 0 || len(m.Agent) > len(ms[best].Agent)) {
			best = i
		}
	}
	if best < 0 {
		return agentPath, "", false
	}
	m := ms[best]
	return replacePrefix(agentPath, m.Agent, m.Canonical), m.FilesystemID, true
}

// Reverse translates a canonical path on file system fsid to the path the
// agent sees, by the longest matching canonical prefix; with no match it
// returns the canonical path (seed §5.3: the fallback).
func (ms Mounts) Reverse(canonical, fsid string) string {
	best := -1
	for i, m := range ms {
		if m.FilesystemID == fsid && under(canonical, m.Canonical) && (best < 0 || len(m.Canonical) > len(ms[best].Canonical)) {
			best = i
		}
	}
	if best < 0 {
		return canonical
	}
	m := ms[best]
	return replacePrefix(canonical, m.Canonical, m.Agent)
}
