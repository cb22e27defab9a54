package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"golang.org/x/term"

	"github.com/kubewalk/kubewalk/runtime/i18n"
	"github.com/kubewalk/kubewalk/runtime/record"
	"github.com/kubewalk/kubewalk/runtime/tui"
)

// defaultAutoDelay is how long --auto (without a value) pauses at each checkpoint in the
// full-screen UI.
const defaultAutoDelay = 3 * time.Second

// maxAutoDelay bounds --auto=DELAY: longer is a typo, not a demo.
const maxAutoDelay = time.Hour

// autoFlag is --auto[=DELAY]: a bare --auto turns it on with defaultAutoDelay (cobra's
// NoOptDefVal), --auto=5s or --auto=5 (seconds) sets the pause, --auto=false turns it off.
type autoFlag struct {
	on    bool
	delay time.Duration
}

func (a *autoFlag) Set(s string) error {
	switch s {
	case "true":
		a.on, a.delay = true, defaultAutoDelay
		return nil
	case "false":
		a.on, a.delay = false, 0
		return nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		secs, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return fmt.Errorf("%q is not a delay: write it like 3s, 500ms or 5 (seconds)", s)
		}
		d = time.Duration(secs * float64(time.Second))
	}
	if d <= 0 || d > maxAutoDelay {
		return fmt.Errorf("%q: the delay must be more than 0 and at most %s", s, maxAutoDelay)
	}
	a.on, a.delay = true, d
	return nil
}

func (a *autoFlag) String() string {
	if !a.on {
		return "false"
	}
	return a.delay.String()
}

// Type names the value in --help.
func (a *autoFlag) Type() string { return "DELAY" }

// startRecording creates --record's file, before anything is printed or the server starts: a
// bad path is reported at once and costs nothing. The header takes the terminal's size (80×24
// when stdout is not a terminal) and TERM, nothing else from the environment.
func startRecording(path string, tr *i18n.Strings) (*record.Recorder, error) {
	if path == "" {
		return nil, nil
	}
	w, h := 80, 24
	if fd := int(os.Stdout.Fd()); term.IsTerminal(fd) {
		if tw, th, err := term.GetSize(fd); err == nil {
			w, h = tw, th
		}
	}
	rec, err := record.Create(path, record.Options{Width: w, Height: h, Term: os.Getenv("TERM"), Title: "kubewalk tour"})
	if err != nil {
		return nil, fmt.Errorf(tr.ErrRecord, path, err)
	}
	return rec, nil
}

// endRecording closes the recording and says where it is (or that it is incomplete) on stderr,
// once the terminal is back to normal.
func endRecording(rec *record.Recorder, path string, tr *i18n.Strings, stderr io.Writer) {
	if rec == nil {
		return
	}
	if err := rec.Close(); err != nil {
		fmt.Fprintln(stderr, "kubewalk: "+fmt.Sprintf(tr.ErrRecordCut, path, err))
		return
	}
	fmt.Fprintln(stderr, "kubewalk: "+fmt.Sprintf(tr.CLIRecorded, path, path))
}

// tuiRecorder is rec as the TUI's Recorder: nil (not a nil pointer in an interface) when
// there is no recording.
func tuiRecorder(rec *record.Recorder) tui.Recorder {
	if rec == nil {
		return nil
	}
	return rec
}
