package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxaudit/ctx/internal/fileio"
)

// ErrNotFound is returned (wrapped) by an [AttachmentResolver] that has no
// attachment for a key. Build reports such an attachment as missing.
var ErrNotFound = errors.New("attachment not found")

// AttachmentResolver reads attachment content by storage key.
//
// Read returns the whole content, an error wrapping [ErrNotFound] when the
// key is unknown, or another error when reading failed. Build calls Read at
// most once per distinct key, from up to Options.ReadConcurrency goroutines
// at once, so implementations must be safe for concurrent use and should
// honour ctx.
type AttachmentResolver interface {
	Read(ctx context.Context, key string) (string, error)
}

// MapResolver is an [AttachmentResolver] backed by a map from storage key to
// content, for tests and callers that already hold the content.
type MapResolver map[string]string

// Read returns m[key], or ErrNotFound.
func (m MapResolver) Read(ctx context.Context, key string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s, ok := m[key]
	if !ok {
		return "", fmt.Errorf("key %q: %w", key, ErrNotFound)
	}
	return s, nil
}

// DefaultMaxAttachmentBytes is the largest file a [DirResolver] reads when
// its MaxBytes is 0.
const DefaultMaxAttachmentBytes = 64 << 20

// DirResolver is an [AttachmentResolver] that reads the file named by the
// storage key inside a directory. Keys must be local, slash-separated paths
// (no "..", no absolute path, no backslash); the file is opened through an
// [os.Root], so symbolic links cannot lead outside the directory either. At
// most a fixed number of reads run at once, and a file larger than the byte
// limit is an error rather than a silent truncation.
//
// Create one with [NewDirResolver] and Close it when done.
type DirResolver struct {
	root     *os.Root
	sem      chan struct{}
	maxBytes int64
}

// NewDirResolver opens dir for reading attachments. concurrency bounds the
// reads in flight (0 means DefaultReadConcurrency); maxBytes bounds the size
// of one file (0 means DefaultMaxAttachmentBytes).
func NewDirResolver(dir string, concurrency int, maxBytes int64) (*DirResolver, error) {
	if concurrency < 0 || maxBytes < 0 {
		return nil, fmt.Errorf("invalid dir resolver limits (concurrency %d, max bytes %d): %w", concurrency, maxBytes, ErrNegativeLimit)
	}
	if concurrency == 0 {
		concurrency = DefaultReadConcurrency
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxAttachmentBytes
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to open attachment directory: %w", err)
	}
	return &DirResolver{root: root, sem: make(chan struct{}, concurrency), maxBytes: maxBytes}, nil
}

// Close releases the directory.
func (d *DirResolver) Close() error { return d.root.Close() }

// Read returns the content of the file named key.
func (d *DirResolver) Read(ctx context.Context, key string) (string, error) {
	if key == "" || strings.Contains(key, `\`) || !filepath.IsLocal(filepath.FromSlash(key)) {
		return "", fmt.Errorf("refused attachment key %q: not a local path", key)
	}
	select {
	case d.sem <- struct{}{}:
		defer func() { <-d.sem }()
	case <-ctx.Done():
		return "", ctx.Err()
	}
	b, _, err := fileio.ReadIn(d.root, filepath.FromSlash(key), d.maxBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("key %q: %w", key, ErrNotFound)
	case errors.Is(err, fileio.ErrIsDir), errors.Is(err, fileio.ErrNotRegular):
		return "", fmt.Errorf("attachment %q is not a regular file", key)
	case errors.Is(err, fileio.ErrTooLarge):
		return "", fmt.Errorf("attachment %q is larger than %d bytes", key, d.maxBytes)
	case err != nil:
		return "", fmt.Errorf("attachment %q: %s", key, fileio.Describe(err))
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return string(b), nil
}

// BuildRequest builds req as [Build] does, with the request's compaction
// points, reading attachments from attachmentsDir (when not "") through a
// [DirResolver] that it closes; o.AttachmentResolver is used otherwise.
// It is how `ctx history` and the manifest's history build a history file.
func BuildRequest(ctx context.Context, req Request, o Options, attachmentsDir string) (Result, error) {
	o.CompactionPoints = req.CompactionPoints
	if attachmentsDir != "" {
		dr, err := NewDirResolver(attachmentsDir, 0, 0)
		if err != nil {
			return Result{}, &AttachmentsDirError{Err: err}
		}
		defer dr.Close()
		o.AttachmentResolver = dr
	}
	return Build(ctx, req.Messages, o)
}

// AttachmentsDirError is returned by [BuildRequest] when the attachments
// directory cannot be opened.
type AttachmentsDirError struct{ Err error }

func (e *AttachmentsDirError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *AttachmentsDirError) Unwrap() error { return e.Err }
