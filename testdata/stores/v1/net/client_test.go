package net

import (
	"context"
	"testing"
	"time"

	"example.com/netlib/retry"
)

func TestConnectGivesUp(t *testing.T) {
	c := &Client{Addr: "127.0.0.1:1", Timeout: 10 * time.Millisecond, Backoff: retry.Backoff{Max: 2, Initial: time.Millisecond}}
	if _, err := c.Connect(context.Background()); err != ErrTimeout {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
}
