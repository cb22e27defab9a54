// Package inspect walks live Go values by reflection, like a debugger's variables view: each
// value is a Node with a name, a type and a one-line summary, and its children (struct fields,
// elements, map entries, the target of a pointer or interface) are computed only when asked for.
//
// The walk never calls methods on the values it visits (no String(), no Interface() on
// unexported fields): it reads memory through reflect and formats basic kinds itself, so it is
// safe on objects whose methods take locks or have side effects. It is depth-limited, truncates
// long collections and strings, sorts map entries by key, and stops at cycles by tracking the
// pointers on the path from the root.
//
// The walk never shows a credential: a string or byte slice reached through a field named
// like one (BearerToken, KeyData, Password, tokens, …), the keys of a map in such a field, a
// private key of any crypto package, PEM text holding a private key, and any of the run's
// known secret values (Options.Secrets) wherever it occurs — in a value, a map key or a
// summary — all read "‹redacted›". The state tree's masking is no help here: the raw view
// reads the objects themselves.
//
// Reading a map that another goroutine writes at the same time is a data race the Go runtime
// may abort on: walk a live object only while its owner is paused or no longer writes it.
package inspect

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Options bound how much of a value the walk shows.
type Options struct {
	// MaxDepth is how many levels below the root can be expanded. Default 12.
	MaxDepth int
	// MaxItems is how many elements of a slice, array or map are listed; the rest are
	// summarised as "… N more". Default 100.
	MaxItems int
	// MaxString is how many bytes of a string are shown before "…". Default 120.
	MaxString int
	// Secrets are credential values to redact wherever they occur in a formatted string, byte
	// slice or map key. Values shorter than minSecret bytes are ignored: they would redact
	// ordinary text.
	Secrets []string

	// sensitive is set in the options of nodes below a credential-named field: their strings,
	// byte slices and map keys are redacted whole.
	sensitive bool
}

// redacted replaces a credential in the walk's output.
const redacted = "‹redacted›"

// minSecret is the shortest Options.Secrets value that is redacted.
const minSecret = 8

// DefaultOptions returns the limits the TUI uses.
func DefaultOptions() Options {
	return Options{MaxDepth: 12, MaxItems: 100, MaxString: 120}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.MaxDepth <= 0 {
		o.MaxDepth = d.MaxDepth
	}
	if o.MaxItems <= 0 {
		o.MaxItems = d.MaxItems
	}
	if o.MaxString <= 0 {
		o.MaxString = d.MaxString
	}
	return o
}

// Node is one value in the walk. Its zero value is not useful; start with Root.
type Node struct {
	// Name is the field name, "[i]" for an element, "[key]" for a map entry, or the root name.
	Name string
	// Type is the value's static type as Go prints it (for an interface, the dynamic type).
	Type string
	// Value is a one-line summary: the formatted value of a basic kind, "nil", "{…}" for a
	// struct, "len 3" for a collection, or a note such as "cycle" or "depth limit".
	Value string

	v        reflect.Value
	depth    int
	parent   *Node
	ptr      uintptr      // address this node dereferences, for cycle detection; 0 if none
	ptrType  reflect.Type // what lives at ptr: one address can hold a struct and its first field
	opts     Options
	more     int  // for a "… N more" placeholder: how many were left out
	leaf     bool // never has children
	done     bool // children computed
	children []*Node
}

// Root starts a walk at v, named name.
func Root(name string, v any, opts Options) *Node {
	opts = opts.withDefaults()
	rv := reflect.ValueOf(v)
	n := &Node{Name: name, opts: opts}
	if !rv.IsValid() {
		n.Type = "nil"
		n.Value = "nil"
		n.leaf = true
		return n
	}
	n.init(rv)
	return n
}

// Depth is the node's distance from the root (the root is 0).
func (n *Node) Depth() int { return n.depth }

// Expandable reports whether the node has (or may have) children. It does not compute them.
func (n *Node) Expandable() bool { return !n.leaf }

// Children computes the node's children the first time it is called and returns them; it
// returns nil for a leaf. A collection longer than MaxItems ends with a placeholder node named
// "…" whose Value says how many were left out.
func (n *Node) Children() []*Node {
	if n.leaf {
		return nil
	}
	if !n.done {
		n.children = n.expand()
		n.done = true
	}
	return n.children
}

// Omitted returns, for a "… N more" placeholder, how many entries were left out; 0 otherwise.
func (n *Node) Omitted() int { return n.more }

// String returns "Name Type = Value", for tests and plain output.
func (n *Node) String() string {
	return fmt.Sprintf("%s %s = %s", n.Name, n.Type, n.Value)
}

// child makes a node below n for value v: an element, a map value or a pointer's target,
// which are as sensitive as n.
func (n *Node) child(name string, v reflect.Value) *Node {
	c := &Node{Name: name, depth: n.depth + 1, parent: n, opts: n.opts}
	c.init(v)
	return c
}

// field makes a node for a struct field: it is sensitive if its name says it holds a
// credential, whatever its struct is.
func (n *Node) field(name string, v reflect.Value) *Node {
	opts := n.opts
	opts.sensitive = credentialName(name)
	c := &Node{Name: name, depth: n.depth + 1, parent: n, opts: opts}
	c.init(v)
	return c
}

// init fills Type and Value and decides whether the node can be expanded.
func (n *Node) init(v reflect.Value) {
	if !v.IsValid() {
		// A map entry deleted between MapKeys and MapIndex: only a map that another
		// goroutine writes does that, but the walk must not panic on it.
		n.Type, n.Value, n.leaf = "nil", "nil (gone)", true
		return
	}
	n.v = v
	n.Type = typeName(v.Type())
	if privateKey(v.Type()) {
		n.Value, n.leaf = redacted+" private key", true
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			n.Value, n.leaf = "nil", true
			return
		}
		// Show the dynamic value in place of the interface, keeping the static type as a hint.
		static := n.Type
		n.init(v.Elem())
		if static != "interface {}" && static != "any" {
			n.Type = static + "(" + n.Type + ")"
		}
		return
	case reflect.Pointer:
		if v.IsNil() {
			n.Value, n.leaf = "nil", true
			return
		}
		if n.track(v.Pointer(), v.Type().Elem()) {
			n.Value, n.leaf = "↺ cycle (points to an enclosing value)", true
			return
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Struct:
			n.Value = "&{…}"
			if e.NumField() == 0 {
				n.Value, n.leaf = "&{}", true
			}
		case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice, reflect.Array:
			n.Value = "&" + summary(e, n.opts)
		default:
			// A pointer to a basic value: show the value, nothing to expand.
			if s, ok := basic(e, n.opts); ok {
				n.Value, n.leaf = "&"+s, true
				return
			}
			n.Value = "&" + summary(e, n.opts)
		}
	case reflect.Map:
		if v.IsNil() {
			n.Value, n.leaf = "nil", true
			return
		}
		if n.track(v.Pointer(), v.Type()) {
			n.Value, n.leaf = "↺ cycle (an enclosing map)", true
			return
		}
		n.Value = summary(v, n.opts)
		n.leaf = v.Len() == 0
	case reflect.Slice:
		if v.IsNil() {
			n.Value, n.leaf = "nil", true
			return
		}
		if v.Len() > 0 && n.track(v.Pointer(), v.Type()) {
			n.Value, n.leaf = "↺ cycle (an enclosing slice)", true
			return
		}
		n.Value = summary(v, n.opts)
		n.leaf = v.Len() == 0
		if isBytes(v.Type()) {
			n.leaf = true
		}
	case reflect.Array:
		n.Value = summary(v, n.opts)
		n.leaf = v.Len() == 0 || isBytes(v.Type())
	case reflect.Struct:
		if s, ok := special(v); ok {
			n.Value, n.leaf = s, true
			return
		}
		n.Value = "{…}"
		n.leaf = v.NumField() == 0
		if n.leaf {
			n.Value = "{}"
		}
	default:
		s, _ := basic(v, n.opts)
		n.Value, n.leaf = s, true
	}
	if !n.leaf && n.depth >= n.opts.MaxDepth {
		n.Value += " (depth limit)"
		n.leaf = true
	}
}

// track records that n dereferences address p holding a value of type t, and reports whether
// an ancestor already dereferences the same (address, type): a cycle.
func (n *Node) track(p uintptr, t reflect.Type) bool {
	n.ptr, n.ptrType = p, t
	if p == 0 {
		return false
	}
	for a := n.parent; a != nil; a = a.parent {
		if a.ptr == p && a.ptrType == t {
			return true
		}
	}
	return false
}

// expand computes the children of a non-leaf node.
func (n *Node) expand() []*Node {
	v := n.v
	switch v.Kind() {
	case reflect.Pointer:
		e := v.Elem()
		if e.Kind() == reflect.Struct {
			return n.fields(e)
		}
		return []*Node{n.child("*", e)}
	case reflect.Struct:
		return n.fields(v)
	case reflect.Slice, reflect.Array:
		total := v.Len()
		shown := min(total, n.opts.MaxItems)
		out := make([]*Node, 0, shown+1)
		for i := range shown {
			out = append(out, n.child("["+strconv.Itoa(i)+"]", v.Index(i)))
		}
		return n.withMore(out, total-shown)
	case reflect.Map:
		keys := v.MapKeys()
		// Sort by the keys as they are, so the order is stable when they are shown redacted.
		raw := n.opts
		raw.sensitive, raw.Secrets = false, nil
		sortKeys(keys, raw)
		total := len(keys)
		shown := min(total, n.opts.MaxItems)
		out := make([]*Node, 0, shown+1)
		for _, k := range keys[:shown] {
			out = append(out, n.child("["+keyString(k, n.opts)+"]", v.MapIndex(k)))
		}
		if n.opts.sensitive {
			// The keys are the credentials (tokenfile's map from token to user); the
			// values are walked as usual.
			for _, c := range out[:shown] {
				c.Name = "[" + redacted + "]"
			}
		}
		return n.withMore(out, total-shown)
	}
	return nil
}

// fields lists a struct's fields, exported or not.
func (n *Node) fields(s reflect.Value) []*Node {
	t := s.Type()
	out := make([]*Node, 0, t.NumField())
	for i := range t.NumField() {
		out = append(out, n.field(t.Field(i).Name, s.Field(i)))
	}
	return out
}

// withMore appends a "… N more" placeholder when items were left out.
func (n *Node) withMore(out []*Node, more int) []*Node {
	if more <= 0 {
		return out
	}
	return append(out, &Node{
		Name: "…", Value: fmt.Sprintf("%d more", more), depth: n.depth + 1, parent: n,
		opts: n.opts, more: more, leaf: true,
	})
}

// typeName prints a type as Go source would, with package names.
func typeName(t reflect.Type) string {
	return t.String()
}

// summary is the one-line value of a collection or a pointer's target.
func summary(v reflect.Value, opts Options) string { return summaryN(v, opts, 0) }

// summaryN is summary that follows at most a few pointers and interfaces (a pointer may point,
// through an interface, back at itself).
func summaryN(v reflect.Value, opts Options, hops int) string {
	const maxHops = 4
	if privateKey(v.Type()) {
		return redacted + " private key"
	}
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("map len %d", v.Len())
	case reflect.Slice:
		if v.IsNil() {
			return "nil"
		}
		if isBytes(v.Type()) {
			return bytesString(v, opts)
		}
		return fmt.Sprintf("len %d, cap %d", v.Len(), v.Cap())
	case reflect.Array:
		if isBytes(v.Type()) {
			return bytesString(v, opts)
		}
		return fmt.Sprintf("len %d", v.Len())
	case reflect.Struct:
		return "{…}"
	case reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		if hops >= maxHops {
			return "&…"
		}
		return "&" + summaryN(v.Elem(), opts, hops+1)
	case reflect.Interface:
		if v.IsNil() {
			return "nil"
		}
		if hops >= maxHops {
			return typeName(v.Elem().Type())
		}
		return summaryN(v.Elem(), opts, hops+1)
	}
	s, _ := basic(v, opts)
	return s
}

// basic formats a value of a basic kind (and funcs, chans and unsafe pointers, by type) and
// reports whether v was one.
func basic(v reflect.Value, opts Options) (string, bool) {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.Type() == durationType {
			return time.Duration(v.Int()).String(), true
		}
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Uintptr:
		return fmt.Sprintf("%#x", v.Uint()), true
	case reflect.Float32:
		return strconv.FormatFloat(v.Float(), 'g', -1, 32), true
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), true
	case reflect.Complex64:
		return strconv.FormatComplex(v.Complex(), 'g', -1, 64), true
	case reflect.Complex128:
		return strconv.FormatComplex(v.Complex(), 'g', -1, 128), true
	case reflect.String:
		if opts.sensitive {
			return redacted, true
		}
		return quote(v.String(), opts), true
	case reflect.Func:
		if v.IsNil() {
			return "nil", true
		}
		return typeName(v.Type()), true
	case reflect.Chan:
		if v.IsNil() {
			return "nil", true
		}
		return fmt.Sprintf("%s (len %d, cap %d)", typeName(v.Type()), v.Len(), v.Cap()), true
	case reflect.UnsafePointer:
		if v.IsNil() {
			return "nil", true
		}
		return fmt.Sprintf("unsafe.Pointer(%#x)", v.Pointer()), true
	case reflect.Invalid:
		return "nil", true
	}
	return "", false
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	timeType     = reflect.TypeFor[time.Time]()
)

// special formats a few well-known struct types whose fields say little on their own.
func special(v reflect.Value) (string, bool) {
	if v.Type() != timeType {
		return "", false
	}
	r, ok := readable(v)
	if !ok {
		return "", false
	}
	t := r.Interface().(time.Time)
	if t.IsZero() {
		return "0001-01-01T00:00:00Z (zero)", true
	}
	return t.Format(time.RFC3339Nano), true
}

// readable returns a copy of v whose Interface() may be called: v itself when it is exported,
// or the same memory viewed without the read-only flag when v is addressable.
func readable(v reflect.Value) (reflect.Value, bool) {
	if v.CanInterface() {
		return v, true
	}
	if v.CanAddr() {
		return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem(), true
	}
	return reflect.Value{}, false
}

// quote quotes s, cutting it after opts.MaxString bytes (on a rune boundary), with every
// credential in it redacted first.
func quote(s string, opts Options) string {
	n := len(s)
	s, whole := redact(s, opts)
	if whole && len(s) <= opts.MaxString {
		return strconv.Quote(s)
	}
	cut := min(len(s), opts.MaxString)
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + fmt.Sprintf("… (%d bytes)", n)
}

// redact returns the part of s that can be shown — MaxString bytes and then some, so that a
// credential starting there is seen whole — with the credentials in it replaced, or just a
// marker if it holds a PEM private key. whole reports whether that part is all of s.
func redact(s string, opts Options) (_ string, whole bool) {
	longest := 0
	for _, sec := range opts.Secrets {
		longest = max(longest, len(sec))
	}
	whole = true
	if limit := opts.MaxString + longest; len(s) > limit {
		s, whole = s[:limit], false
	}
	if strings.Contains(s, "PRIVATE KEY") {
		return redacted + " PEM private key", false
	}
	for _, sec := range opts.Secrets {
		if len(sec) >= minSecret {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s, whole
}

func isBytes(t reflect.Type) bool { return t.Elem().Kind() == reflect.Uint8 }

// bytesString shows a byte slice as text when it is printable UTF-8, else as hex; a sensitive
// one is redacted whole, and credentials in one are replaced.
func bytesString(v reflect.Value, opts Options) string {
	n := v.Len()
	if opts.sensitive {
		return fmt.Sprintf("%d bytes %s", n, redacted)
	}
	longest := 0
	for _, sec := range opts.Secrets {
		longest = max(longest, len(sec))
	}
	read := min(n, opts.MaxString+longest)
	b := make([]byte, read)
	for i := range read {
		b[i] = byte(v.Index(i).Uint())
	}
	text, whole := redact(string(b), opts)
	b = []byte(text)
	more := ""
	if !whole || read < n || len(b) > opts.MaxString {
		more = "…"
	}
	b = b[:min(len(b), opts.MaxString)]
	if utf8.Valid(b) && printable(b) {
		return fmt.Sprintf("%d bytes %q%s", n, b, more)
	}
	const hexMax = 16
	if len(b) > hexMax {
		b, more = b[:hexMax], "…"
	}
	return fmt.Sprintf("%d bytes %x%s", n, b, more)
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < ' ' && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// keyString formats a map key for a child's name.
func keyString(k reflect.Value, opts Options) string {
	for k.Kind() == reflect.Interface && !k.IsNil() {
		k = k.Elem()
	}
	if s, ok := basic(k, opts); ok {
		return s
	}
	switch k.Kind() {
	case reflect.Struct:
		parts := make([]string, 0, k.NumField())
		for i := range k.NumField() {
			parts = append(parts, keyString(k.Field(i), opts))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case reflect.Array:
		parts := make([]string, 0, k.Len())
		for i := range k.Len() {
			parts = append(parts, keyString(k.Index(i), opts))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case reflect.Pointer:
		if k.IsNil() {
			return "nil"
		}
		return fmt.Sprintf("%s(%#x)", typeName(k.Type()), k.Pointer())
	}
	return typeName(k.Type())
}

// credentialName reports whether a struct field's name says it holds a credential:
// BearerToken, tokens, Password, KeyData, ClientKeyData, KeyPEM, PrivateKey, Secret, bearer
// (client-go's bearerAuthRoundTripper), … but not a file or path naming where one is kept
// (BearerTokenFile, KeyFile).
func credentialName(name string) bool {
	l := strings.ToLower(name)
	for _, suffix := range []string{"file", "files", "path", "paths"} {
		if strings.HasSuffix(l, suffix) {
			return false
		}
	}
	for _, word := range []string{"token", "password", "passwd", "passphrase", "secret", "bearer", "credential",
		"privatekey", "keydata", "keypem", "apikey"} {
		if strings.Contains(l, word) {
			return true
		}
	}
	return false
}

// privateKey reports whether t (or what it points to) is a private key type of any package:
// crypto/ecdsa, crypto/rsa, crypto/ed25519 and crypto/ecdh name theirs PrivateKey, and so do
// their crypto/internal implementations, which a walk reaches through the public ones' fields.
func privateKey(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.Name()
	return strings.HasPrefix(name, "PrivateKey") || strings.HasPrefix(name, "DecapsulationKey")
}

// sortKeys orders map keys: numerically for numbers, by formatted text otherwise.
func sortKeys(keys []reflect.Value, opts Options) {
	if len(keys) < 2 {
		return
	}
	switch keys[0].Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
		return
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
		return
	case reflect.Float32, reflect.Float64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Float() < keys[j].Float() })
		return
	}
	text := make([]string, len(keys))
	for i, k := range keys {
		text[i] = keyString(k, opts)
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return text[idx[a]] < text[idx[b]] })
	sorted := make([]reflect.Value, len(keys))
	for i, j := range idx {
		sorted[i] = keys[j]
	}
	copy(keys, sorted)
}
