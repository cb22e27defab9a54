package class

import (
	"strings"
)

// A join line large enough for a projector: the board draws the join command's address and
// code in block letters of a built-in 3×5 font, two pixel rows to a terminal row (▀ ▄ █), so
// a line of them is 3 rows high and each letter 3 columns wide with a column between. It
// covers what join lines hold: digits, capitals, '.', ':' and '-'.

// bigFont is each glyph's five pixel rows, '#' on.
var bigFont = map[rune][5]string{
	'0': {"###", "#.#", "#.#", "#.#", "###"},
	'1': {".#.", "##.", ".#.", ".#.", "###"},
	'2': {"###", "..#", "###", "#..", "###"},
	'3': {"###", "..#", "###", "..#", "###"},
	'4': {"#.#", "#.#", "###", "..#", "..#"},
	'5': {"###", "#..", "###", "..#", "###"},
	'6': {"###", "#..", "###", "#.#", "###"},
	'7': {"###", "..#", "..#", "..#", "..#"},
	'8': {"###", "#.#", "###", "#.#", "###"},
	'9': {"###", "#.#", "###", "..#", "###"},
	'A': {"###", "#.#", "###", "#.#", "#.#"},
	'B': {"##.", "#.#", "##.", "#.#", "##."},
	'C': {"###", "#..", "#..", "#..", "###"},
	'D': {"##.", "#.#", "#.#", "#.#", "##."},
	'E': {"###", "#..", "##.", "#..", "###"},
	'F': {"###", "#..", "##.", "#..", "#.."},
	'G': {"###", "#..", "#.#", "#.#", "###"},
	'H': {"#.#", "#.#", "###", "#.#", "#.#"},
	'I': {"###", ".#.", ".#.", ".#.", "###"},
	'J': {"..#", "..#", "..#", "#.#", "###"},
	'K': {"#.#", "#.#", "##.", "#.#", "#.#"},
	'L': {"#..", "#..", "#..", "#..", "###"},
	'M': {"#.#", "###", "###", "#.#", "#.#"},
	'N': {"##.", "#.#", "#.#", "#.#", "#.#"},
	'O': {".#.", "#.#", "#.#", "#.#", ".#."},
	'P': {"###", "#.#", "###", "#..", "#.."},
	'Q': {"###", "#.#", "#.#", "###", "..#"},
	'R': {"###", "#.#", "##.", "#.#", "#.#"},
	'S': {".##", "#..", ".#.", "..#", "##."},
	'T': {"###", ".#.", ".#.", ".#.", ".#."},
	'U': {"#.#", "#.#", "#.#", "#.#", "###"},
	'V': {"#.#", "#.#", "#.#", "#.#", ".#."},
	'W': {"#.#", "#.#", "###", "###", "#.#"},
	'X': {"#.#", "#.#", ".#.", "#.#", "#.#"},
	'Y': {"#.#", "#.#", ".#.", ".#.", ".#."},
	'Z': {"###", "..#", ".#.", "#..", "###"},
	'.': {"...", "...", "...", "...", ".#."},
	':': {"...", ".#.", "...", ".#.", "..."},
	'-': {"...", "...", "###", "...", "..."},
}

// bigText draws s in the block font: 3 rows, 4 columns a letter less the last gap. ok is false
// when s is empty or has a letter the font lacks (lower case is drawn as upper case).
func bigText(s string) (rows [3]string, ok bool) {
	if s == "" {
		return rows, false
	}
	var b [3]strings.Builder
	for i, r := range strings.ToUpper(s) {
		g, found := bigFont[r]
		if !found {
			return [3]string{}, false
		}
		for row := range 3 {
			if i > 0 {
				b[row].WriteByte(' ')
			}
			for col := range 3 {
				top := g[2*row][col] == '#'
				bottom := 2*row+1 < 5 && g[2*row+1][col] == '#'
				b[row].WriteString(halfBlock(top, bottom))
			}
		}
	}
	for row := range 3 {
		rows[row] = b[row].String()
	}
	return rows, true
}

// halfBlock is the character with the upper and lower half of its cell on as asked.
func halfBlock(top, bottom bool) string {
	switch {
	case top && bottom:
		return "█"
	case top:
		return "▀"
	case bottom:
		return "▄"
	}
	return " "
}

// joinParts finds the address and the code in a join line ("kubewalk join ADDR --code CODE").
func joinParts(line string) (addr, code string, ok bool) {
	f := strings.Fields(line)
	for i := 0; i+1 < len(f); i++ {
		switch f[i] {
		case "join":
			addr = f[i+1]
		case "--code":
			code = f[i+1]
		}
	}
	return addr, code, addr != "" && code != ""
}
