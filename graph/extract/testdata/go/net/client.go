// Package net dials servers with retries.
package net

import (
	"errors"
	stdnet "net"
	"time"

	"example.com/netlib/retry"
)

// ErrTimeout is returned when every attempt failed.
var ErrTimeout = errors.New("net: timeout")

// DefaultAttempts is how often Connect tries.
const DefaultAttempts = 5

// Client connects to one address.
type Client struct {
	Addr    string
	Backoff retry.Backoff
	conn    stdnet.Conn
}

// Dialer opens connections.
type Dialer interface {
	Dial(network, addr string) (stdnet.Conn, error)
}

// New returns a client for addr.
func New(addr string) *Client {
	return &Client{Addr: addr, Backoff: retry.Default()}
}

// Connect dials with backoff until it succeeds or gives up.
func (c *Client) Connect() error {
	for i := 0; i < DefaultAttempts; i++ {
		conn, err := stdnet.DialTimeout("tcp", c.Addr, time.Second)
		if err == nil {
			c.conn = conn
			return nil
		}
		time.Sleep(c.Backoff.Next(i))
	}
	c.reset()
	return ErrTimeout
}

func (c *Client) reset() { c.conn = nil }

func helper(d Dialer) (stdnet.Conn, error) {
	return d.Dial("tcp", "localhost:1")
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }
