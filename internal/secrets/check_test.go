package secrets

import "testing"

// checkFindings checks what every result of Scan must satisfy: findings in
// order of Start, within content, not empty, not overlapping, of a known
// kind, with a reason and the right line number.
func checkFindings(tb testing.TB, content []byte, found []Finding) {
	tb.Helper()
	prevEnd, line, pos := 0, 1, 0
	for i, f := range found {
		if f.Start < prevEnd || f.Start >= f.End || f.End > len(content) {
			tb.Fatalf("finding %d %+v: bad range (previous ends at %d, content has %d bytes)", i, f, prevEnd, len(content))
		}
		prevEnd = f.End
		if !knownKinds[f.Kind] || f.Reason == "" {
			tb.Fatalf("finding %d %+v: unknown kind or no reason", i, f)
		}
		line += countNewlines(content[pos:f.Start])
		pos = f.Start
		if f.Line != line {
			tb.Fatalf("finding %d %+v: line %d, want %d", i, f, f.Line, line)
		}
	}
}

var knownKinds = map[Kind]bool{
	PrivateKey: true, Assignment: true, AWSAccessKeyID: true, AWSSecretAccessKey: true, GitHubToken: true, GitLabToken: true,
	SlackToken: true, SlackWebhook: true, StripeKey: true, GoogleAPIKey: true,
	OpenAIKey: true, AnthropicKey: true, NPMToken: true, JWT: true,
}

func countNewlines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
