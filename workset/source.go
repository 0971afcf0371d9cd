package workset

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/zeebo/blake3"
)

// SourceFilesystem is the only source type so far (seed §2.3).
const SourceFilesystem = "filesystem"

// Source is the immutable binding of a sourced object to the thing it
// tracks: a file at a canonical absolute path on a file system.
type Source struct {
	Type         string `json:"type"`
	FilesystemID string `json:"filesystem_id"`
	Path         string `json:"path"`
}

// HostFilesystemID returns the id of this machine's file system: the first
// 32 hex digits of BLAKE3-256("ctx-filesystem\x00" + machine id), the
// machine id read from /etc/machine-id or /var/lib/dbus/machine-id, else
// the host name. Containers have their own machine id; bind mounts name the
// host's id in their Mount.
func HostFilesystemID() string {
	var seed string
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) > 0 {
			seed = strings.TrimSpace(string(b))
			break
		}
	}
	if seed == "" {
		seed, _ = os.Hostname()
		seed = "host:" + seed
	}
	sum := blake3.Sum256([]byte("ctx-filesystem\x00" + seed))
	return ID(sum).String()[:32]
}

// sandboxFilesystemID is the file system of a sandboxed session's own
// files (paths under no mount): private to the session, never read from
// the host.
func sandboxFilesystemID(session string) string {
	sum := blake3.Sum256([]byte("ctx-filesystem\x00sandbox\x00" + session))
	return ID(sum).String()[:32]
}

// canonicalPath resolves the symbolic links of the longest existing
// ancestor of the absolute, clean path p, so that one file reached
// through two links is one object, and a deleted file keeps the path it
// had.
func canonicalPath(p string) string {
	dir, rest := p, ""
	for {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		if rest == "" {
			rest = filepath.Base(dir)
		} else {
			rest = filepath.Join(filepath.Base(dir), rest)
		}
		dir = parent
	}
}

// fileType is a path's extension without the dot, in lower case; "" for
// none.
func fileType(p string) string {
	ext := path.Ext(p)
	if ext == "" || ext == p || strings.HasPrefix(path.Base(p), ".") && strings.Count(path.Base(p), ".") == 1 {
		return ""
	}
	return strings.ToLower(ext[1:])
}
