package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ctxaudit/ctx/history"
	"github.com/ctxaudit/ctx/internal/config"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
)

// addHistory builds the [discussion] history into m: the manifest.History
// record and the rendered Discussion History section, last.
//
// The history file and the attachments directory are relative to the
// project directory (~ expands to the home directory). The section is
// historySection of history.Markdown of the built messages, the same bytes
// as ctx messages --format markdown; it is left out when no message
// remains, and the record's hash is then the hash of the empty text.
func addHistory(c *cli.Context, s *setup, m *manifest.Manifest) error {
	if s == nil || s.cfg == nil || s.cfg.Discussion == nil {
		return nil
	}
	d := s.cfg.Discussion
	where := fmt.Sprintf("%s:%d: discussion", s.cfg.File, d.Line)
	f, err := openRegular(config.Resolve(s.projectDir, s.home, d.History), d.History)
	if err != nil {
		return fmt.Errorf("%s.history: %w", where, err)
	}
	defer f.Close()
	data, req, err := readRequest(d.History, f)
	if err != nil {
		return fmt.Errorf("%s.history: %w", where, err)
	}
	var r history.AttachmentResolver
	if d.Attachments != nil {
		dr, err := history.NewDirResolver(config.Resolve(s.projectDir, s.home, *d.Attachments), 0, 0)
		if err != nil {
			return fmt.Errorf("%s.attachments: %w", where, err)
		}
		defer dr.Close()
		r = dr
	}
	res, _, err := buildHistory(c.Context, req, d, r, s.opts.Estimator)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	text := ""
	if body := history.Markdown(res); body != "" {
		text = historySection(body)
		m.Sections = append(m.Sections, manifest.NewSection(manifest.SectionHistory, text, s.opts.Estimator))
	}
	rep := res.Report
	dropped := map[string]int{}
	for _, dr := range rep.Dropped {
		dropped[string(dr.Reason)]++
	}
	stubbed := 0
	for _, st := range rep.Stubbed {
		if !st.Kept {
			stubbed++
		}
	}
	m.History = &manifest.History{
		File:         d.History,
		SourceHash:   measure.Hash(data),
		MessagesIn:   rep.MessagesIn,
		MessagesOut:  rep.MessagesOut,
		TokensBefore: rep.TokensBefore,
		TokensAfter:  rep.TokensAfter,
		Dropped:      dropped,
		Stubbed:      stubbed,
		Hash:         measure.Hash([]byte(text)),
	}
	return nil
}
