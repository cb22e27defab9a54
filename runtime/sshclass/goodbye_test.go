package sshclass

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestGoodbyeScreen: when the class stops, each student sees a goodbye screen in their
// language — the class has ended, the name their progress is saved under, a countdown — after
// their tour has stopped; a key closes it (the class log says which way it closed), and a
// student who presses nothing is let go when the time is up.
func TestGoodbyeScreen(t *testing.T) {
	for _, tc := range []struct {
		lang   string
		key    bool
		wait   time.Duration
		ended  string
		saved  string
		closes string
	}{
		{"en_US.UTF-8", true, time.Minute, english.GoodbyeEnded, fmt.Sprintf(english.GoodbyeSaved, "alice"), "Press any key, or the connection closes in"},
		{"zh_CN.UTF-8", true, time.Minute, chinese.GoodbyeEnded, fmt.Sprintf(chinese.GoodbyeSaved, "alice"), "按任意键，或者连接将在"},
		{"en_US.UTF-8", false, time.Second, english.GoodbyeEnded, fmt.Sprintf(english.GoodbyeSaved, "alice"), "the connection closes in 1 s"},
	} {
		t.Run(fmt.Sprintf("%s key=%v", tc.lang, tc.key), func(t *testing.T) {
			c := startClass(t, "tour", Config{})
			c.srv.goodbyeWait = tc.wait
			client, err := c.dial("alice")
			if err != nil {
				t.Fatal(err)
			}
			defer client.Close()
			a := open(t, client, 80, 24, map[string]string{"LANG": tc.lang}, "")
			a.waitOutput(t, "ready", bound)
			ss := c.waitSessions(t, 1, bound)
			ctx, cancel := context.WithTimeout(context.Background(), bound+tc.wait)
			defer cancel()
			closed := make(chan error, 1)
			go func() { closed <- c.srv.Close(ctx) }()
			out := a.waitOutput(t, tc.closes, bound)
			// The tour has stopped before the screen shows: its process and files are gone.
			waitGone(t, ss[0].PID, ss[0].Dir, bound)
			for _, want := range []string{tc.ended, tc.saved} {
				if !strings.Contains(out, want) {
					t.Errorf("the goodbye screen lacks %q:\n%s", want, out)
				}
			}
			if tc.key {
				if _, err := a.in.Write([]byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			if err := <-closed; err != nil {
				t.Fatal(err)
			}
			a.wait(t, bound)
			how := fmt.Sprintf("alice: goodbye screen shown for %s", tc.wait)
			if tc.key {
				how = "alice: goodbye screen closed with a key"
			}
			if !strings.Contains(c.log.String(), how) {
				t.Errorf("the class log lacks %q:\n%s", how, c.log)
			}
		})
	}
}
