package sshclass

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/charmbracelet/ssh"
)

// GoodbyeWait is how long a student's goodbye screen stays up when the class stops (a key
// closes it sooner). A class's Close must allow for it, beside the tour's StopBound.
const GoodbyeWait = 5 * time.Second

// goodbyeFor is how long the goodbye screen stays up: GoodbyeWait unless a test set another.
func (s *Server) goodbyeFor() time.Duration {
	if s.goodbyeWait > 0 {
		return s.goodbyeWait
	}
	return GoodbyeWait
}

// goodbye shows the screen a student sees when the class stops: the class has ended, their
// progress is kept under their name (connecting again under it goes on where they were), and
// the connection closes at a key press or after GoodbyeWait, counted down. keyed closes at the
// next key (the session's input reader ends once the tour's terminal is gone); it also
// returns when the connection closes. below says the screen follows other lines (a crash
// report, notes) that must stay: it is then written under them instead of on a clear screen.
func (s *Server) goodbye(sess ssh.Session, tr *messages, id int64, user string, keyed <-chan struct{}, below bool) {
	lines := []string{"", "  " + tr.GoodbyeTitle, "", "  " + tr.GoodbyeEnded, "  " + fmt.Sprintf(tr.GoodbyeSaved, user), ""}
	var b strings.Builder
	if !below {
		b.WriteString("\x1b[2J\x1b[H") // a clear screen, the cursor home
	}
	b.WriteString(strings.Join(lines, "\r\n") + "\r\n")
	if _, err := io.WriteString(sess, b.String()); err != nil {
		return
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for left := int(s.goodbyeFor() / time.Second); left > 0; left-- {
		// The countdown rewrites its own line.
		if _, err := io.WriteString(sess, "\r\x1b[2K  "+fmt.Sprintf(tr.GoodbyeClose, left)); err != nil {
			return
		}
		select {
		case <-keyed:
			io.WriteString(sess, "\r\n")
			s.logf("session %d %s: goodbye screen closed with a key", id, user)
			return
		case <-sess.Context().Done():
			return
		case <-tick.C:
		}
	}
	io.WriteString(sess, "\r\n")
	s.logf("session %d %s: goodbye screen shown for %s", id, user, s.goodbyeFor())
}
