package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where a run was made, without any path of it.
type machine struct {
	Date        string `json:"date"`
	CPU         string `json:"cpu"`
	System      string `json:"system"`
	Go          string `json:"go"`
	Node        string `json:"node"`
	PeerVersion string `json:"peer_version"`
	PeerSDK     string `json:"peer_sdk"`
	Stet        string `json:"stet"`
	Load        string `json:"load"` // 1-minute load average at the start and end of the run
}

// loadAvg is the 1-minute load average, or "?".
func loadAvg() string {
	b, err := readFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

func describeMachine(c *config) machine {
	m := machine{
		Date: time.Now().UTC().Format("2006-01-02"),
		Go:   strings.TrimPrefix(runtime.Version(), "go"),
	}
	model := "unknown CPU"
	if b, err := readFile("/proc/cpuinfo"); err == nil {
		model = cpuModel(b)
	}
	m.CPU = fmt.Sprintf("%d vCPU (%s)", runtime.NumCPU(), model)
	if b, err := readFile("/proc/meminfo"); err == nil {
		if kb := meminfoKB(b, "MemTotal"); kb > 0 {
			m.CPU += fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
		}
	}
	kernel := runtime.GOOS
	if b, err := readFile("/proc/sys/kernel/osrelease"); err == nil {
		v := strings.TrimSpace(string(b))
		if i := strings.IndexAny(v, "-+"); i > 0 {
			v = v[:i]
		}
		kernel = "Linux " + v
	}
	m.System = kernel
	if b, err := readFile("/proc/self/mounts"); err == nil {
		if fs, dev := mountOf(b, c.work); fs != "" {
			m.System += fmt.Sprintf(", work directory on %s (%s)", fs, dev)
		}
	}
	m.Node = firstLine(exec.Command(c.node, "--version"))
	m.Stet = strings.TrimPrefix(firstLine(exec.Command(c.stetBin, "version")), "stet ")
	pkg := filepath.Dir(filepath.Dir(c.peerJS))
	m.PeerVersion = packageVersion(filepath.Join(pkg, "package.json"))
	m.PeerSDK = packageVersion(filepath.Join(pkg, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if m.PeerSDK == "?" {
		m.PeerSDK = packageVersion(filepath.Join(pkg, "..", "sdk", "package.json"))
	}
	return m
}

func firstLine(cmd *exec.Cmd) string {
	out, err := cmd.Output()
	if err != nil {
		return "?"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimPrefix(line, "v")
}

func packageVersion(path string) string {
	b, err := readFile(path)
	if err != nil {
		return "?"
	}
	var p struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(b, &p) != nil || p.Version == "" {
		return "?"
	}
	return p.Version
}

// cpuModel is the first "model name" of a /proc/cpuinfo text.
func cpuModel(cpuinfo []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

// meminfoKB is the value of key in a /proc/meminfo text, in kB.
func meminfoKB(meminfo []byte, key string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			return 0
		}
		n, _ := strconv.ParseInt(f[0], 10, 64)
		return n
	}
	return 0
}

// mountOf returns the filesystem type and the device's base name of the
// mount that holds dir, from a /proc/mounts text.
func mountOf(mounts []byte, dir string) (fstype, dev string) {
	best := -1
	sc := bufio.NewScanner(bytes.NewReader(mounts))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		mp := f[1]
		inside := dir == mp || mp == "/" || strings.HasPrefix(dir, strings.TrimSuffix(mp, "/")+"/")
		if inside && len(mp) > best {
			best, fstype, dev = len(mp), f[2], filepath.Base(f[0])
		}
	}
	return fstype, dev
}
