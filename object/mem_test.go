package object

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestMemStoreCorrupt(t *testing.T) {
	m := NewMemStore()
	for _, payload := range [][]byte{nil, []byte("hello\n")} {
		id := mustPut(t, m, KindBlob, payload)
		if !m.Corrupt(id) {
			t.Fatal("Corrupt of a present object returned false")
		}
		if kind, got, err := m.Get(id); !errors.Is(err, ErrHashMismatch) || got != nil || kind != KindInvalid {
			t.Errorf("Get of a corrupted %d-byte object = %v, %q, %v; want ErrHashMismatch", len(payload), kind, got, err)
		}
		if ok, err := m.Has(id); !ok || err != nil {
			t.Errorf("Has of a corrupted object = %v, %v", ok, err)
		}
	}
	if m.Corrupt(testID("missing")) {
		t.Error("Corrupt of a missing object returned true")
	}
	if m.Len() != 2 {
		t.Errorf("Len() = %d, want 2", m.Len())
	}
}

func TestMemStorePutReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		size int64
		ok   bool
	}{
		{"Exact", "hello", 5, true},
		{"Empty", "", 0, true},
		{"Shorter", "hell", 5, false},
		{"Longer", "hello!", 5, false},
		{"Negative", "", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := NewMemStore()
			id, err := m.PutReader(KindBlob, strings.NewReader(tt.in), tt.size)
			if !tt.ok {
				if err == nil || m.Len() != 0 {
					t.Fatalf("PutReader = %s, %v; want an error and nothing stored", id, err)
				}
				return
			}
			if err != nil || id != Sum(KindBlob, []byte(tt.in)) {
				t.Fatalf("PutReader = %s, %v", id, err)
			}
			if _, got, err := m.Get(id); err != nil || !bytes.Equal(got, []byte(tt.in)) {
				t.Fatalf("Get = %q, %v", got, err)
			}
		})
	}
}
