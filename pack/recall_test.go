package pack

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctx-dev/ctx/index"
	"github.com/ctx-dev/ctx/internal/clock"
	"github.com/ctx-dev/ctx/narrative"
	"github.com/ctx-dev/ctx/repo"
)

// TestMemoryRecall records twelve sessions of decisions and notes, a day
// apart, one decision superseded by a later one, and asks in other
// words about a decision of the second session: it must be among the
// first three narrative chunks, and the decision it superseded must not
// appear unless asked for.
func TestMemoryRecall(t *testing.T) {
	r := repo.NewTestRepo(t)
	ctx := context.Background()
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	sessions := [][]narrative.NewNode{
		{ // 1
			{Type: narrative.Decision, Content: "Leader election uses a Redis lock\n\nThe instance holding SETNX leader with a 30 s TTL runs the scheduler."},
			{Type: narrative.Observation, Content: "Staging has three instances behind the load balancer"},
		},
		{ // 2: supersedes the Redis lock (below)
			{Type: narrative.Decision, Content: "Leader election moves to PostgreSQL advisory locks\n\nEvery instance calls pg_try_advisory_lock(42) at startup; the one that gets it runs the job scheduler until it exits. No Redis dependency, and the lock dies with the connection."},
		},
		{ // 3
			{Type: narrative.Decision, Content: "Cache HTTP responses for five minutes\n\nThe catalogue changes hourly; a short TTL keeps pages fresh enough."},
			{Type: narrative.Observation, Content: "The cache hit rate is 80% after warm-up"},
		},
		{ // 4
			{Type: narrative.Decision, Content: "Structured logging with slog\n\nEvery log line is JSON with a request id, so that traces join across instances."},
		},
		{ // 5
			{Type: narrative.Decision, Content: "Version the public API in the path\n\n/v1/ and /v2/ live side by side for a release."},
			{Type: narrative.OpenQuestion, Content: "Should the scheduler UI show queued jobs?"},
		},
		{ // 6
			{Type: narrative.Decision, Content: "Retry outgoing webhooks with exponential backoff\n\nUp to five attempts, doubling from one second."},
		},
		{ // 7
			{Type: narrative.Observation, Content: "Deploys take eleven minutes, most of it in the image build"},
			{Type: narrative.Decision, Content: "Build images with a shared layer cache\n\nThe CI runner keeps the module cache between builds."},
		},
		{ // 8
			{Type: narrative.Decision, Content: "Metrics go to Prometheus, one registry per process"},
		},
		{ // 9
			{Type: narrative.Fact, Content: "The billing service owns invoices; we only read them"},
			{Type: narrative.Observation, Content: "Two instances ran the nightly report job twice last week"},
		},
		{ // 10
			{Type: narrative.Decision, Content: "Feature flags live in the config table, read at startup"},
		},
		{ // 11
			{Type: narrative.Decision, Content: "Graceful shutdown drains connections for ten seconds"},
		},
		{ // 12
			{Type: narrative.Observation, Content: "The scheduler's queue grows during the nightly import"},
		},
	}
	var redis, postgres *narrative.Node
	for i, nodes := range sessions {
		w, err := r.Lock(ctx, repo.LockOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sp := w.Narrative()
		sp.Clock = clock.Fixed(start.AddDate(0, 0, i))
		for _, in := range nodes {
			n, err := sp.Add(in)
			if err != nil {
				t.Fatal(err)
			}
			switch i {
			case 0:
				if in.Type == narrative.Decision {
					redis = n
				}
			case 1:
				postgres = n
				if _, err := sp.Change(redis, narrative.OpSupersede, string(postgres.ID)); err != nil {
					t.Fatal(err)
				}
			}
		}
		if _, err := w.Commit(ctx, repo.CommitOptions{Message: fmt.Sprintf("session %d", i+1)}); err != nil {
			t.Fatal(err)
		}
		w.Unlock()
	}
	ix, _, err := index.Open(ctx, r, index.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	cat, err := r.Narrative().Load()
	if err != nil {
		t.Fatal(err)
	}
	src := Source{Repo: r, Index: ix, Catalog: cat}
	now := start.AddDate(0, 0, 12)
	for _, q := range []string{
		"How do we decide which instance runs the scheduler?",
		"what replaced the Redis lock for electing the leader?",
	} {
		p, err := Build(ctx, src, q, Options{IncludeNarrative: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range p.Retrieved {
			if c.ChunkKind == Decision || c.ChunkKind == NarrativeExcerpt {
				got = append(got, c.Node)
			}
		}
		want := "decision:" + string(postgres.ID)
		found := false
		for i, n := range got {
			if n == want && i < 3 {
				found = true
			}
			if n == "decision:"+string(redis.ID) {
				t.Errorf("%q: the superseded decision is in the pack", q)
			}
		}
		if !found {
			t.Errorf("%q: the decision of session 2 is not in the first three: %v", q, got)
		}
		p, err = Build(ctx, src, q, Options{IncludeNarrative: true, IncludeSuperseded: true, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for _, c := range p.Retrieved {
			seen = seen || c.Node == "decision:"+string(redis.ID)
		}
		if !seen {
			t.Errorf("%q: with IncludeSuperseded, the superseded decision is missing", q)
		}
	}
}
