package report

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/measure"
	"github.com/ctxaudit/ctx/render"
)

// The pages of the fixtures, as golden files; the same input gives the
// same bytes.
func TestGolden(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			got := pageOf(t, f)
			if again := pageOf(t, f); !bytes.Equal(got, again) {
				t.Fatal("two runs differ")
			}
			golden(t, f.name+".html", got)
		})
	}
}

// What each page must hold: every source id, the findings' messages, the
// identity of the manifest, and no raw markup or control character from a
// name.
func TestContent(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			html := string(pageOf(t, f))
			for _, s := range f.m.Sources {
				if id := (&viewer{m: f.m, home: fixtureHome}).id(s.ID); !strings.Contains(html, htmlText(id)) {
					t.Errorf("source %s is not on the page", s.ID)
				}
			}
			doc := audit.NewDocument(f.rep, audit.WriteOptions{Home: fixtureHome})
			for _, x := range doc.Findings {
				if !strings.Contains(html, htmlText(x.Message)) {
					t.Errorf("finding %s %s: %q is not on the page", x.SourceID, x.Code, x.Message)
				}
			}
			data, err := manifest.Marshal(f.m)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range []string{measure.Hash(data), measure.Hash([]byte(render.Text(f.m))), f.m.Estimator} {
				if !strings.Contains(html, htmlText(h)) {
					t.Errorf("%q is not in the footer", h)
				}
			}
			if strings.Contains(html, "<script>") || strings.Contains(html, "<b>odd") {
				t.Error("a name reached the page as markup")
			}
			if i := strings.IndexFunc(html, func(r rune) bool { return r < ' ' && r != '\n' || r == 0x7f || r == utf8.RuneError }); i >= 0 {
				t.Errorf("a control character reached the page: %q", html[max(0, i-40):min(len(html), i+40)])
			}
			for _, bad := range []string{"http://", "https://"} {
				for _, m := range regexp.MustCompile(regexp.QuoteMeta(bad)+`[^"' <]*`).FindAllString(html, -1) {
					if m != "http://www.w3.org/2000/svg" {
						t.Errorf("the page links out: %s", m)
					}
				}
			}
		})
	}
}

// htmlText is s as html/template writes it in text.
func htmlText(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

func TestSmallPage(t *testing.T) {
	f := fixtureNamed(t, "small")
	html := string(pageOf(t, f))
	for _, want := range []string{
		`data-id="project_agents"`,                  // a source tile
		`class="tile k-native"`,                     // the agent's own file, hatched
		`class="tile k-reduced"`,                    // the skeleton view
		`class="tile k-screenshot"`,                 // a screenshot
		`class="tile k-beads"`,                      // the Beads section
		`class="tile k-history"`,                    // the history
		`data-id="internal/api/handlers.go"`,        // a file, by its path
		`docs/&lt;b&gt;odd&lt;/b&gt; &amp; name.md`, // markup in a name is text
		`Names &lt;script&gt;alert(1)&lt;/script&gt; &amp; \x1b[31mred\x1b[0m`, // a heading, escaped twice over
		"(before the first heading)",
		"loaded by the agent itself",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// the heading inside the code fence is not a section
	if strings.Contains(html, "not a heading") {
		t.Error("a comment in a code fence was taken for a heading")
	}
}

func TestBudgetsPage(t *testing.T) {
	f := fixtureNamed(t, "budgets")
	html := string(pageOf(t, f))
	for _, want := range []string{
		"Budget <code>project</code>", "Budget <code>team</code>", "Budget <code>tokens</code>", "Budget <code>note</code>",
		"No source uses this budget.",
		`class="bar-used over"`,                  // a threshold exceeded
		"left out (budget used up)",              // ops found team's pool empty
		`<span class="sev error">error</span> 1`, // the credential
		"AWS_KEY",                                // never: see below
	} {
		if want == "AWS_KEY" {
			if strings.Contains(html, want) || strings.Contains(html, "JPJOMKEFOIUC5LGT") {
				t.Error("the page shows file text")
			}
			continue
		}
		if !strings.Contains(html, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, r := range f.m.Files {
		if r.Status == "degraded" || r.Status == "omitted" {
			if !strings.Contains(html, `<td class="mono">`+htmlText(r.Path)+`</td><td>`+string(r.Status)) {
				t.Errorf("%s (%s) is not among the cuts", r.Path, r.Status)
			}
		}
	}
}

// Large projects merge small tiles, and the page stays small.
func TestLargePage(t *testing.T) {
	f := fixtureNamed(t, "large")
	html := pageOf(t, f)
	if len(html) > 400_000 {
		t.Errorf("page of %d files is %d bytes", len(f.m.Files), len(html))
	}
	tiles := bytes.Count(html, []byte(`<rect class="tile `))
	if tiles < 50 || tiles > 1500 {
		t.Errorf("%d tiles for %d files", tiles, len(f.m.Files))
	}
	if !bytes.Contains(html, []byte("more files")) {
		t.Error("no merged tile")
	}
}

var tileRE = regexp.MustCompile(`<rect class="tile k-[a-z]+" x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" data-id="[^"]*" data-tokens="([0-9]+)">`)

// The tiles cover the map, and each one's area is its tokens' share.
func TestTileAreas(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			html := pageOf(t, f)
			var areas, toks []float64
			total, sum := 0.0, 0.0
			for _, m := range tileRE.FindAllSubmatch(html, -1) {
				w, _ := strconv.ParseFloat(string(m[3]), 64)
				h, _ := strconv.ParseFloat(string(m[4]), 64)
				n, _ := strconv.ParseFloat(string(m[5]), 64)
				areas, toks = append(areas, w*h), append(toks, n)
				total += w * h
				sum += n
			}
			if len(areas) == 0 {
				t.Fatal("no tiles")
			}
			if math.Abs(total-mapWidth*mapHeight) > 0.001*mapWidth*mapHeight {
				t.Errorf("tiles cover %.0f of %d", total, mapWidth*mapHeight)
			}
			for i := range areas {
				want := toks[i] / sum * mapWidth * mapHeight
				if math.Abs(areas[i]-want) > 0.01*want+0.5 {
					t.Errorf("tile %d: area %.2f, want %.2f for %v tokens", i, areas[i], want, toks[i])
				}
			}
		})
	}
}

func TestSquarify(t *testing.T) {
	// the example of Bruls et al.: 6, 6, 4, 3, 2, 2, 1 in a 6×4 rectangle
	rs := squarify([]float64{6, 6, 4, 3, 2, 2, 1}, rect{0, 0, 6, 4})
	want := []rect{{0, 0, 3, 2}, {0, 2, 3, 2}}
	for i, w := range want {
		if math.Abs(rs[i].x-w.x)+math.Abs(rs[i].y-w.y)+math.Abs(rs[i].w-w.w)+math.Abs(rs[i].h-w.h) > 1e-9 {
			t.Errorf("rect %d = %+v, want %+v", i, rs[i], w)
		}
	}
	area := 0.0
	for i, r := range rs {
		area += r.area()
		if v := []float64{6, 6, 4, 3, 2, 2, 1}[i]; math.Abs(r.area()-v) > 1e-9 {
			t.Errorf("rect %d has area %v, want %v", i, r.area(), v)
		}
		if r.x < 0 || r.y < 0 || r.x+r.w > 6+1e-9 || r.y+r.h > 4+1e-9 {
			t.Errorf("rect %d %+v is outside", i, r)
		}
	}
	if math.Abs(area-24) > 1e-9 {
		t.Errorf("area %v", area)
	}
	if rs := squarify(nil, rect{0, 0, 1, 1}); len(rs) != 0 {
		t.Error(rs)
	}
	if rs := squarify([]float64{5}, rect{1, 2, 3, 4}); rs[0] != (rect{1, 2, 3, 4}) {
		t.Error(rs)
	}
}

func TestSplitSections(t *testing.T) {
	text := "intro\n# A\n\ntext\n```\n# in a fence\n````\nafter the fence\n" +
		"  ## B ##\n    # indented code\n#no space\n~~~~\n# fenced\n~~~\n# still fenced\n~~~~~\n###### C\n####### seven\n#\n"
	got := splitSections(text)
	var titles []string
	joined := ""
	for _, s := range got {
		titles = append(titles, strconv.Itoa(s.Level)+":"+s.Title+"@"+strconv.Itoa(s.Line))
		joined += s.Text
	}
	if joined != text {
		t.Errorf("sections do not add up to the text")
	}
	want := "0:@1 1:A@2 2:B@9 6:C@17 1:@19"
	if g := strings.Join(titles, " "); g != want {
		t.Errorf("sections %s, want %s", g, want)
	}
	if got := splitSections("   \n\n"); len(got) != 0 {
		t.Errorf("blank text: %+v", got)
	}
	if got := splitSections("# T\r\nx\r\n"); len(got) != 1 || got[0].Title != "T" {
		t.Errorf("CRLF: %+v", got)
	}
}

// A page can be written for a manifest without an audit (the default
// thresholds), and not for an audit of another manifest.
func TestWriteInputs(t *testing.T) {
	f := fixtureNamed(t, "small")
	var b bytes.Buffer
	if err := Write(context.Background(), &b, f.m, nil, Options{Home: fixtureHome}); err != nil || b.Len() == 0 {
		t.Fatalf("without an audit: %v", err)
	}
	other := *f.m
	if err := Write(context.Background(), &b, &other, f.rep, Options{}); err == nil {
		t.Error("an audit of another manifest was accepted")
	}
	if err := Write(context.Background(), &b, nil, nil, Options{}); err == nil {
		t.Error("no manifest was accepted")
	}
	// nothing sent: no map
	empty := &manifest.Manifest{SchemaVersion: 1, Agent: "a", ProjectDir: "/p", Estimator: measure.Default().Name()}
	b.Reset()
	if err := Write(context.Background(), &b, empty, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Nothing is sent") || strings.Contains(b.String(), "<svg class=\"treemap\"") {
		t.Error("an empty manifest has a map")
	}
}

func TestFit(t *testing.T) {
	for _, tc := range []struct {
		label string
		w     float64
		fit   string
		tail  string
	}{
		{"handlers.go", 200, "handlers.go", "handlers.go"},
		{"handlers.go", 6 + 5*charWidth, "hand…", "…s.go"},
		{"cmd/vendor/golang.org/x/sys/unix/", 6 + 14*charWidth, "cmd/vendor/go…", "…x/sys/unix/"},
		{"abc", 6 + 2*charWidth, "", ""},
		{"handlers.go", 6 + 4*charWidth, "", ""}, // "han…" says nothing: no label
		{"ünïcödé/ñame", 6 + 6*charWidth, "ünïcö…", "…ñame"},
	} {
		if got := fit(tc.label, tc.w); got != tc.fit {
			t.Errorf("fit(%q) = %q, want %q", tc.label, got, tc.fit)
		}
		if got := fitTail(tc.label, tc.w); got != tc.tail {
			t.Errorf("fitTail(%q) = %q, want %q", tc.label, got, tc.tail)
		}
	}
}

// The files the agent loads by itself are split at their headings too,
// when Options.ReadFile reads them unchanged: what the agent keeps of
// them, and a note naming those that changed or cannot be read.
func TestNativeSections(t *testing.T) {
	f := fixtureNamed(t, "small")
	const id, heading = "native:~/.claude/notes.md", "Notes the agent loads"
	page := func(m *manifest.Manifest, read func(string) ([]byte, error)) string {
		t.Helper()
		var b bytes.Buffer
		if err := Write(context.Background(), &b, m, nil, Options{Home: fixtureHome, ReadFile: read}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	row := regexp.MustCompile(`<td class="mono id">` + regexp.QuoteMeta(id) + `</td><td class="n">1</td><td><span class="mono">H1</span> ` + heading + `</td><td class="n">([0-9,]+)</td>`)
	html := page(f.m, f.read)
	m := row.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("the native file's heading is not listed")
	}
	data, err := f.read(fixtureHome + "/.claude/notes.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := strconv.Itoa(measure.Default().Tokens(data)); m[1] != want {
		t.Errorf("the native section has %s tokens, want %s", m[1], want)
	}
	if !strings.Contains(html, "and 1 file the agent loads itself, split at") {
		t.Error("the note does not count the native file")
	}
	if strings.Contains(page(f.m, nil), heading) {
		t.Error("without ReadFile a native file was read")
	}

	// changed since the manifest, or unreadable: named, not listed
	changed := page(f.m, func(string) ([]byte, error) { return []byte("# Other\n"), nil })
	unreadable := page(f.m, func(string) ([]byte, error) { return nil, errors.New("unreadable") })
	for html, why := range map[string]string{changed: "changed since the manifest", unreadable: "unreadable"} {
		if strings.Contains(html, heading) || strings.Contains(html, "# Other") || !strings.Contains(html, "not read: "+id+" ("+why+")") {
			t.Errorf("a native file that is %s: the note is not there or the file is listed", why)
		}
	}

	// the agent keeps the first 40 bytes: only they count
	cut := *f.m
	cut.Profile = &manifest.Profile{Name: "claude", Files: []manifest.ProfileFile{{ID: "native:" + fixtureHome + "/.claude/notes.md", Rule: "test", LoadedBytes: 40, LoadedTokens: 10, CutBytes: len(data) - 40}}}
	m = row.FindStringSubmatch(page(&cut, f.read))
	if want := strconv.Itoa(measure.Default().Tokens(data[:40])); m == nil || m[1] != want {
		t.Errorf("the cut native section: %q, want %s tokens", m, want)
	}
}

// The findings are listed up to Options.Findings per severity; the heading
// counts them all and a line counts those left out.
func TestFindingsCap(t *testing.T) {
	f := fixtureNamed(t, "budgets")
	counts := map[audit.Severity]int{}
	for _, x := range audit.NewDocument(f.rep, audit.WriteOptions{Home: f.home}).Findings {
		counts[x.Severity]++
	}
	capped := false
	for _, n := range counts {
		capped = capped || n > 1
	}
	if !capped {
		t.Fatalf("the fixture has no severity with two findings: %v", counts)
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, f.m, f.rep, Options{Home: f.home, ReadFile: f.read, Findings: 1}); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	sec := html[strings.Index(html, "<h2>Findings</h2>"):strings.Index(html, `<section id="sources">`)]
	for _, sev := range []audit.Severity{audit.Error, audit.Warning, audit.Info} {
		head := fmt.Sprintf(`<span class="sev %s">%s</span> %d</h3>`, sev, sev, counts[sev])
		i := strings.Index(sec, head)
		if i < 0 {
			t.Fatalf("no heading %q in\n%s", head, sec)
		}
		group := sec[i:]
		if j := strings.Index(group[len(head):], "<h3>"); j >= 0 {
			group = group[:len(head)+j]
		}
		if rows := strings.Count(group, "<tr><td"); rows != min(counts[sev], 1) {
			t.Errorf("%s: %d rows listed, want %d", sev, rows, min(counts[sev], 1))
		}
		more := fmt.Sprintf("%d more, not listed here", counts[sev]-1)
		if got := strings.Contains(group, more); got != (counts[sev] > 1) {
			t.Errorf("%s: line %q shown %v, %d findings", sev, more, got, counts[sev])
		}
	}
}
