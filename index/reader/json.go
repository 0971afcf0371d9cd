package reader

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// errNotJSON is a score JSON cannot hold (NaN or an infinity).
var errNotJSON = errors.New("index: a score JSON cannot hold")

// AppendJSON appends res as ctx prints JSON: as encoding/json's encoder
// does, indented by two spaces, HTML characters not escaped, a newline
// after, byte for byte (TestAppendJSON compares them); by hand, so that
// the front end links no reflection.
func AppendJSON(b []byte, res Result) ([]byte, error) {
	b = append(b, "{\n  \"query\": "...)
	b = appendJSONString(b, res.Query)
	b = append(b, ",\n  \"matched\": "...)
	b = strconv.AppendInt(b, int64(res.Matched), 10)
	b = append(b, ",\n  \"hits\": "...)
	switch {
	case res.Hits == nil:
		b = append(b, "null"...)
	case len(res.Hits) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, h := range res.Hits {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    {\n      \"kind\": "...)
			b = appendJSONString(b, h.Kind)
			b = append(b, ",\n      \"node\": "...)
			b = appendJSONString(b, h.Node)
			b = append(b, ",\n      \"title\": "...)
			b = appendJSONString(b, h.Title)
			if h.Path != "" {
				b = append(b, ",\n      \"path\": "...)
				b = appendJSONString(b, h.Path)
			}
			if h.StartLine != 0 {
				b = append(b, ",\n      \"start_line\": "...)
				b = strconv.AppendUint(b, uint64(h.StartLine), 10)
			}
			if h.EndLine != 0 {
				b = append(b, ",\n      \"end_line\": "...)
				b = strconv.AppendUint(b, uint64(h.EndLine), 10)
			}
			b = append(b, ",\n      \"score\": "...)
			if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
				return b, errNotJSON
			}
			b = appendJSONFloat(b, h.Score)
			b = append(b, ",\n      \"snippet\": "...)
			b = appendJSONString(b, h.Snippet)
			if len(h.Tags) > 0 {
				b = append(b, ",\n      \"tags\": ["...)
				for j, t := range h.Tags {
					if j > 0 {
						b = append(b, ',')
					}
					b = append(b, "\n        "...)
					b = appendJSONString(b, t)
				}
				b = append(b, "\n      ]"...)
			}
			b = append(b, "\n    }"...)
		}
		b = append(b, "\n  ]"...)
	}
	return append(b, "\n}\n"...), nil
}

// appendJSONFloat appends a finite f as encoding/json writes a float64:
// the shortest decimal that reads back the same, in exponent form below
// 1e-6 or from 1e21, with a one-digit negative exponent kept short.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// appendJSONString appends s quoted as encoding/json does without HTML
// escaping: '"', '\\' and control characters escaped (\b, \f, \n, \r,
// \t, else \u00XX), invalid UTF-8 as \ufffd, U+2028 and U+2029 as \u
// escapes (JavaScript reads them as line ends).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
