package net

import (
	stdnet "net"

	"example.com/netlib/retry"
)

// Pool keeps a client per address; its fields' types are in client.go.
type Pool struct {
	primary *Client
	named   Named
	ring    *Ring[*Client]
	dialer  Dialer
}

// Named is a client with a name: its methods are Client's, promoted.
type Named struct {
	*Client
	Name string
}

// Ring is a generic ring of values.
type Ring[T any] struct {
	value T
	next  *Ring[T]
}

// Len counts the ring's values.
func (r *Ring[T]) Len() int {
	n := 1
	for p := r.next; p != nil && p != r; p = p.next {
		n++
	}
	return n
}

// Close closes every client: calls through fields declared in two files.
func (p *Pool) Close() error {
	p.primary.conn.Write(nil) // net.Conn.Write: Client.conn, in client.go
	p.primary.Backoff.Next(0) // retry.Backoff.Next
	p.named.Client.reset()    // an embedded field
	p.named.Connect()         // promoted: found by name
	_ = p.ring.next.Len()     // a generic type's field
	return p.primary.Close()  // Client.Close, not Pool.Close
}

// Get dials addr: parameters, named results and local declarations.
func (p *Pool) Get(addr string, d Dialer, v any) (c *Client, err error) {
	conn, err := d.Dial("tcp", addr) // a parameter of interface type
	if err != nil {
		return nil, err
	}
	conn.Close() // unknown type: by name, Client.Close or Pool.Close
	var b retry.Backoff
	b.Next(1)
	c = &Client{Addr: addr}
	x := new(Client)
	x.reset()
	y := Client{}
	y.reset()
	z := y.Backoff
	z.Next(2)
	if pc, ok := v.(*Pool); ok {
		pc.Close()
	}
	func(c stdnet.Conn) { c.Close() }(conn) // c shadowed: unknown
	c.Connect()
	return c, nil
}

// Each calls f on each value: T is a type parameter, not a type of the
// package.
func Each[T interface{ Len() int }](v T) int { return v.Len() }
