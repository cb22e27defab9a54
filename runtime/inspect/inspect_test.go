package inspect

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type secret struct {
	name    string
	count   int
	ratio   float64
	on      bool
	when    time.Time
	wait    time.Duration
	tags    []string
	labels  map[string]string
	inner   *secret
	any     any
	err     error
	fn      func() error
	ch      chan int
	raw     []byte
	mu      sync.Mutex
	Public  string
	private struct{ x, y int }
}

type ring struct {
	Name string
	Next *ring
}

type selfMap map[string]any

type Embedded struct{ ID int }

type outer struct {
	Embedded
	Note string
}

type twoFaced struct {
	arr [2]int
	s   []int
}

// tree renders n and its children to depth levels below n, one node a line, for comparison.
func tree(n *Node, depth int) string {
	var b strings.Builder
	var walk func(n *Node, d int)
	walk = func(n *Node, d int) {
		fmt.Fprintf(&b, "%s%s %s = %s\n", strings.Repeat("  ", d), n.Name, n.Type, n.Value)
		if d >= depth {
			return
		}
		for _, c := range n.Children() {
			walk(c, d+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// find walks a path of child names from n.
func find(t *testing.T, n *Node, path ...string) *Node {
	t.Helper()
	for _, p := range path {
		var next *Node
		for _, c := range n.Children() {
			if c.Name == p {
				next = c
				break
			}
		}
		if next == nil {
			t.Fatalf("no child %q under %s; have:\n%s", p, n.Name, tree(n, 1))
		}
		n = next
	}
	return n
}

func TestBasicValues(t *testing.T) {
	type myInt int
	type str string
	long := strings.Repeat("a", 200)
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil", nil, "x nil = nil"},
		{"int", 42, "x int = 42"},
		{"named int", myInt(-7), "x inspect.myInt = -7"},
		{"uint8", uint8(255), "x uint8 = 255"},
		{"uintptr", uintptr(0x10), "x uintptr = 0x10"},
		{"float", 1.5, "x float64 = 1.5"},
		{"float32", float32(0.25), "x float32 = 0.25"},
		{"complex", complex(1, 2), "x complex128 = (1+2i)"},
		{"bool", true, "x bool = true"},
		{"string", "hi\n", `x string = "hi\n"`},
		{"named string", str("s"), `x inspect.str = "s"`},
		{"long string", long, `x string = "` + strings.Repeat("a", 120) + `"… (200 bytes)`},
		{"duration", 1500 * time.Millisecond, "x time.Duration = 1.5s"},
		{"time", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), "x time.Time = 2025-01-02T03:04:05Z"},
		{"zero time", time.Time{}, "x time.Time = 0001-01-01T00:00:00Z (zero)"},
		{"bytes text", []byte("abc"), `x []uint8 = 3 bytes "abc"`},
		{"bytes binary", []byte{0, 1, 2}, "x []uint8 = 3 bytes 000102"},
		{"byte array", [2]byte{'o', 'k'}, `x [2]uint8 = 2 bytes "ok"`},
		{"func", func(int) string { return "" }, "x func(int) string = func(int) string"},
		{"nil func", (func())(nil), "x func() = nil"},
		{"chan", make(chan int, 3), "x chan int = chan int (len 0, cap 3)"},
		{"nil pointer", (*int)(nil), "x *int = nil"},
		{"pointer to int", new(7), "x *int = &7"},
		{"nil map", map[string]int(nil), "x map[string]int = nil"},
		{"nil slice", []int(nil), "x []int = nil"},
		{"empty struct", struct{}{}, "x struct {} = {}"},
		{"error", errors.New("boom"), "x *errors.errorString = &{…}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := Root("x", tt.v, Options{})
			if got := n.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestExpandable(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want bool
	}{
		{"int", 1, false},
		{"nil", nil, false},
		{"struct", outer{}, true},
		{"empty slice", []int{}, false},
		{"slice", []int{1}, true},
		{"empty map", map[int]int{}, false},
		{"map", map[int]int{1: 1}, true},
		{"bytes", []byte("x"), false},
		{"pointer to struct", &outer{}, true},
		{"pointer to empty struct", &struct{}{}, false},
		{"pointer to pointer", new(new(1)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := Root("x", tt.v, Options{})
			if got := n.Expandable(); got != tt.want {
				t.Errorf("Expandable() = %v, want %v", got, tt.want)
			}
			if !tt.want && n.Children() != nil {
				t.Errorf("leaf has children: %v", n.Children())
			}
		})
	}
}

func TestUnexportedFields(t *testing.T) {
	s := &secret{
		name: "alice", count: 3, ratio: 0.5, on: true,
		when:   time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC),
		wait:   time.Second,
		tags:   []string{"a", "b"},
		labels: map[string]string{"z": "last", "a": "first"},
		any:    42,
		err:    errors.New("nope"),
		fn:     func() error { return nil },
		ch:     make(chan int),
		raw:    []byte("pem"),
		Public: "yes",
	}
	s.private.x = 9
	root := Root("s", s, Options{})
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"name"}, `name string = "alice"`},
		{[]string{"count"}, "count int = 3"},
		{[]string{"ratio"}, "ratio float64 = 0.5"},
		{[]string{"on"}, "on bool = true"},
		{[]string{"when"}, "when time.Time = 2025-06-01T00:00:00Z"},
		{[]string{"wait"}, "wait time.Duration = 1s"},
		{[]string{"tags"}, "tags []string = len 2, cap 2"},
		{[]string{"tags", "[1]"}, `[1] string = "b"`},
		{[]string{"labels"}, "labels map[string]string = map len 2"},
		{[]string{"labels", `["a"]`}, `["a"] string = "first"`},
		{[]string{"inner"}, "inner *inspect.secret = nil"},
		{[]string{"any"}, "any int = 42"},
		{[]string{"err"}, "err error(*errors.errorString) = &{…}"},
		{[]string{"err", "s"}, `s string = "nope"`},
		{[]string{"fn"}, "fn func() error = func() error"},
		{[]string{"ch"}, "ch chan int = chan int (len 0, cap 0)"},
		{[]string{"raw"}, `raw []uint8 = 3 bytes "pem"`},
		{[]string{"mu"}, "mu sync.Mutex = {…}"},
		{[]string{"Public"}, `Public string = "yes"`},
		{[]string{"private", "x"}, "x int = 9"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.path, "."), func(t *testing.T) {
			if got := find(t, root, tt.path...).String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestUnexportedTimeNotAddressable(t *testing.T) {
	// A time.Time inside a map value is neither exported nor addressable: it is shown as a
	// struct instead of being formatted, and reading it must not panic.
	type holder struct{ m map[string]time.Time }
	h := holder{m: map[string]time.Time{"t": time.Unix(0, 0)}}
	n := find(t, Root("h", h, Options{}), "m", `["t"]`)
	if n.Type != "time.Time" {
		t.Fatalf("type %s", n.Type)
	}
	_ = tree(n, 3)
}

func TestCycles(t *testing.T) {
	a := &ring{Name: "a"}
	b := &ring{Name: "b", Next: a}
	a.Next = b
	self := &ring{Name: "self"}
	self.Next = self
	m := selfMap{}
	m["me"] = m
	s := []any{nil}
	s[0] = s

	p := new(any)
	*p = p

	tests := []struct {
		name string
		v    any
		path []string
		want string
	}{
		{"pointer to itself through an interface", p, []string{"*"}, "* *interface {} = ↺ cycle (points to an enclosing value)"},
		{"two-ring", a, []string{"Next", "Next"}, "Next *inspect.ring = ↺ cycle (points to an enclosing value)"},
		{"self", self, []string{"Next"}, "Next *inspect.ring = ↺ cycle (points to an enclosing value)"},
		{"map", m, []string{`["me"]`}, `["me"] inspect.selfMap = ↺ cycle (an enclosing map)`},
		{"slice", s, []string{"[0]"}, "[0] []interface {} = ↺ cycle (an enclosing slice)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := find(t, Root("x", tt.v, Options{}), tt.path...)
			if got := n.String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if n.Expandable() {
				t.Error("a cycle must not be expandable")
			}
		})
	}
}

func TestSharedPointerIsNotACycle(t *testing.T) {
	// The same pointer twice side by side is not a cycle: only ancestors count.
	shared := &ring{Name: "shared"}
	pair := struct{ A, B *ring }{shared, shared}
	root := Root("pair", pair, Options{})
	for _, f := range []string{"A", "B"} {
		if got := find(t, root, f).Value; got != "&{…}" {
			t.Errorf("%s = %s, want &{…}", f, got)
		}
	}
	// A slice field that aliases an array field of the same struct is not a cycle either.
	tf := &twoFaced{}
	tf.s = tf.arr[:]
	if got := find(t, Root("tf", tf, Options{}), "s").Value; got != "len 2, cap 2" {
		t.Errorf("aliasing slice = %s", got)
	}
}

func TestDepthLimit(t *testing.T) {
	var head *ring
	for i := range 10 {
		head = &ring{Name: fmt.Sprint(i), Next: head}
	}
	root := Root("head", head, Options{MaxDepth: 3})
	n := find(t, root, "Next", "Next", "Next")
	if n.Depth() != 3 {
		t.Fatalf("depth %d", n.Depth())
	}
	if n.Expandable() || !strings.HasSuffix(n.Value, "(depth limit)") {
		t.Errorf("node at the depth limit: %s, expandable %v", n, n.Expandable())
	}
	if got := find(t, root, "Next", "Next", "Name").Value; got != `"7"` {
		t.Errorf("name above the limit = %s", got)
	}
}

func TestTruncation(t *testing.T) {
	s := make([]int, 250)
	for i := range s {
		s[i] = i
	}
	m := map[int]string{}
	for i := range 30 {
		m[i] = fmt.Sprint(i)
	}
	tests := []struct {
		name      string
		v         any
		wantCount int
		wantLast  string
		omitted   int
	}{
		{"slice", s, 11, "… = 240 more", 240},
		{"array", [12]int{}, 11, "… = 2 more", 2},
		{"map", m, 11, "… = 20 more", 20},
		{"short", []int{1, 2}, 2, "[1] int = 2", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := Root("x", tt.v, Options{MaxItems: 10}).Children()
			if len(cs) != tt.wantCount {
				t.Fatalf("%d children, want %d", len(cs), tt.wantCount)
			}
			last := cs[len(cs)-1]
			if got := strings.TrimSpace(last.Name + " " + strings.TrimSpace(last.Type) + " = " + last.Value); strings.ReplaceAll(got, "  ", " ") != tt.wantLast {
				t.Errorf("last = %q, want %q", got, tt.wantLast)
			}
			if last.Omitted() != tt.omitted {
				t.Errorf("Omitted() = %d, want %d", last.Omitted(), tt.omitted)
			}
		})
	}
}

func TestMapOrder(t *testing.T) {
	type key struct {
		G string
		V int
	}
	tests := []struct {
		name string
		v    any
		want []string
	}{
		{"strings", map[string]int{"b": 2, "a": 1, "c": 3}, []string{`["a"]`, `["b"]`, `["c"]`}},
		{"ints numerically", map[int]bool{10: true, 9: true, -1: true}, []string{"[-1]", "[9]", "[10]"}},
		{"struct keys", map[key]int{{"b", 1}: 1, {"a", 2}: 2}, []string{`[{"a", 2}]`, `[{"b", 1}]`}},
		{"interface keys", map[any]int{"x": 1, "a": 2}, []string{`["a"]`, `["x"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range Root("m", tt.v, Options{}).Children() {
				got = append(got, c.Name)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("order %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInterfacesAndEmbedding(t *testing.T) {
	var r fmt.Stringer = time.Second
	v := struct {
		S     fmt.Stringer
		Nil   fmt.Stringer
		Any   any
		Outer outer
	}{S: r, Any: &ring{Name: "x"}, Outer: outer{Embedded{7}, "n"}}
	root := Root("v", v, Options{})
	tests := []struct {
		path []string
		want string
	}{
		{[]string{"S"}, "S fmt.Stringer(time.Duration) = 1s"},
		{[]string{"Nil"}, "Nil fmt.Stringer = nil"},
		{[]string{"Any"}, "Any *inspect.ring = &{…}"},
		{[]string{"Any", "Name"}, `Name string = "x"`},
		{[]string{"Outer", "Embedded", "ID"}, "ID int = 7"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.path, "."), func(t *testing.T) {
			if got := find(t, root, tt.path...).String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestPointerChains(t *testing.T) {
	pp := new(new(5))
	n := Root("pp", pp, Options{})
	if n.Value != "&&5" {
		t.Errorf("value %s", n.Value)
	}
	cs := n.Children()
	if len(cs) != 1 || cs[0].String() != "* *int = &5" {
		t.Errorf("children %v", cs)
	}
}

func TestChildrenAreLazyAndCached(t *testing.T) {
	root := Root("r", &ring{Name: "a", Next: &ring{Name: "b"}}, Options{})
	if root.done {
		t.Fatal("children computed before being asked for")
	}
	first := root.Children()
	second := root.Children()
	if &first[0] != &second[0] {
		t.Error("children recomputed on the second call")
	}
	if next := find(t, root, "Next"); next.done {
		t.Error("grandchildren computed eagerly")
	}
}

// walkAll renders every node below n (to the depth limit), one a line.
func walkAll(n *Node) string {
	var b strings.Builder
	var walk func(n *Node)
	walk = func(n *Node) {
		fmt.Fprintf(&b, "%s %s = %s\n", n.Name, n.Type, n.Value)
		for _, c := range n.Children() {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

type restConfigLike struct {
	Host            string
	BearerToken     string
	BearerTokenFile string
	Password        string
	TLSClientConfig struct {
		CertData []byte
		KeyData  []byte
		KeyFile  string
	}
}

type userInfo struct{ Name string }

type tokenAuthenticator struct {
	tokens map[string]*userInfo
}

type roundTripper struct {
	bearer string
	next   any
}

type holder struct {
	Note  string
	Raw   []byte
	Ptr   *string
	Any   any
	ByKey map[string]int
	Keys  map[[2]string]bool
}

// TestRedaction: the walk shows no credential, however it is reached, and still shows what
// is not one.
func TestRedaction(t *testing.T) {
	const secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ecdhKey, err := ecdh.X25519().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(ecKey)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	cfg := restConfigLike{Host: "https://127.0.0.1:6443", BearerToken: secret, BearerTokenFile: "/var/run/token", Password: "hunter22"}
	cfg.TLSClientConfig.CertData = []byte("-----BEGIN CERTIFICATE-----\nMIIB")
	cfg.TLSClientConfig.KeyData = keyPEM
	cfg.TLSClientConfig.KeyFile = "/etc/key.pem"
	inSecret := secret
	long := strings.Repeat("x", 100) + secret + strings.Repeat("y", 100)
	var anyKey any = edKey

	tests := []struct {
		name      string
		v         any
		opts      Options
		path      []string
		want      string   // the node's line at path
		forbidden []string // must not occur anywhere in the full walk
	}{
		{"bearer token by field name", cfg, Options{}, []string{"BearerToken"}, `BearerToken string = ‹redacted›`, []string{secret[:16]}},
		{"token file path is not a secret", cfg, Options{}, []string{"BearerTokenFile"}, `BearerTokenFile string = "/var/run/token"`, nil},
		{"password", cfg, Options{}, []string{"Password"}, `Password string = ‹redacted›`, []string{"hunter22"}},
		{"client key data", cfg, Options{}, []string{"TLSClientConfig", "KeyData"}, `KeyData []uint8 = ` + fmt.Sprint(len(keyPEM)) + ` bytes ‹redacted›`, []string{"PRIVATE KEY"}},
		{"certificate data is not a secret", cfg, Options{}, []string{"TLSClientConfig", "CertData"}, `CertData []uint8 = 32 bytes "-----BEGIN CERTIFICATE-----\nMIIB"`, nil},
		{"token map keys", &tokenAuthenticator{tokens: map[string]*userInfo{secret: {Name: "alice"}}}, Options{},
			[]string{"tokens", "[‹redacted›]", "Name"}, `Name string = "alice"`, []string{secret[:16]}},
		{"bearer round tripper", roundTripper{bearer: secret}, Options{}, []string{"bearer"}, `bearer string = ‹redacted›`, []string{secret[:16]}},
		{"ecdsa private key", ecKey, Options{}, nil, `x *ecdsa.PrivateKey = ‹redacted› private key`, []string{fmt.Sprintf("%x", ecKey.D.Bytes()[:8])}},
		{"private key in an interface field", holder{Any: ecKey}, Options{}, []string{"Any"}, `Any *ecdsa.PrivateKey = ‹redacted› private key`, nil},
		{"ed25519 key behind a pointer", &anyKey, Options{}, nil, `x *interface {} = &‹redacted› private key`, []string{fmt.Sprintf("%x", []byte(edKey[:8]))}},
		{"ecdh key", ecdhKey, Options{}, nil, `x *ecdh.PrivateKey = ‹redacted› private key`, nil},
		{"PEM key in a neutral field", holder{Raw: keyPEM}, Options{}, []string{"Raw"}, `Raw []uint8 = ` + fmt.Sprint(len(keyPEM)) + ` bytes "‹redacted› PEM private key"…`, []string{"PRIVATE KEY"}},
		{"PEM key in a string", holder{Note: string(keyPEM)}, Options{}, []string{"Note"}, `Note string = "‹redacted› PEM private key"… (` + fmt.Sprint(len(keyPEM)) + ` bytes)`, []string{"PRIVATE KEY"}},
		{"known secret in text", holder{Note: "Authorization: Bearer " + secret}, Options{Secrets: []string{secret}},
			[]string{"Note"}, `Note string = "Authorization: Bearer ‹redacted›"`, []string{secret[:16]}},
		{"known secret across the cut", holder{Note: long}, Options{Secrets: []string{secret}},
			[]string{"Note"}, `Note string = "` + strings.Repeat("x", 100) + `‹redacted›` + strings.Repeat("y", 6) + `"… (264 bytes)`, []string{secret[:16], secret[:8]}},
		{"known secret in bytes", holder{Raw: []byte("token=" + secret)}, Options{Secrets: []string{secret}},
			[]string{"Raw"}, `Raw []uint8 = 70 bytes "token=‹redacted›"`, []string{secret[:16]}},
		{"known secret behind a pointer", holder{Ptr: &inSecret}, Options{Secrets: []string{secret}},
			[]string{"Ptr"}, `Ptr *string = &"‹redacted›"`, []string{secret[:16]}},
		{"known secret as a map key", holder{ByKey: map[string]int{secret: 1}}, Options{Secrets: []string{secret}},
			[]string{"ByKey", `["‹redacted›"]`}, `["‹redacted›"] int = 1`, []string{secret[:16]}},
		{"known secret in a struct map key", holder{Keys: map[[2]string]bool{{"user", secret}: true}}, Options{Secrets: []string{secret}},
			[]string{"Keys", `[["user" "‹redacted›"]]`}, `[["user" "‹redacted›"]] bool = true`, []string{secret[:16]}},
		{"short secrets are ignored", holder{Note: "abc"}, Options{Secrets: []string{"abc"}}, []string{"Note"}, `Note string = "abc"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := Root("x", tt.v, tt.opts)
			if got := find(t, root, tt.path...).String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			all := walkAll(root)
			for _, f := range tt.forbidden {
				if strings.Contains(all, f) {
					t.Errorf("the walk shows %q:\n%s", f, all)
				}
			}
		})
	}
}
