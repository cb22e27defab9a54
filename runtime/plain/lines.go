package plain

import (
	"bufio"
	"context"
	"io"
	"strings"
)

// Lines reads answers to prompts one line at a time on a background goroutine, so that a prompt
// gives up as soon as its context ends (Ctrl-C) instead of waiting for Enter. It reads only when
// a prompt asks: nothing typed ahead is taken from the input before that, which leaves the
// terminal to whatever runs next (the full-screen UI). Use one Lines for every prompt of a run:
// a line typed after an abandoned prompt is then kept for the next one. Lines is for one
// goroutine at a time; the background read of an abandoned prompt stays blocked until a line or
// the end of the input arrives.
type Lines struct {
	ask     chan struct{}
	got     chan lineResult
	pending bool
}

type lineResult struct {
	line string
	err  error
}

// NewLines reads lines from r; a nil r is an empty input.
func NewLines(r io.Reader) *Lines {
	if r == nil {
		r = strings.NewReader("")
	}
	l := &Lines{ask: make(chan struct{}), got: make(chan lineResult)}
	go func() {
		br := bufio.NewReader(r)
		for range l.ask {
			line, err := br.ReadString('\n')
			l.got <- lineResult{line, err}
		}
	}()
	return l
}

// ReadLine waits for the next line and returns it without its line ending. At the end of the
// input it returns the partial line, if any, and io.EOF; when ctx ends first, ctx's error.
func (l *Lines) ReadLine(ctx context.Context) (string, error) {
	if !l.pending {
		select {
		case l.ask <- struct{}{}:
			l.pending = true
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
	select {
	case r := <-l.got:
		l.pending = false
		return strings.TrimRight(r.line, "\r\n"), r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
