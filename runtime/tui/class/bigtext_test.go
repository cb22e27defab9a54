package class

import (
	"strings"
	"testing"
)

// TestBigText: every letter of the font draws 3 rows of 3 columns; join codes, addresses and
// ports draw; what the font lacks does not.
func TestBigText(t *testing.T) {
	for r, g := range bigFont {
		rows, ok := bigText(string(r))
		if !ok {
			t.Errorf("%q: not drawn", r)
			continue
		}
		on := false
		for _, row := range rows {
			if n := len([]rune(row)); n != 3 {
				t.Errorf("%q: row %q is %d wide", r, row, n)
			}
			on = on || strings.TrimSpace(row) != ""
		}
		for _, p := range g {
			if len(p) != 3 || strings.Trim(p, ".#") != "" {
				t.Errorf("%q: bad pixel row %q", r, p)
			}
		}
		if !on {
			t.Errorf("%q draws nothing", r)
		}
	}
	// Glyphs that must be told apart on a projector differ.
	seen := map[[3]string]rune{}
	for _, r := range "0123456789ABCDEFGHJKMNPQRSTVWXYZ.:-" { // Crockford's alphabet, and an address's
		rows, _ := bigText(string(r))
		if o, dup := seen[rows]; dup {
			t.Errorf("%q and %q look the same", o, r)
		}
		seen[rows] = r
	}
	rows, ok := bigText("4f7k-Q2:7443.")
	if !ok || len([]rune(rows[0])) != 13*4-1 {
		t.Errorf("bigText(lower case, punctuation) = %q, %v", rows, ok)
	}
	for _, bad := range []string{"", "[::1]:7443", "host_name", "é"} {
		if _, ok := bigText(bad); ok {
			t.Errorf("bigText(%q) drew", bad)
		}
	}
	if a, c, ok := joinParts("kubewalk join 192.168.1.20:7443 --code 4F7K-Q2"); !ok || a != "192.168.1.20:7443" || c != "4F7K-Q2" {
		t.Errorf("joinParts = %q %q %v", a, c, ok)
	}
}
