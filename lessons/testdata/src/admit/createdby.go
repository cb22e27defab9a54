// Package admit is a fixture subpackage.
package admit

// CreatedBy is an admission plugin.
type CreatedBy struct{}

// Admit stamps the creator.
func (c *CreatedBy) Admit() error {
	return nil
}
