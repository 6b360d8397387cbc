package ignore

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// GlobalExcludesPath returns the path of the user's global excludes file
// as git finds it: core.excludesFile from the system, XDG and home git
// configuration (the last one set wins; GIT_CONFIG_GLOBAL replaces the two
// user files), or by default $XDG_CONFIG_HOME/git/ignore, falling back to
// $HOME/.config/git/ignore. It returns "" when there is no home to look in.
// Include directives of the configuration are not followed.
func GlobalExcludesPath() string {
	home := os.Getenv("HOME")
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	configs := []string{"/etc/gitconfig"}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		configs = append(configs, g)
	} else {
		if xdg != "" {
			configs = append(configs, filepath.Join(xdg, "git", "config"))
		}
		if home != "" {
			configs = append(configs, filepath.Join(home, ".gitconfig"))
		}
	}
	if os.Getenv("GIT_CONFIG_NOSYSTEM") != "" {
		configs = configs[1:]
	}
	found := ""
	for _, c := range configs {
		data, err := readSmall(c) // not a workspace path: the user's git configuration
		if err != nil {
			continue
		}
		if v, ok := excludesFileSetting(data); ok {
			found = v
		}
	}
	if found != "" {
		if rest, ok := strings.CutPrefix(found, "~/"); ok && home != "" {
			found = filepath.Join(home, rest)
		}
		return found
	}
	if xdg == "" {
		return ""
	}
	return filepath.Join(xdg, "git", "ignore")
}

// GlobalExcludes reads the global excludes file (see GlobalExcludesPath)
// as a list for the root. A missing or unreadable file gives an empty list.
func GlobalExcludes() *List {
	p := GlobalExcludesPath()
	if p == "" {
		return &List{}
	}
	data, err := readSmall(p) // not a workspace path: the user's global excludes file
	if err != nil {
		return &List{}
	}
	return Parse("", data)
}

// excludesFileSetting finds core.excludesFile in the text of a git config
// file: section and key names are case-insensitive; the last setting wins.
func excludesFileSetting(data []byte) (string, bool) {
	var val string
	var found bool
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section = strings.ToLower(strings.TrimSpace(line[1:end]))
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if section != "core" {
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "excludesfile") {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, `"`) {
			v = strings.TrimSpace(v[:i])
		}
		v = strings.Trim(v, `"`)
		val, found = v, true
	}
	return val, found
}

// maxConfigBytes bounds what is read of a git config or excludes file.
const maxConfigBytes = 1 << 20

// readSmall reads a regular file of at most maxConfigBytes. It never blocks
// on a FIFO or a device (opened non-blocking, then required to be regular)
// and never reads more than the bound: a larger file is an error, as for the
// ignore files inside the workspace.
func readSmall(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0) // not a workspace path: the user's git files
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%s is over %d bytes", name, maxConfigBytes)
	}
	return data, nil
}
