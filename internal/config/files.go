package config

// Aggregate holds the [files], [screenshots], [output] and [presets.NAME]
// tables used by the aggregation pipeline.
type Aggregate struct {
	Set bool
}

// decodeAggregate decodes the aggregation tables.
func decodeAggregate(t Table, c *Config) error {
	for _, k := range []string{"files", "screenshots", "output", "presets"} {
		if t.Has(k) {
			return t.Errorf(k, "not supported yet")
		}
	}
	return nil
}
