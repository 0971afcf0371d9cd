package diag

import (
	"encoding/json"
	"strings"
)

// looksLikeVetJSON reports whether the output has go vet -json's shape: a
// "{" line followed by a package key.
func looksLikeVetJSON(lines []string) bool {
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] == "{" && strings.HasPrefix(lines[i+1], "\t\"") && strings.HasSuffix(lines[i+1], "{") {
			return true
		}
	}
	return false
}

// vetDiag is one finding in go vet -json output.
type vetDiag struct {
	Posn    string `json:"posn"`
	End     string `json:"end"`
	Message string `json:"message"`
}

// vetJSON reads the go vet -json object that starts at line i ("{") and
// returns the index of its last line. Its layout is
// {"pkg": {"analyzer": [findings] or {"error": "…"}}}; keys are read in
// order, so that diagnostics keep the output's order.
func (g *goParser) vetJSON(i int) int {
	end := i
	for end < len(g.lines) && g.lines[end] != "}" {
		end++
	}
	if end == len(g.lines) {
		end--
	}
	dec := json.NewDecoder(strings.NewReader(strings.Join(g.lines[i:end+1], "\n")))
	next := i // findings are searched for from here
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return end
	}
	for dec.More() {
		pkgTok, err := dec.Token()
		if err != nil {
			return end
		}
		pkg, _ := pkgTok.(string)
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return end
		}
		for dec.More() {
			aTok, err := dec.Token()
			if err != nil {
				return end
			}
			analyzer, _ := aTok.(string)
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return end
			}
			var ds []vetDiag
			var e struct{ Error string }
			switch {
			case json.Unmarshal(raw, &ds) == nil:
				for _, v := range ds {
					d := Diagnostic{Severity: SeverityWarning, Code: analyzer, Message: v.Message}
					d.Path, d.Line, d.Col = splitPos(v.Posn)
					_, d.EndLine, d.EndCol = splitPos(v.End)
					at := g.find(next, end, `"posn": `+quote(v.Posn))
					next = at
					g.learnDir(pkg, d.Path)
					g.c.add(d, at, min(at+2, end))
				}
			case json.Unmarshal(raw, &e) == nil && e.Error != "":
				at := g.find(next, end, `"error": `)
				g.c.add(Diagnostic{Severity: SeverityError, Code: analyzer, Message: e.Error}, at, at)
			}
		}
		if _, err := dec.Token(); err != nil {
			return end
		}
	}
	return end
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// find returns the first line in [from, to] that contains sub after its
// indentation, or from.
func (g *goParser) find(from, to int, sub string) int {
	for k := from; k <= to && k < len(g.lines); k++ {
		if strings.Contains(g.lines[k], sub) {
			return k
		}
	}
	return from
}

// splitPos splits "file:line:col" (or "file:line").
func splitPos(s string) (file string, line, col int) {
	parts := strings.Split(s, ":")
	nums := 0
	for k := len(parts) - 1; k > 0 && nums < 2 && isDigits(parts[k]); k-- {
		nums++
	}
	switch nums {
	case 2:
		return strings.Join(parts[:len(parts)-2], ":"), atoi(parts[len(parts)-2]), atoi(parts[len(parts)-1])
	case 1:
		return strings.Join(parts[:len(parts)-1], ":"), atoi(parts[len(parts)-1]), 0
	}
	return s, 0, 0
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
