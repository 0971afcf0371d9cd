package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ctx-dev/ctx/internal/regfile"
)

// NarrativeScheme is the prefix of a narrative file's resource URI:
// ctx://narrative/ and the file's path under .ctx/narrative/
// ('/'-separated), e.g. ctx://narrative/decisions.md.
const NarrativeScheme = "ctx://narrative/"

// maxResourceBytes bounds a resource read: a narrative file bigger than
// this is damage or a mistake, not something to send a model.
const maxResourceBytes = 8 << 20

// resource is a narrative file as resources/list lists it.
type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType"`
}

// resourceTemplate is a URI template of resources/templates/list.
type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType"`
}

// narrativeTemplate names every narrative file, listed or not (RFC 6570
// reserved expansion: the path keeps its slashes).
var narrativeTemplate = resourceTemplate{
	URITemplate: NarrativeScheme + "{+path}",
	Name:        "narrative",
	Title:       "ctx narrative file",
	Description: "A Markdown file of the store's narrative (.ctx/narrative/PATH): overview, decisions, logs, tasks, nodes.",
	MIMEType:    "text/markdown",
}

// resources lists the narrative's files as they are now, sorted by path.
func (s *Server) resources() ([]resource, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	files, err := r.Narrative().Files()
	if err != nil {
		return nil, err
	}
	out := make([]resource, len(files))
	for i, f := range files {
		desc := f.Role
		if f.Stream != "" && f.Stream != "main" {
			desc += " (" + f.Stream + ")"
		}
		out[i] = resource{URI: NarrativeScheme + f.Path, Name: f.Path, Description: desc, MIMEType: "text/markdown"}
	}
	return out, nil
}

// narrativeURIs lists the URIs of the narrative's files, sorted.
func (s *Server) narrativeURIs() ([]string, error) {
	list, err := s.resources()
	if err != nil {
		return nil, err
	}
	return uris(list), nil
}

// uris are the URIs of list, in its order.
func uris(list []resource) []string {
	out := make([]string, len(list))
	for i, r := range list {
		out[i] = r.URI
	}
	return out
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

// resourceContents is the text of a resource read.
type resourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Text     string `json:"text"`
}

// notFound is the error of a resource that does not exist: invalid
// params with the URI as data (SEP-2164; -32002 before it).
func notFound(uri string) *rpcError {
	data, err := marshal(struct {
		URI string `json:"uri"`
	}{uri})
	if err != nil {
		data = nil
	}
	return &rpcError{Code: codeInvalidParams, Message: "Resource not found", Data: data}
}

// readResource answers resources/read: the narrative file a URI names.
func (s *Server) readResource(params json.RawMessage) (any, *rpcError) {
	var p struct {
		URI string `json:"uri"`
	}
	if err := unmarshalParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == "" {
		return nil, errorf(codeInvalidParams, "invalid params: resources/read without a uri")
	}
	text, err := s.readNarrative(p.URI)
	if err != nil {
		var rpcErr *rpcError
		if errors.As(err, &rpcErr) {
			return nil, rpcErr
		}
		return nil, errorf(codeInternalError, "reading %s: %v", p.URI, err)
	}
	return struct {
		Contents []resourceContents `json:"contents"`
	}{[]resourceContents{{URI: p.URI, MIMEType: "text/markdown", Text: text}}}, nil
}

// readNarrative reads the narrative file uri names.
func (s *Server) readNarrative(uri string) (string, error) {
	p, err := narrativePath(uri)
	if err != nil {
		return "", notFound(uri)
	}
	r, err := s.open()
	if err != nil {
		return "", err
	}
	// os.Root refuses paths that leave the directory, through ".." or
	// through a symbolic link anywhere on the way.
	root, err := os.OpenRoot(r.Narrative().Root)
	if err != nil {
		return "", err
	}
	defer root.Close()
	// Not a FIFO's open, which would wait for a writer that never comes.
	f, err := regfile.OpenIn(root, filepath.FromSlash(p))
	if err != nil {
		return "", notFound(uri) // also a directory, a FIFO or a device
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return "", err
	case st.Size() > maxResourceBytes:
		return "", errorf(codeInvalidParams, "%s: %d bytes, more than the %d a resource read returns", uri, st.Size(), maxResourceBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return "", err
	}
	return string(b), nil
}
