package observe

import (
	"context"
)

// RedactFunc replaces the credentials in a text.
type RedactFunc func(ctx context.Context, text string) (string, error)

// Redact replaces the credentials in every string of a record that came
// from the agent or the disk: the command, paths, names, notes, the
// User-Agent (the record holds no text of the requests, only sizes and
// hashes).
func Redact(ctx context.Context, r *Record, redact RedactFunc) error {
	var err error
	do := func(s *string) {
		if err != nil || *s == "" {
			return
		}
		*s, err = redact(ctx, *s)
	}
	do(&r.Dir)
	do(&r.Upstream)
	for i := range r.Command {
		do(&r.Command[i])
	}
	for i := range r.Requests {
		q := &r.Requests[i]
		do(&q.Path)
		do(&q.UserAgent)
		do(&q.Client)
		do(&q.Model)
		for j := range q.Notes {
			do(&q.Notes[j])
		}
		for j := range q.Segments {
			s := &q.Segments[j]
			do(&s.Name)
			if s.File != nil {
				do(&s.File.Path)
			}
		}
	}
	if c := r.Comparison; c != nil {
		for i := range c.Files {
			do(&c.Files[i].Path)
		}
	}
	return err
}
