package config

// Discussion is the [discussion] table: the message history that ctx render
// appends last.
type Discussion struct {
}

// decodeDiscussion decodes the [discussion] table.
func decodeDiscussion(t Table, c *Config) error {
	if t.Has("discussion") {
		return t.Errorf("discussion", "not supported yet")
	}
	return nil
}
