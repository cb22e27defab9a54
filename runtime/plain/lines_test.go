package plain

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// TestLinesCancel checks that a prompt ends with its context while the input has nothing to
// read, and that the line typed afterwards goes to the next prompt.
func TestLinesCancel(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	l := NewLines(r)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.ReadLine(ctx)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("ReadLine after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("ReadLine did not return when its context ended")
	}

	go w.Write([]byte("a\r\nb\n"))
	for _, want := range []string{"a", "b"} {
		got, err := l.ReadLine(context.Background())
		if err != nil || got != want {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	w.Close()
	if got, err := l.ReadLine(context.Background()); !errors.Is(err, io.EOF) || got != "" {
		t.Fatalf("ReadLine at the end = %q, %v; want io.EOF", got, err)
	}
}
