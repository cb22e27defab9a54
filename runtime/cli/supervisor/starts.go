package supervisor

// Starts reports whether args (without the program name) run a command that starts a server —
// tour or serve (the root command runs the tour), or a tour of a class (class host, join ADDR)
// — and parse: it is runtime/cli's startsServer, which asks kubewalk's cobra command tree,
// redone over the tables below because the command tree is built by packages that Go
// initialises late. It follows cobra's Find (stripFlags, argsMinusFirstX) and pflag's parsing;
// it does not check the flags' values (`--secure-port x` is a server command here, an error
// for cobra), and such a run is supervised only to report its error.
// TestStartsAsCobra holds it to startsServer and the tables to the command tree.
func Starts(args []string) bool {
	cmd := commandNode{name: "kubewalk", flags: tourFlags, sub: rootCommands}
	rest := args
	for {
		words := stripFlags(rest, cmd.flags)
		if len(words) == 0 {
			break
		}
		next, ok := cmd.sub[words[0]]
		if !ok {
			break
		}
		rest = argsMinusFirstX(rest, words[0], cmd.flags)
		cmd = next
	}
	want := 0
	switch cmd.name {
	case "kubewalk", "tour", "serve", "class host":
	case "join":
		want = 1
	default:
		return false
	}
	positional, ok := parseFlags(rest, cmd.flags)
	return ok && positional == want
}

// commandNode is a command of kubewalk's tree: its flags and subcommands.
type commandNode struct {
	name  string // the path without "kubewalk ", or "kubewalk" for the root
	flags flagTable
	sub   map[string]commandNode
}

// flagTable maps each flag's name, and its shorthand as "-x", to whether it takes a value
// (pflag: its NoOptDefVal is empty) — a bool flag (or one with an optional value) does not.
type flagTable map[string]bool

func merge(tables ...flagTable) flagTable {
	out := flagTable{}
	for _, t := range tables {
		for k, v := range t {
			out[k] = v
		}
	}
	return out
}

// The flags of the commands that start a server (see runtime/cli: tourOptions, serveOptions,
// classHostOptions, joinOptions).
var (
	serverFlags = flagTable{
		"bind-address": true, "data-dir": true, "etcd-client-port": true, "etcd-peer-port": true,
		"etcd-servers": true, "kubeconfig": true, "log-file": true, "request-timeout": true,
		"secure-port": true, "v": true, "-v": true,
	}
	tourFlags = merge(serverFlags, flagTable{
		"auto": false, "break": true, "kubectl-no-exec-plugins": false, "kubectl-no-local-files": false,
		"kubectl-unguarded": false, "lang": true, "plain": false, "record": true, "reset-exercises": false,
		"restart": false, "theme": true,
	})
	serveFlags = merge(serverFlags, flagTable{"trace-log": true, "trace-log-loopback": false})
	hostFlags  = merge(tourFlags, flagTable{"listen": true, "name": true})
	joinFlags  = merge(tourFlags, flagTable{"code": true, "name": true})
)

// rootCommands are the root's subcommands. Those that start no server are here only by name:
// with no flags of their own listed, Starts says false for them whatever follows.
var rootCommands = map[string]commandNode{
	"tour":  {name: "tour", flags: tourFlags},
	"serve": {name: "serve", flags: serveFlags},
	"class": {name: "class", flags: flagTable{}, sub: map[string]commandNode{
		"host": {name: "class host", flags: hostFlags},
		"ssh":  {name: "class ssh"},
	}},
	"join":       {name: "join", flags: joinFlags},
	"lessons":    {name: "lessons"},
	"glossary":   {name: "glossary"},
	"version":    {name: "version"},
	"env":        {name: "env"},
	"help":       {name: "help"},
	"completion": {name: "completion"},
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func hasEq(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			return true
		}
	}
	return false
}

// takesValue reports whether flag s ("--name" or "-x", without a value) takes the next
// argument as its value in cobra's eyes: a flag it does not know does too.
func takesValue(s string, flags flagTable) bool {
	switch {
	case hasPrefix(s, "--") && !hasEq(s):
		v, known := flags[s[2:]]
		return !known || v
	case hasPrefix(s, "-") && !hasEq(s) && len(s) == 2:
		v, known := flags[s]
		return !known || v
	}
	return false
}

// stripFlags is cobra's: the words of args that are not flags or their values.
func stripFlags(args []string, flags flagTable) []string {
	var words []string
	for len(args) > 0 {
		s := args[0]
		args = args[1:]
		switch {
		case s == "--":
			return words
		case takesValue(s, flags):
			if len(args) <= 1 {
				return words
			}
			args = args[1:]
		case s != "" && s[0] != '-':
			words = append(words, s)
		}
	}
	return words
}

// argsMinusFirstX is cobra's: args without the first x that is not a flag's value.
func argsMinusFirstX(args []string, x string, flags flagTable) []string {
	for pos := 0; pos < len(args); pos++ {
		s := args[pos]
		switch {
		case s == "--":
			return args
		case takesValue(s, flags):
			pos++
		case !hasPrefix(s, "-"):
			if s == x {
				out := append([]string{}, args[:pos]...)
				return append(out, args[pos+1:]...)
			}
		}
	}
	return args
}

// parseFlags parses args as pflag would with flags, and returns how many positional arguments
// there are; ok is false where pflag fails (an unknown flag, a missing value, help).
func parseFlags(args []string, flags flagTable) (positional int, ok bool) {
	for len(args) > 0 {
		s := args[0]
		args = args[1:]
		switch {
		case len(s) < 2 || s[0] != '-':
			positional++
		case s == "--":
			return positional + len(args), true
		case s[1] == '-':
			name := s[2:]
			if name == "" || name[0] == '-' || name[0] == '=' {
				return 0, false
			}
			hasValue := false
			for i := 0; i < len(name); i++ {
				if name[i] == '=' {
					name, hasValue = name[:i], true
					break
				}
			}
			takes, known := flags[name]
			switch {
			case !known:
				return 0, false
			case hasValue || !takes:
			case len(args) > 0:
				args = args[1:]
			default:
				return 0, false
			}
		default:
			shorts := s[1:]
			for len(shorts) > 0 && !hasPrefix(shorts, "test.") { // pflag passes over go test's flags
				takes, known := flags["-"+shorts[:1]]
				switch {
				case !known:
					return 0, false
				case len(shorts) > 2 && shorts[1] == '=':
					shorts = ""
				case !takes:
					shorts = shorts[1:]
				case len(shorts) > 1:
					shorts = ""
				case len(args) > 0:
					args, shorts = args[1:], ""
				default:
					return 0, false
				}
			}
		}
	}
	return positional, true
}
