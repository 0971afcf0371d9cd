package mcp

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctx-dev/ctx/narrative"
)

// NarrativeScheme is the prefix of a narrative file's resource URI:
// ctx://narrative/ and the file's path under .ctx/narrative/
// ('/'-separated), e.g. ctx://narrative/decisions.md.
const NarrativeScheme = "ctx://narrative/"

// maxResourceBytes bounds a resource read: a narrative file bigger than
// this is damage or a mistake, not something to send a model.
const maxResourceBytes = 8 << 20

func (s *Server) addResources() {
	s.mcp.AddResourceTemplate(&sdk.ResourceTemplate{
		URITemplate: NarrativeScheme + "{+path}",
		Name:        "narrative",
		Title:       "ctx narrative file",
		Description: "A Markdown file of the store's narrative (.ctx/narrative/PATH): overview, decisions, logs, tasks, nodes.",
		MIMEType:    "text/markdown",
	}, s.readNarrative)
	s.refreshResources()
	// resources/list answers from the SDK's registry: bring it up to
	// date with the files first, so that a node remembered a moment ago
	// is listed.
	s.mcp.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "resources/list" {
				s.refreshResources()
			}
			return next(ctx, method, req)
		}
	})
}

// narrativeFiles lists the narrative's files, '/'-separated paths under
// .ctx/narrative/.
func (s *Server) narrativeFiles() ([]narrative.File, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	return r.Narrative().Files()
}

// refreshResources registers a resource for each narrative file and
// removes those of files gone since. A store that cannot be read keeps
// the last list (the failure is logged).
func (s *Server) refreshResources() {
	s.mu.Lock()
	defer s.mu.Unlock()
	files, err := s.narrativeFiles()
	if err != nil {
		s.log.Warn("listing narrative files", "err", err)
		return
	}
	seen := map[string]bool{}
	for _, f := range files {
		uri := NarrativeScheme + f.Path
		seen[uri] = true
		if s.narrative[uri] {
			continue
		}
		s.narrative[uri] = true
		desc := f.Role
		if f.Stream != "" && f.Stream != "main" {
			desc += " (" + f.Stream + ")"
		}
		s.mcp.AddResource(&sdk.Resource{URI: uri, Name: f.Path, Description: desc, MIMEType: "text/markdown"}, s.readNarrative)
	}
	var gone []string
	for uri := range s.narrative {
		if !seen[uri] {
			gone = append(gone, uri)
			delete(s.narrative, uri)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveResources(gone...)
	}
}

// narrativePath returns the path under .ctx/narrative/ that uri names,
// refusing anything that would leave that directory.
func narrativePath(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, NarrativeScheme)
	if !ok {
		return "", fmt.Errorf("%w: %q is not a %s URI", ErrInvalidArgument, uri, NarrativeScheme)
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w", ErrInvalidArgument, uri, err)
	}
	if p == "" || strings.ContainsRune(p, '\\') || strings.ContainsRune(p, 0) || !fs.ValidPath(p) || path.Clean(p) != p {
		return "", fmt.Errorf("%w: %q does not name a file of the narrative", ErrInvalidArgument, uri)
	}
	return p, nil
}

// readNarrative reads the narrative file a resource URI names.
func (s *Server) readNarrative(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	p, err := narrativePath(uri)
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	// os.Root refuses paths that leave the directory, through ".." or
	// through a symbolic link anywhere on the way.
	root, err := os.OpenRoot(r.Narrative().Root)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := root.Open(filepath.FromSlash(p))
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, sdk.ResourceNotFoundError(uri) // a directory
	case st.Size() > maxResourceBytes:
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a resource read returns", uri, st.Size(), maxResourceBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(b)}}}, nil
}
