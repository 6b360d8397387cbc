package tools

import (
	"slices"
	"sort"
)

// FileTypes maps the names grep's type argument accepts to the globs of
// the files of that type (base-name globs, as in ripgrep's --type).
var FileTypes = map[string][]string{
	"c":        {"*.c", "*.h"},
	"cpp":      {"*.cpp", "*.cc", "*.cxx", "*.c++", "*.hpp", "*.hh", "*.hxx", "*.h++", "*.h", "*.inl"},
	"cs":       {"*.cs"},
	"css":      {"*.css", "*.scss", "*.sass", "*.less"},
	"go":       {"*.go"},
	"html":     {"*.html", "*.htm", "*.xhtml"},
	"java":     {"*.java"},
	"js":       {"*.js", "*.mjs", "*.cjs", "*.jsx"},
	"json":     {"*.json", "*.jsonl", "*.json5"},
	"kotlin":   {"*.kt", "*.kts"},
	"md":       {"*.md", "*.markdown", "*.mdx"},
	"php":      {"*.php"},
	"proto":    {"*.proto"},
	"py":       {"*.py", "*.pyi"},
	"rb":       {"*.rb", "*.rake", "Gemfile", "Rakefile"},
	"rs":       {"*.rs"},
	"sh":       {"*.sh", "*.bash", "*.zsh"},
	"sql":      {"*.sql"},
	"swift":    {"*.swift"},
	"toml":     {"*.toml"},
	"ts":       {"*.ts", "*.tsx", "*.mts", "*.cts"},
	"txt":      {"*.txt"},
	"xml":      {"*.xml", "*.xsd", "*.xsl"},
	"yaml":     {"*.yaml", "*.yml"},
	"make":     {"Makefile", "makefile", "GNUmakefile", "*.mk"},
	"docker":   {"Dockerfile", "*.dockerfile"},
	"markdown": {"*.md", "*.markdown", "*.mdx"},
	"python":   {"*.py", "*.pyi"},
	"rust":     {"*.rs"},
}

// FileTypeNames returns the names FileTypes knows, sorted.
func FileTypeNames() []string {
	names := make([]string, 0, len(FileTypes))
	for n := range FileTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return slices.Clip(names)
}
