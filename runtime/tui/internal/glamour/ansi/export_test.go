package ansi

// ResetChromaStyles forgets the "charm" chroma style registered by the first code block
// rendered, as deleting it from chroma's styles.Registry does for upstream glamour.
func ResetChromaStyles() {
	mutex.Lock()
	clear(styleRegistry)
	mutex.Unlock()
}
