package aggregate

// DefaultEngine returns the engine the pipeline uses when Options.Engine is
// nil.
func DefaultEngine() Engine { return TextEngine{} }
