package kubectl

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"

	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// kubectl ends the process on an error: cmdutil.CheckErr calls the process-wide fatal-error
// handler (cmdutil.BehaviorOnFatal), whose default prints and calls os.Exit. Two commands may
// run at once (a command beside an open watch, see Run), so the handler cannot be set per
// command: a variable that one command's start writes while the other's CheckErr reads it
// would be a data race, and the handler of the wrong run could end a command. Instead one
// handler, installed before the first command and never changed, routes each call to the run
// of the goroutine that calls it (execute registers its goroutine while it runs).

var fatalRoutes struct {
	once sync.Once
	mu   sync.Mutex
	byG  map[uint64]*runState
	live []*runState // the registered runs, in the order they started
}

// routeFatal registers the calling goroutine (execute's) as running st, installing the
// handler on first use, and returns the func that unregisters it.
func routeFatal(st *runState) (unregister func()) {
	fatalRoutes.once.Do(func() {
		fatalRoutes.byG = map[uint64]*runState{}
		cmdutil.BehaviorOnFatal(fatalRoute)
	})
	g := goroutineID()
	fatalRoutes.mu.Lock()
	fatalRoutes.byG[g] = st
	fatalRoutes.live = append(fatalRoutes.live, st)
	fatalRoutes.mu.Unlock()
	return func() {
		fatalRoutes.mu.Lock()
		defer fatalRoutes.mu.Unlock()
		delete(fatalRoutes.byG, g)
		for i, s := range fatalRoutes.live {
			if s == st {
				fatalRoutes.live = append(fatalRoutes.live[:i], fatalRoutes.live[i+1:]...)
				break
			}
		}
	}
}

// othersLive reports whether a command other than st is running.
func othersLive(st *runState) bool {
	fatalRoutes.mu.Lock()
	defer fatalRoutes.mu.Unlock()
	for _, s := range fatalRoutes.live {
		if s != st {
			return true
		}
	}
	return false
}

// fatalRoute is kubectl's fatal-error handler: it ends the command whose goroutine called it
// (runState.fatal). A goroutine kubectl started of its own is not registered: its call goes to
// the command that started last, which is the one holding runSlot or, failing that, the
// newest still running — as the one handler set per command did when commands ran one at a
// time. With no command running at all it does what kubectl's default does.
func fatalRoute(msg string, code int) {
	g := goroutineID()
	fatalRoutes.mu.Lock()
	st := fatalRoutes.byG[g]
	if st == nil && len(fatalRoutes.live) > 0 {
		st = fatalRoutes.live[len(fatalRoutes.live)-1]
	}
	fatalRoutes.mu.Unlock()
	if st != nil {
		st.fatal(msg, code)
		return
	}
	// cmdutil's default fatal (util/helpers.go at v0.37.2).
	if msg != "" {
		if len(msg) > 0 && msg[len(msg)-1] != '\n' {
			msg += "\n"
		}
		fmt.Fprint(os.Stderr, msg)
	}
	os.Exit(code)
}

// goroutineID returns the calling goroutine's id, from the first line of its stack trace
// ("goroutine 123 [running]:"), which the runtime has written the same way since Go 1.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, err := strconv.ParseUint(string(b), 10, 64)
	if err != nil {
		panic(fmt.Sprintf("kubectl runner: cannot read the goroutine id from %q", buf[:]))
	}
	return id
}
