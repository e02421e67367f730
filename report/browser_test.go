package report

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/ctxaudit/ctx/audit"
	"github.com/ctxaudit/ctx/config"
	"github.com/ctxaudit/ctx/internal/mdtext"
	"github.com/ctxaudit/ctx/manifest"
	"github.com/ctxaudit/ctx/profile"

	"github.com/ctxaudit/ctx/internal/testlane"
)

// The screenshot of docs/commands.md: this repository's report (docs/report.toml)
// at this size.
const (
	shotWidth  = 1000
	shotHeight = 760
)

// browser is the Chromium of the machine: Debian's chromium package, or
// chromium-browser elsewhere; "" when there is none.
func browser() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// selfFixture is the report of this repository as docs/report.toml
// configures it (its Go packages in the skeleton view, as Claude Code sees
// it): the page of docs/report.png.
func selfFixture(t *testing.T) fixture {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	p, err := config.LoadProject(config.ProjectOptions{Dir: dir, File: filepath.Join(dir, "docs", "report.toml")})
	if err != nil {
		t.Fatal(err)
	}
	if rp := p.Config.RelativePaths; rp == nil || !*rp {
		t.Fatal("docs/report.toml: relative_paths is not true (the page would name this clone)")
	}
	o := p.ManifestOptions()
	o.Profile = profile.Claude
	m, err := manifest.Build(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := p.Config.Scanner()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := audit.RunContext(context.Background(), m, audit.Options{Thresholds: p.Thresholds(), Secrets: sc})
	if err != nil {
		t.Fatal(err)
	}
	return fixture{name: "self", m: m, rep: rep, home: p.Home, read: SourceReader(dir, p.Home)}
}

// TestBrowser opens the report of each fixture and of this repository in
// headless Chromium, from disk: no console errors or exceptions, every
// source id and the largest files on the page, the tiles' areas in the
// proportion of their tokens as the browser lays them out. Screenshots go
// to CTX_REPORT_SHOTS (a directory), else to a temporary directory; with
// CTX_UPDATE=1 the one of this repository replaces docs/report.png.
func TestBrowser(t *testing.T) {
	testlane.Program(t, "drives chromium")
	bin := browser()
	if bin == "" {
		t.Skip("no chromium or chromium-browser in PATH: install Debian's chromium package to run the browser test")
	}
	shots := os.Getenv("CTX_REPORT_SHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	pages := t.TempDir()
	all := append(slices.Clone(fixtures(t)), selfFixture(t))

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(shotWidth, shotHeight), chromedp.Flag("hide-scrollbars", true), chromedp.Flag("force-device-scale-factor", "1"))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", bin, err)
	}

	// the harness sees what it must report
	bad := filepath.Join(pages, "bad.html")
	if err := os.WriteFile(bad, []byte(`<!DOCTYPE html><title>bad</title><img src="missing.png"><script>console.error("boom"); null.x;</script>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, problems := open(t, bctx, bad); len(problems) < 3 {
		t.Errorf("a page with a console error, an exception and a missing image gave %q", problems)
	}

	for _, f := range all {
		t.Run(f.name, func(t *testing.T) {
			html := filepath.Join(pages, f.name+".html")
			if err := os.WriteFile(html, pageOf(t, f), 0o644); err != nil {
				t.Fatal(err)
			}
			d, problems := open(t, bctx, html)
			for _, p := range problems {
				t.Errorf("%s: %s", f.name, p)
			}

			// every source id, in the sources table
			v := &viewer{m: f.m, home: f.home}
			for _, s := range f.m.Sources {
				if id := v.id(s.ID); !slices.Contains(d.IDs, id) {
					t.Errorf("source %q is not in the sources table %q", id, d.IDs)
				}
			}
			// the largest files, in the files table
			rows := slices.Clone(f.m.Files)
			slices.SortStableFunc(rows, func(a, b manifest.FileRow) int { return cmp.Compare(b.EmittedTokens, a.EmittedTokens) })
			for _, r := range rows[:min(5, len(rows))] {
				if !strings.Contains(d.Text, mdtext.Escape(r.Path)) {
					t.Errorf("file %s (%d tokens) is not on the page", r.Path, r.EmittedTokens)
				}
			}

			// areas in proportion to tokens, as laid out by the browser
			if len(d.Tiles) == 0 {
				t.Fatal("no tiles")
			}
			var area, toks float64
			for _, x := range d.Tiles {
				area += x.W * x.H
				toks += x.Tokens
			}
			k := area / toks // square pixels per token
			for _, x := range d.Tiles {
				want := k * x.Tokens
				// 1 % or a quarter of a pixel on each side
				if got := x.W * x.H; math.Abs(got-want) > 0.01*want+0.25*(x.W+x.H) {
					t.Errorf("tile %s: %.1f px² for %.0f tokens, want %.1f", x.ID, got, x.Tokens, want)
				}
			}
			t.Logf("%d tiles, %d bytes", len(d.Tiles), len(pageOf(t, f)))

			for name, b := range map[string][]byte{f.name + ".png": d.top, f.name + "-full.png": d.full} {
				if err := os.WriteFile(filepath.Join(shots, name), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if f.name == "self" && update {
				small, err := shrinkPNG(d.top)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join("..", "docs", "report.png"), small, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("docs/report.png: %d bytes", len(small))
			}
		})
	}
	t.Logf("screenshots in %s", shots)
}

type tileBox struct {
	ID     string  `json:"id"`
	Tokens float64 `json:"tokens"`
	W      float64 `json:"w"`
	H      float64 `json:"h"`
}

// pageData is what the browser shows of a page.
type pageData struct {
	Text  string    `json:"text"`
	Tiles []tileBox `json:"tiles"`
	IDs   []string  `json:"ids"`

	top, full []byte // screenshots: the viewport and the whole page
}

// open loads the page at path in a new tab of the browser of bctx, and
// returns what it shows and the console errors and warnings, exceptions
// and error log entries (a file that failed to load) it caused.
func open(t *testing.T, bctx context.Context, path string) (pageData, []string) {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	var problems []string
	err := chromedp.Listen(ctx, func(ev any) {
		var p string
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, cmp.Or(a.Description, string(a.Value)))
				}
				p = fmt.Sprintf("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			p = "exception: " + ev.ExceptionDetails.Text
			if ev.ExceptionDetails.Exception != nil {
				p += " " + ev.ExceptionDetails.Exception.Description
			}
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
				p = fmt.Sprintf("log %s (%s): %s %s", ev.Entry.Level, ev.Entry.Source, ev.Entry.Text, ev.Entry.URL)
			}
		}
		if p != "" {
			mu.Lock()
			problems = append(problems, p)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: path}).String()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(shotWidth, shotHeight), chromedp.Navigate(u)); err != nil {
		t.Fatal(err)
	}
	d, err := chromedp.Run(ctx, chromedp.Evaluate[pageData](`({
		text: document.body.innerText,
		tiles: Array.from(document.querySelectorAll("svg.treemap rect.tile")).map(r => {
			const b = r.getBoundingClientRect();
			return {id: r.dataset.id, tokens: Number(r.dataset.tokens), w: b.width, h: b.height};
		}),
		ids: Array.from(document.querySelectorAll("#sources tbody td:first-child")).map(td => td.textContent),
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if d.top, err = chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil {
		t.Fatal(err)
	}
	if d.full, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
		t.Fatal(err)
	}
	// the events of the load have arrived: the screenshots came after them
	mu.Lock()
	defer mu.Unlock()
	return d, slices.Clone(problems)
}

// shrinkPNG re-encodes a screenshot with at most 256 colours (the most
// frequent ones: the page's flat fills, and the shades of its text) at the
// best compression.
func shrinkPNG(data []byte) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		colors = append(colors, c)
	}
	slices.SortFunc(colors, func(a, b color.RGBA) int {
		if c := cmp.Compare(counts[b], counts[a]); c != 0 {
			return c
		}
		return cmp.Compare(uint32(a.R)<<24|uint32(a.G)<<16|uint32(a.B)<<8|uint32(a.A), uint32(b.R)<<24|uint32(b.G)<<16|uint32(b.B)<<8|uint32(b.A))
	})
	// the colours of the page's style first, however rare (the hatch of a
	// thin tile, a swatch of the legend)
	pal := make(color.Palette, 0, 256)
	for _, m := range regexp.MustCompile(`#([0-9a-f]{6})\b`).FindAllStringSubmatch(pageHTML, -1) {
		var r, g, b uint8
		if _, err := fmt.Sscanf(m[1], "%02x%02x%02x", &r, &g, &b); err == nil {
			if c := (color.RGBA{r, g, b, 255}); !slices.Contains(pal, color.Color(c)) && counts[c] > 0 {
				pal = append(pal, c)
			}
		}
	}
	for _, c := range colors {
		if len(pal) == 256 {
			break
		}
		if !slices.Contains(pal, color.Color(c)) {
			pal = append(pal, c)
		}
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
