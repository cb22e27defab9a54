package view

import "sync/atomic"

// Waiter records whether a view's background waiter (a command that blocks on a channel until
// something changes) is blocked right now. A view that keeps such a waiter says "armed" as soon
// as it returns the command, but the command may still sit unexpanded in a tea.Batch, or may
// have woken and be reading what changed: in neither case is the view idle. The TUI's test
// harness counts a waiter as idle only while Blocked reports true, so it never mistakes a
// snapshot on its way for quiet.
//
// The zero value is ready to use; a Waiter must not be copied after first use.
type Waiter struct{ n atomic.Int32 }

// Enter marks the waiter blocked; call it just before the select that waits.
func (w *Waiter) Enter() { w.n.Add(1) }

// Leave marks the waiter awake; call it as soon as that select returns.
func (w *Waiter) Leave() { w.n.Add(-1) }

// Blocked reports whether a waiter is between Enter and Leave.
func (w *Waiter) Blocked() bool { return w.n.Load() > 0 }
