package secrets

import (
	"encoding/base64"
	"encoding/json"
)

// Matchers for token formats. Each is called at the offset where its prefix
// would start, checks the prefix, and then the body: its alphabet, its
// length, that it does not continue an identifier on either side, and that
// it is not a run of x's or zeros standing in for a real token in
// documentation.

// minTokenEntropy is the least entropy, in bits per byte, of a token body.
// "XXXX…" and "0000…" placeholders score 0; random bodies score about
// log2 of their length or of their alphabet, whichever is less, and the
// shortest, AWS's 16 characters out of 36, scored less than 2.25 in none
// of 200,000 trials (and less than 3.0 in one in 600).
const minTokenEntropy = 2.25

// tokenBody checks the body of a token whose prefix s[at:at+prefix] the
// caller has matched: at must start a word, and the body that follows must
// be minLen to maxLen bytes of class and random enough. It returns the end of the
// body.
func tokenBody(s []byte, at, prefix int, class uint8, minLen, maxLen int) (end int, ok bool) {
	if at > 0 && is(s[at-1], cAlnum) {
		return 0, false
	}
	p := at + prefix
	end = span(s, p, class, maxLen)
	if n := end - p; n < minLen || n > maxLen || end < len(s) && is(s[end], cAlnum) {
		return 0, false
	}
	if entropy(s[p:end]) < minTokenEntropy {
		return 0, false
	}
	return end, true
}

func matchAWSKeyID(sc *scanner, at int) {
	s := sc.s
	reason := "AWS access key id"
	switch {
	case hasAt(s, at, "AKIA"):
	case hasAt(s, at, "ASIA"):
		reason = "AWS temporary access key id"
	default:
		return
	}
	if end, ok := tokenBody(s, at, 4, cUpper|cDigit, 16, 16); ok {
		sc.add(Finding{Kind: AWSAccessKeyID, Start: at, End: end, Reason: reason})
	}
}

var gitHubReasons = map[byte]string{
	'p': "GitHub personal access token",
	'o': "GitHub OAuth access token",
	'u': "GitHub user-to-server token",
	's': "GitHub server-to-server token",
	'r': "GitHub refresh token",
}

func matchGitHub(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "gh") || len(s)-at < 4 || s[at+3] != '_' {
		return
	}
	reason, ok := gitHubReasons[s[at+2]]
	if !ok {
		return
	}
	// The classic format is 36 characters; GitHub reserves the right to
	// make tokens longer, up to 255 in all.
	if end, ok := tokenBody(s, at, 4, cAlnum, 36, 251); ok {
		sc.add(Finding{Kind: GitHubToken, Start: at, End: end, Reason: reason})
	}
}

func matchGitHubPAT(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "github_pat_") {
		return
	}
	// 22 characters, an underscore and 59 more today.
	if end, ok := tokenBody(s, at, 11, cAlnum|cUnder, 40, 244); ok {
		sc.add(Finding{Kind: GitHubToken, Start: at, End: end, Reason: "GitHub fine-grained personal access token"})
	}
}

func matchGitLab(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "glpat-") {
		return
	}
	if end, ok := tokenBody(s, at, 6, cBase64URL, 20, 249); ok {
		sc.add(Finding{Kind: GitLabToken, Start: at, End: end, Reason: "GitLab personal access token"})
	}
}

var slackReasons = map[byte]string{
	'b': "Slack bot token",
	'p': "Slack user token",
	'a': "Slack app token",
	'r': "Slack refresh token",
	's': "Slack session token",
}

func matchSlackToken(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "xox") || len(s)-at < 5 || s[at+4] != '-' {
		return
	}
	reason, ok := slackReasons[s[at+3]]
	if !ok {
		return
	}
	// xoxb-<team>-<bot>-<secret>: digits, dashes, and at least 20 in all.
	end, ok := tokenBody(s, at, 5, cAlnum|cDash, 20, 250)
	if !ok || !hasClass(s[at+5:end], cDigit) {
		return
	}
	sc.add(Finding{Kind: SlackToken, Start: at, End: end, Reason: reason})
}

func matchSlackWebhook(sc *scanner, at int) {
	s := sc.s
	const host = "hooks.slack.com/services/"
	if !hasAt(s, at, host) {
		return
	}
	// services/T<team>/B<bot>/<secret>
	p := at + len(host)
	for _, part := range []struct {
		lead  byte
		class uint8
		min   int
	}{{'T', cUpper | cDigit, 6}, {'B', cUpper | cDigit, 6}, {0, cAlnum, 16}} {
		if part.lead != 0 {
			if p >= len(s) || s[p] != part.lead {
				return
			}
		}
		e := span(s, p, part.class, 64)
		if e-p < part.min || e-p > 64 || part.lead == 0 && entropy(s[p:e]) < minTokenEntropy {
			return
		}
		p = e
		if part.lead != 0 {
			if p >= len(s) || s[p] != '/' {
				return
			}
			p++
		}
	}
	// The finding starts at the host, not at the "https://" before it:
	// what comes before an anchor may belong to a finding that wins over
	// this one (a base64url run swallows "https"), and then this one must
	// not reappear once that one is redacted.
	sc.add(Finding{Kind: SlackWebhook, Start: at, End: p, Reason: "Slack incoming webhook URL"})
}

func matchStripe(sc *scanner, at int) {
	s := sc.s
	var reason string
	switch {
	case hasAt(s, at, "sk_live_"):
		reason = "Stripe live secret key"
	case hasAt(s, at, "rk_live_"):
		reason = "Stripe live restricted key"
	default:
		return
	}
	if end, ok := tokenBody(s, at, 8, cAlnum, 16, 247); ok {
		sc.add(Finding{Kind: StripeKey, Start: at, End: end, Reason: reason})
	}
}

func matchGoogleAPIKey(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "AIza") {
		return
	}
	if end, ok := tokenBody(s, at, 4, cBase64URL, 35, 35); ok {
		sc.add(Finding{Kind: GoogleAPIKey, Start: at, End: end, Reason: "Google API key"})
	}
}

// matchSK finds OpenAI (sk-…, sk-proj-…) and Anthropic (sk-ant-…) keys.
// "sk-" alone is a weak prefix ("task-", "disk-" are excluded by the word
// boundary, but "sk-learn" is not), so the body must be long and mix
// digits with upper and lower case, as random base62 does.
func matchSK(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "sk-") || at > 0 && (s[at-1] == '-' || s[at-1] == '_') {
		return
	}
	kind, reason, prefix := OpenAIKey, "OpenAI API key", 3
	if hasAt(s, at+3, "ant-") {
		kind, reason, prefix = AnthropicKey, "Anthropic API key", 7
	}
	end, ok := tokenBody(s, at, prefix, cBase64URL, 32, 255-prefix)
	if !ok {
		return
	}
	body := s[at+prefix : end]
	if !hasClass(body, cDigit) || !hasClass(body, cUpper) || !hasClass(body, cLower) || entropy(body) < 3.5 {
		return
	}
	sc.add(Finding{Kind: kind, Start: at, End: end, Reason: reason})
}

func matchNPM(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "npm_") {
		return
	}
	if end, ok := tokenBody(s, at, 4, cAlnum, 36, 36); ok {
		sc.add(Finding{Kind: NPMToken, Start: at, End: end, Reason: "npm access token"})
	}
}

// matchJWT finds a JSON Web Token (RFC 7519): base64url segments separated
// by dots, the first of which decodes to a JSON object with an "alg" member
// (RFC 7515 §4.1.1). Every JWT header begins with `{"`, which is why its
// encoding begins with "eyJ". The signature may be empty (alg "none"); a
// JWE has five segments and all of them are taken.
func matchJWT(sc *scanner, at int) {
	s := sc.s
	if !hasAt(s, at, "eyJ") || at > 0 && is(s[at-1], cBase64URL|cDot) {
		return
	}
	const maxHeader = 2048
	e := span(s, at, cBase64URL, maxHeader)
	if e-at < 10 || e-at > maxHeader || e >= len(s) || s[e] != '.' {
		return
	}
	header := s[at:e]
	// The payload must be there before the header is worth decoding.
	p := e + 1
	end := span(s, p, cBase64URL, 1<<20)
	if end-p < 2 || end >= len(s) || s[end] != '.' {
		return
	}
	buf := make([]byte, base64.RawURLEncoding.DecodedLen(len(header)))
	n, err := base64.RawURLEncoding.Decode(buf, header)
	if err != nil {
		return
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(buf[:n], &h) != nil {
		return
	}
	if _, ok := h["alg"]; !ok {
		return
	}
	end = span(s, end+1, cBase64URL, 1<<20) // the signature, empty for alg "none"
	// A JWE goes on with the ciphertext and the tag.
	if end < len(s) && s[end] == '.' {
		e4 := span(s, end+1, cBase64URL, 1<<20)
		if e4 < len(s) && s[e4] == '.' {
			if e5 := span(s, e4+1, cBase64URL, 1<<20); e5 > e4+1 {
				end = e5
			}
		}
	}
	sc.add(Finding{Kind: JWT, Start: at, End: end, Reason: "JSON Web Token"})
}

func hasClass(b []byte, class uint8) bool {
	for _, c := range b {
		if is(c, class) {
			return true
		}
	}
	return false
}
