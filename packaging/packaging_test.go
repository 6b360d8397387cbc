// Package packaging holds the release's manifests: packaging/server.json for
// the MCP Registry and the Claude Desktop extension's manifest generator
// (packaging/mcpb). Its tests check them against their formats.
package packaging

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// The MCP Registry's server.json schema, 2025-12-11 (the registry's current
// version), kept in testdata as published.
const (
	schemaFile = "testdata/server.schema.json"
	schemaURL  = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
)

// serverJSON is the part of server.json these tests read.
type serverJSON struct {
	Schema   string `json:"$schema"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Packages []struct {
		RegistryType     string `json:"registryType"`
		Identifier       string `json:"identifier"`
		Version          string `json:"version"`
		RuntimeHint      string `json:"runtimeHint"`
		PackageArguments []struct {
			Type       string `json:"type"`
			Value      string `json:"value"`
			IsRepeated bool   `json:"isRepeated"`
			Format     string `json:"format"`
		} `json:"packageArguments"`
	} `json:"packages"`
}

// npmPackage is the part of package.json these tests read.
type npmPackage struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	MCPName              string            `json:"mcpName"`
	Bin                  map[string]string `json:"bin"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func registrySchema(t *testing.T) *jsonschema.Resolved {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	if s.ID != schemaURL {
		t.Fatalf("%s has $id %q, want %q", schemaFile, s.ID, schemaURL)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return rs
}

// checkServerJSON validates the server.json bytes against the registry's
// schema and checks that they name the npm package pkg at its version.
func checkServerJSON(rs *jsonschema.Resolved, b []byte, pkg npmPackage) error {
	var instance any
	if err := json.Unmarshal(b, &instance); err != nil {
		return err
	}
	if err := rs.Validate(instance); err != nil {
		return fmt.Errorf("not valid against the registry's schema: %w", err)
	}
	var s serverJSON
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	var errs []error
	if s.Schema != schemaURL {
		errs = append(errs, fmt.Errorf("$schema is %q, want %q", s.Schema, schemaURL))
	}
	// The registry checks that the npm package's mcpName is the server's name.
	if s.Name != pkg.MCPName {
		errs = append(errs, fmt.Errorf("name %q is not the npm package's mcpName %q", s.Name, pkg.MCPName))
	}
	if s.Version != pkg.Version {
		errs = append(errs, fmt.Errorf("version %q is not the npm package's version %q", s.Version, pkg.Version))
	}
	npm := 0
	for _, p := range s.Packages {
		if p.RegistryType != "npm" {
			continue
		}
		npm++
		if p.Identifier != pkg.Name || p.Version != pkg.Version {
			errs = append(errs, fmt.Errorf("npm package %s@%s, want %s@%s", p.Identifier, p.Version, pkg.Name, pkg.Version))
		}
		if p.RuntimeHint != "npx" {
			errs = append(errs, fmt.Errorf("npm package runtimeHint %q, want npx", p.RuntimeHint))
		}
		// npx -y @stet-dev/stet mcp DIR...: the subcommand, then the roots.
		args := p.PackageArguments
		if len(args) != 2 || args[0].Value != "mcp" || args[1].Type != "positional" || !args[1].IsRepeated || args[1].Format != "filepath" {
			errs = append(errs, fmt.Errorf("npm package arguments %+v, want mcp then repeated directories", args))
		}
	}
	if npm != 1 {
		errs = append(errs, fmt.Errorf("%d npm packages, want 1", npm))
	}
	return errors.Join(errs...)
}

func readNPMPackage(t *testing.T, path string) npmPackage {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var p npmPackage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// TestServerJSON checks the checked-in server.json against the registry's
// schema and the npm package it names (npm/stet/package.json).
func TestServerJSON(t *testing.T) {
	rs := registrySchema(t)
	b, err := os.ReadFile("server.json")
	if err != nil {
		t.Fatal(err)
	}
	pkg := readNPMPackage(t, filepath.Join("..", "npm", "stet", "package.json"))
	if err := checkServerJSON(rs, b, pkg); err != nil {
		t.Errorf("packaging/server.json: %v", err)
	}
}

// TestServerJSONRejects checks that the checks above can fail: each
// mutation of server.json is one the registry would refuse.
func TestServerJSONRejects(t *testing.T) {
	rs := registrySchema(t)
	good, err := os.ReadFile("server.json")
	if err != nil {
		t.Fatal(err)
	}
	pkg := readNPMPackage(t, filepath.Join("..", "npm", "stet", "package.json"))
	for name, mutate := range map[string]func(m map[string]any){
		"description over 100 characters": func(m map[string]any) { m["description"] = strings.Repeat("x", 101) },
		"name without a namespace":        func(m map[string]any) { m["name"] = "stet" },
		"package without transport": func(m map[string]any) {
			delete(m["packages"].([]any)[0].(map[string]any), "transport")
		},
		"package version latest": func(m map[string]any) {
			m["packages"].([]any)[0].(map[string]any)["version"] = "latest"
		},
		"another npm package": func(m map[string]any) {
			m["packages"].([]any)[0].(map[string]any)["identifier"] = "@stet-dev/other"
		},
		"older schema": func(m map[string]any) {
			m["$schema"] = "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json"
		},
	} {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		mutate(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkServerJSON(rs, b, pkg); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestNPMPackages checks the npm package templates: the launcher's bin, its
// mcpName, and one optional dependency per release platform.
func TestNPMPackages(t *testing.T) {
	pkg := readNPMPackage(t, filepath.Join("..", "npm", "stet", "package.json"))
	if pkg.Bin["stet"] != "bin/stet.js" {
		t.Errorf("bin %v, want stet: bin/stet.js", pkg.Bin)
	}
	var want []string
	for _, os := range []string{"darwin", "linux", "win32"} {
		for _, cpu := range []string{"arm64", "x64"} {
			want = append(want, "@stet-dev/stet-"+os+"-"+cpu)
		}
	}
	for _, dep := range want {
		if v, ok := pkg.OptionalDependencies[dep]; !ok || v != pkg.Version {
			t.Errorf("optionalDependencies[%s] = %q, want %q", dep, v, pkg.Version)
		}
	}
	if len(pkg.OptionalDependencies) != len(want) {
		t.Errorf("optionalDependencies %v, want exactly %v", pkg.OptionalDependencies, want)
	}
}

// TestReleaseDist checks a built release (STET_RELEASE_DIST=dist, as .ci/run
// sets after scripts/release.sh --snapshot): dist/server.json is valid and
// names the packed launcher package at its version, whose platform packages
// are pinned to that version, and SHA256SUMS lists every artifact.
func TestReleaseDist(t *testing.T) {
	dist := os.Getenv("STET_RELEASE_DIST")
	if dist == "" {
		t.Skip("STET_RELEASE_DIST is not set: build a release with scripts/release.sh --snapshot and set it to its dist directory")
	}
	if !filepath.IsAbs(dist) {
		dist = filepath.Join("..", dist)
	}
	tgz, err := filepath.Glob(filepath.Join(dist, "stet-dev-stet-[0-9]*.tgz"))
	if err != nil || len(tgz) != 1 {
		t.Fatalf("want one launcher tarball stet-dev-stet-VERSION.tgz in %s, found %v (%v)", dist, tgz, err)
	}
	pkg := packedPackage(t, tgz[0])
	for dep, v := range pkg.OptionalDependencies {
		if v != pkg.Version {
			t.Errorf("%s: optionalDependencies[%s] = %q, want %q", tgz[0], dep, v, pkg.Version)
		}
	}
	b, err := os.ReadFile(filepath.Join(dist, "server.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkServerJSON(registrySchema(t), b, pkg); err != nil {
		t.Errorf("%s/server.json: %v", dist, err)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dist)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "SHA256SUMS" || e.IsDir() {
			continue
		}
		if !strings.Contains(string(sums), "  "+e.Name()+"\n") {
			t.Errorf("SHA256SUMS does not list %s", e.Name())
		}
	}
}

// packedPackage reads package/package.json from an npm tarball.
func packedPackage(t *testing.T, path string) npmPackage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("%s holds no package/package.json", path)
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h.Name != "package/package.json" {
			continue
		}
		var p npmPackage
		if err := json.NewDecoder(tr).Decode(&p); err != nil {
			t.Fatalf("%s: package.json: %v", path, err)
		}
		return p
	}
}
