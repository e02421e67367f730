package config

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/ctxaudit/ctx/discover"
	"github.com/ctxaudit/ctx/internal/fileio"
)

// UserFile returns the user's own configuration file in userConfigDir
// (os.UserConfigDir()): {userConfigDir}/ctx/config.toml. It holds what
// only the user may decide, never a repository's ctx.toml:
//
//	# directories outside a project whose files ctx may read for it:
//	# [files] entries, the [history] history file and attachments
//	allow_outside = ["~/notes", "/srv/shared-docs"]
func UserFile(userConfigDir string) string {
	return filepath.Join(userConfigDir, "ctx", "config.toml")
}

// User is the user's configuration file ([UserFile]).
type User struct {
	// File is the path read; "" when there is none.
	File string
	// AllowOutside are the directories of allow_outside, absolute (a
	// leading ~ expanded, relative paths against the file's directory).
	AllowOutside []string
}

// LoadUser reads the user's configuration file in userConfigDir; no file
// (or userConfigDir "") is an empty User. Errors name the file, the line
// and the key.
func LoadUser(userConfigDir, home string) (*User, error) {
	u := &User{}
	if userConfigDir == "" {
		return u, nil
	}
	file := UserFile(userConfigDir)
	data, _, err := fileio.Read(file, MaxFileSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return u, nil
	case err != nil:
		return nil, readError(file, err)
	}
	d, err := parseDoc(file, data)
	if err != nil {
		return nil, err
	}
	t := d.table()
	if err := t.CheckKeys("allow_outside"); err != nil {
		return nil, err
	}
	dirs, _, err := t.Strings("allow_outside")
	if err != nil {
		return nil, err
	}
	for i, dir := range dirs {
		if isBlank(dir) {
			return nil, d.Errorf(indexKey(t.Field("allow_outside"), i), "must not be empty")
		}
		u.AllowOutside = append(u.AllowOutside, discover.Join(filepath.Dir(file), home, dir))
	}
	u.File = file
	return u, nil
}
