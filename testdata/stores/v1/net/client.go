// Package net is the networking core of netlib.
package net

import (
	"context"
	"errors"
	"net"
	"time"

	"example.com/netlib/retry"
)

// ErrTimeout is returned when every connection attempt timed out.
var ErrTimeout = errors.New("net: connection timed out")

// Client dials a server with retries.
type Client struct {
	Addr    string
	Timeout time.Duration
	Backoff retry.Backoff
}

// Connect dials c.Addr, retrying with exponential backoff.
func (c *Client) Connect(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	for attempt := 0; ; attempt++ {
		dctx, cancel := context.WithTimeout(ctx, c.Timeout)
		conn, err := d.DialContext(dctx, "tcp", c.Addr)
		cancel()
		if err == nil {
			return conn, nil
		}
		wait, ok := c.Backoff.Next(attempt)
		if !ok {
			return nil, ErrTimeout
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}
