package net_test

import (
	"testing"

	"example.com/netlib/net"
)

func TestNew(t *testing.T) {
	c := net.New("localhost:1")
	if c.Addr == "" {
		t.Fatal("no address")
	}
}
