// Package classroom is the follow-along channel of a kubewalk workshop: one instructor host and
// many students. The host listens with TLS (a per-class self-signed ECDSA P-256 certificate),
// admits students who present the class's join code, keeps a board of their progress, and
// pushes the instructor's checkpoint and one-line messages to every student. A student
// verifies the host by the certificate fingerprint carried in the join code, follows the
// instructor's checkpoint (or detaches and re-syncs), reports its own progress and stuck flag,
// and reconnects on its own when the connection drops.
//
// Both ends have a context-based lifecycle in the style of etcd's embed package: StartHost and
// Join return once the work is started, Ready closes when it is usable, Done when it has ended,
// and Stop ends it. Neither end prints: diagnostics go to a Logf callback.
//
// The wire protocol (JSON lines, at most maxLine bytes each, every line carrying the protocol
// version) and the threat model are described in docs/classroom.md.
package classroom

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ProtocolVersion is the version of the class channel's messages. Both ends must speak the
// same version; a peer that does not is told so in an error line whose shape (fields v, t and
// err) every version keeps.
const ProtocolVersion = 1

// Limits on what crosses the wire and what is shown on a terminal.
const (
	// maxLine bounds one message, newline included; a longer line ends the connection.
	maxLine = 4096
	// MaxNameRunes bounds a student's display name.
	MaxNameRunes = 24
	// MaxMessageRunes bounds the instructor's one-line message.
	MaxMessageRunes = 200
	// maxFieldRunes bounds a checkpoint's phase and ID.
	maxFieldRunes = 64
	// keepMessages is how many recent messages a student keeps for its screen.
	keepMessages = 8
)

// Message types (the "t" field).
const (
	tHello      = "hello"      // student → host: first line
	tWelcome    = "welcome"    // host → student: admitted
	tProgress   = "progress"   // student → host: own checkpoint, exercises, stuck, following
	tCheckpoint = "checkpoint" // host → student: the instructor's checkpoint
	tMessage    = "message"    // host → student: a one-line broadcast
	tPing       = "ping"       // both ways: heartbeat
	tError      = "error"      // host → student: refused or told to go; the connection ends
	tBye        = "bye"        // either way: closing on purpose
	tAssign     = "assign"     // host → student: the exercise the instructor assigned to the class
)

// Error codes carried in an error line's err.code.
const (
	codeVersion     = "version"
	codeWrongCode   = "wrong_code"
	codeRateLimited = "rate_limited"
	codeFull        = "class_full"
	codeBadRequest  = "bad_request"
	codeReplaced    = "replaced"
	codeShutdown    = "shutdown"
)

// Sentinel errors a Student reports (wrapped, with the host's explanation); test with errors.Is.
var (
	// ErrVersion: the host and the student speak different protocol versions. Fatal.
	ErrVersion = errors.New("classroom: protocol version mismatch")
	// ErrWrongCode: the host refused the join code. Fatal.
	ErrWrongCode = errors.New("classroom: wrong join code")
	// ErrRateLimited: too many wrong codes from this address (or in total); retried later.
	ErrRateLimited = errors.New("classroom: too many wrong join codes")
	// ErrFingerprint: the host's certificate does not match the join code's fingerprint on the
	// first connection (a mistyped code, or someone intercepting). Fatal.
	ErrFingerprint = errors.New("classroom: host certificate does not match the join code")
	// ErrHostChanged: the host came back with a different certificate after the student had
	// been connected (it restarted without a persisted identity). Fatal: the instructor shows
	// a new join line.
	ErrHostChanged = errors.New("classroom: the class host restarted with a new certificate")
	// ErrClassFull: the host admits no more students; retried later.
	ErrClassFull = errors.New("classroom: the class is full")
	// ErrBadJoinCode: the join code is malformed (caught before any connection).
	ErrBadJoinCode = errors.New("classroom: malformed join code")
	// ErrProtocol: the peer sent something this version cannot understand.
	ErrProtocol = errors.New("classroom: protocol error")
	// ErrHostStopped: the host ended the class or is restarting; retried.
	ErrHostStopped = errors.New("classroom: the class host stopped")
)

// Checkpoint is a position in the course: the phase, the startup checkpoint's ID
// ("phase/name") and an ordinal that only grows, so that a follower never goes back. Once the
// server serves, ID stays the last startup checkpoint and Served is set; a step of the
// after-serve track is named in Step ("lesson/step"). A follower of an earlier build, which
// reads only the ID, then runs to the last checkpoint. The zero Checkpoint (empty ID) means
// "none yet".
type Checkpoint struct {
	Phase   string `json:"phase"`
	ID      string `json:"id"`
	Ordinal int    `json:"ord"`
	// Served is set once the startup has run to its end and the server serves.
	Served bool `json:"served,omitempty"`
	// Step is the after-serve track step ("lesson/step"), "" outside the track.
	Step string `json:"step,omitempty"`
}

// IsZero reports whether c is "no checkpoint".
func (c Checkpoint) IsZero() bool { return c.ID == "" }

// advances reports whether c is a checkpoint to move to from cur: any checkpoint when cur is
// none, otherwise only a larger ordinal.
func (c Checkpoint) advances(cur Checkpoint) bool {
	if c.IsZero() {
		return false
	}
	return cur.IsZero() || c.Ordinal > cur.Ordinal
}

func (c Checkpoint) clean() Checkpoint {
	c.Phase = cleanText(c.Phase, maxFieldRunes)
	c.ID = cleanText(c.ID, maxFieldRunes)
	c.Step = cleanText(c.Step, maxFieldRunes)
	if c.Ordinal < 0 {
		c.Ordinal = 0
	}
	return c
}

// Progress is what a student reports about itself.
type Progress struct {
	// Checkpoint is where the student's own tour is.
	Checkpoint Checkpoint `json:"cp"`
	// Done counts exercises the student has completed.
	Done int `json:"done"`
	// Stuck is raised (and lowered) by the student.
	Stuck bool `json:"stuck"`
	// Following is false while the student has detached to go at its own pace.
	Following bool `json:"following"`
	// Exercise is the student's state on the exercise the instructor assigned (Exercise.ID
	// empty: none assigned, or not reported).
	Exercise ExerciseProgress `json:"ex"`
}

// Exercise states a student reports for the assigned exercise (ExerciseProgress.State).
const (
	// ExerciseLocked: the student's tour has not reached the exercise's lesson yet.
	ExerciseLocked = "locked"
	// ExerciseOpen: the exercise can be done; the student has not tried it.
	ExerciseOpen = "open"
	// ExerciseTrying: the student has opened it, asked for a hint or given a wrong answer.
	ExerciseTrying = "trying"
	// ExerciseDone: done.
	ExerciseDone = "done"
)

// ExerciseProgress is a student's state on one exercise: its ID, one of the Exercise* states
// and how many hints the student has revealed.
type ExerciseProgress struct {
	ID    string `json:"id,omitempty"`
	State string `json:"state,omitempty"`
	Hints int    `json:"hints,omitempty"`
}

func (e ExerciseProgress) clean() ExerciseProgress {
	e.ID = cleanText(e.ID, maxFieldRunes)
	switch e.State {
	case ExerciseLocked, ExerciseOpen, ExerciseTrying, ExerciseDone:
	default:
		e.State = ""
	}
	e.Hints = min(max(e.Hints, 0), 99)
	if e.ID == "" {
		e = ExerciseProgress{}
	}
	return e
}

func (p Progress) clean() Progress {
	p.Checkpoint = p.Checkpoint.clean()
	if p.Done < 0 {
		p.Done = 0
	}
	p.Exercise = p.Exercise.clean()
	return p
}

// Assignment is the exercise the instructor assigned to the class (an empty ID takes the
// assignment back). Seq numbers the host's assignments from 1; with Instance it identifies
// one, so that a student shows a new assignment once.
type Assignment struct {
	ID       string    `json:"id"`
	Seq      int       `json:"seq"`
	At       time.Time `json:"at"`
	Instance string    `json:"inst,omitempty"`
}

// IsZero reports whether a is "no assignment yet" (not even one taken back).
func (a Assignment) IsZero() bool { return a.Seq == 0 }

// Message is one line the instructor sent to the class.
type Message struct {
	// Seq numbers the host's messages from 1; with Instance it identifies one message.
	Seq  int       `json:"seq"`
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	// Instance identifies the host run that sent it (a restarted host numbers afresh).
	Instance string `json:"inst,omitempty"`
}

// wireError is the body of an error line.
type wireError struct {
	Code string `json:"code"`
	Text string `json:"text"`
	// RetryMS is set with rate_limited: how long to wait before trying again.
	RetryMS int64 `json:"retry_ms,omitempty"`
}

// envelope is every line on the wire. V and T (and Err for t=error) keep their meaning in all
// protocol versions, so that any two versions can at least tell each other they differ.
type envelope struct {
	V int    `json:"v"`
	T string `json:"t"`

	// hello
	Name    string `json:"name,omitempty"`
	Code    string `json:"code,omitempty"`
	App     string `json:"app,omitempty"` // kubewalk version of the sender
	Session string `json:"session,omitempty"`
	// Beat is the sender's heartbeat in milliseconds (hello, welcome): each side allows three
	// of the slower of the two heartbeats of silence.
	Beat int64 `json:"beat_ms,omitempty"`

	// hello and progress
	Progress *Progress `json:"progress,omitempty"`

	// welcome
	Title    string `json:"title,omitempty"`
	Instance string `json:"inst,omitempty"`

	// welcome and checkpoint
	Checkpoint *Checkpoint `json:"cp,omitempty"`
	// welcome (latest) and message
	Message *Message `json:"msg,omitempty"`
	// welcome (current) and assign
	Assign *Assignment `json:"assign,omitempty"`

	// error and bye
	Err *wireError `json:"err,omitempty"`
}

// errLineTooLong is returned for a line longer than maxLine.
var errLineTooLong = fmt.Errorf("%w: message longer than %d bytes", ErrProtocol, maxLine)

// readEnvelope reads one line. It checks the version before decoding the rest, so that a line
// from another version whose other fields differ still yields a version answer, not a decode
// error. An error line is returned whatever its version.
func readEnvelope(br *bufio.Reader) (envelope, []byte, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return envelope{}, nil, errLineTooLong
	}
	if err != nil {
		return envelope{}, nil, err
	}
	var head struct {
		V int    `json:"v"`
		T string `json:"t"`
	}
	if err := json.Unmarshal(line, &head); err != nil {
		return envelope{}, nil, fmt.Errorf("%w: not a JSON line: %v", ErrProtocol, err)
	}
	env := envelope{V: head.V, T: head.T}
	if head.V != ProtocolVersion && head.T != tError {
		// The caller answers with a version error; keep the line for nothing else.
		return env, line, nil
	}
	if err := json.Unmarshal(line, &env); err != nil {
		return envelope{}, nil, fmt.Errorf("%w: bad %q line: %v", ErrProtocol, head.T, err)
	}
	return env, line, nil
}

// appendEnvelope appends env as one line to buf.
func appendEnvelope(buf []byte, env envelope) ([]byte, error) {
	b, err := json.Marshal(env)
	if err != nil {
		return buf, fmt.Errorf("classroom: encode %q: %w", env.T, err)
	}
	if len(b)+1 > maxLine {
		return buf, fmt.Errorf("%w: %q line of %d bytes exceeds %d", ErrProtocol, env.T, len(b)+1, maxLine)
	}
	buf = append(buf, b...)
	return append(buf, '\n'), nil
}

// cleanText makes s safe to show on a terminal in one line: control and format characters
// (escape sequences, bidi overrides, zero-width characters) are dropped, runs of white space
// become one space, invalid UTF-8 is replaced, and the result is cut to max runes.
func cleanText(s string, max int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || !unicode.IsPrint(r) {
			continue
		}
		if space {
			if n+1 >= max {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		if n >= max {
			break
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
