package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// refResult is the structured result of a reference tool: the text it
// sends, as the reference server puts it in structuredContent.
type refResult struct {
	Content string `json:"content"`
	// Truncated and Note are stet's, on a directory_tree cut to its
	// bounds: the note says how to see the rest.
	Truncated bool   `json:"truncated,omitempty"`
	Note      string `json:"note,omitempty"`
}

// refMedia is read_media_file's result: one image or audio block, sent as
// the only content block and again in the structured result, as the
// reference server sends it.
type refMedia struct {
	Content []contentBlock `json:"content"`
}

// refRefusal is a refusal in the reference profile: stet's refusal object
// ({refused, message, ...}) with the message also under "content", the key
// every reference tool's output schema requires.
type refRefusal struct{ r *stet.Refusal }

// MarshalJSON renders the refusal object with content beside message.
func (rr refRefusal) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(rr.r)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	m["content"] = refRefusalText(rr.r) // the message, then the lines or listing it shows
	return json.Marshal(m)
}

// refText is the Output of a reference tool that answered with text.
func refText(text string, changed bool) stet.Output {
	return stet.Output{Structured: &refResult{Content: text}, Text: text, Changed: changed}
}

// refRefused is the Output of a refusal of a reference tool, worded in the
// reference profile's terms.
func refRefused(tool string, r *stet.Refusal) stet.Output {
	r = refWords(tool, r)
	return stet.Output{Structured: refRefusal{r}, Text: refRefusalText(r), Refused: r}
}

// refRefusalText is the text of a refusal on the reference profile: its
// message, then what it shows, a file's lines as read_text_file shows them
// (plain, without stet's line numbers) and a listing as stet lists it.
func refRefusalText(r *stet.Refusal) string {
	fr, ok := r.Details[stet.ShownFrame].(*stet.ReadResult)
	if !ok {
		return stet.Text(r)
	}
	return r.Message + "\n\n" + plainFrame(fr.Frame)
}

// plainFrame is the text of a frame's lines without their numbers and
// without its trailer.
func plainFrame(f string) string {
	lines := strings.Split(strings.TrimSuffix(f, "\n"), "\n")
	if len(lines) > 0 {
		lines = lines[:len(lines)-1] // the trailer
	}
	for i, l := range lines {
		if _, rest, ok := strings.Cut(l, "|"); ok {
			lines[i] = rest
		}
	}
	return strings.Join(lines, "\n")
}

// wholeFile is the line limit of a read that asks for the whole file: the
// byte bound of a window still applies.
const wholeFile = 1_000_000_000

// callRef runs one call of the reference profile on sess: it decodes the
// reference arguments (tools.Reference, the decoder of stet's own tools),
// maps them onto the stet tool's arguments, runs it and renders the
// reference server's text. A refusal comes back as an Output with Refused
// set; the error is for what broke.
func (s *Server) callRef(ctx context.Context, ws *stet.Workspace, sess *stet.Session, name string, raw json.RawMessage) (stet.Output, error) {
	// Every refusal is journaled for review, as the facade journals the
	// refusals of stet's own tools; one the facade journaled already
	// (through CallFit) is not journaled twice.
	refused := func(r *stet.Refusal, noted bool) stet.Output {
		out := refRefused(name, r)
		if !noted {
			sess.NoteRefusal(name, out.Refused)
		}
		return out
	}
	mutating, ok := tools.Reference.Mutating(name)
	readOnly := ws.Effects() == policy.ReadOnly
	if !ok {
		return refused(&stet.Refusal{Kind: stet.KindInvalid, Tool: name,
			Message: fmt.Sprintf("refused: there is no tool %q; the tools are %s", name, strings.Join(refNames(readOnly), ", "))}, false), nil
	}
	if mutating && readOnly {
		return refused(&stet.Refusal{Kind: stet.KindReadOnly, Tool: name,
			Message: fmt.Sprintf("refused: %s is not available: this workspace is read-only (--effects read-only); report the change you would make instead", name)}, false), nil
	}
	args, err := tools.Reference.Decode(name, raw)
	if err == nil {
		var out stet.Output
		if out, err = s.runRef(ctx, ws, sess, name, args); err == nil {
			return out, nil
		}
	}
	if r, ok := stet.AsRefusal(err); ok {
		if r.Tool == "" {
			r.Tool = name
		}
		var n notedRefusal
		return refused(r, errors.As(err, &n)), nil
	}
	var ae *tools.ArgError
	if errors.As(err, &ae) {
		r := &stet.Refusal{Kind: stet.KindInvalid, Tool: name, Message: "refused: " + err.Error(), Err: err}
		if ae.Suggest != "" {
			r.With("suggest", ae.Suggest)
		}
		return refused(r, false), nil
	}
	return stet.Output{}, err
}

// notedRefusal is a refusal the facade journaled already.
type notedRefusal struct{ r *stet.Refusal }

func (n notedRefusal) Error() string { return n.r.Error() }
func (n notedRefusal) Unwrap() error { return n.r }

// runRef runs the decoded arguments of a reference tool (a pointer to a
// tools.Reference argument type): the stet call they map onto, and the
// reference server's text for its result.
func (s *Server) runRef(ctx context.Context, ws *stet.Workspace, sess *stet.Session, name string, args any) (stet.Output, error) {
	switch a := args.(type) {
	case *tools.ReadTextFileArgs: // read_text_file and read_file
		return s.refReadText(ctx, sess, name, a)
	case *tools.ReadMediaFileArgs:
		return refReadMedia(ctx, ws, sess, a)
	case *tools.ReadMultipleFilesArgs:
		return refReadMultiple(ctx, sess, name, a)
	case *tools.WriteFileArgs:
		return refWriteFile(ctx, sess, a)
	case *tools.EditFileArgs:
		return refEditFile(ctx, sess, a)
	case *tools.CreateDirectoryArgs:
		r, err := sess.Mkdir(ctx, stet.MkdirArgs{Path: a.Path})
		if err != nil {
			return stet.Output{}, err
		}
		return refText("Successfully created directory "+a.Path, r.Created), nil
	case *tools.ListDirectoryArgs:
		res, err := sess.List(ctx, stet.ListArgs{Path: a.Path, NoIgnore: true, Limit: tools.MaxResults})
		if err != nil {
			return stet.Output{}, err
		}
		return refText(refListing(res), false), nil
	case *tools.ListDirectoryWithSizesArgs:
		res, err := sess.List(ctx, stet.ListArgs{Path: a.Path, NoIgnore: true, Limit: tools.MaxResults})
		if err != nil {
			return stet.Output{}, err
		}
		return refText(refSizes(res, a.SortBy == tools.ListSortSize), false), nil
	case *tools.DirectoryTreeArgs:
		res, err := sess.List(ctx, stet.ListArgs{Path: a.Path, Depth: treeDepth, Exclude: a.ExcludePatterns, NoIgnore: true, Limit: treeEntries})
		if err != nil {
			return stet.Output{}, err
		}
		return refTreeOutput(a.Path, res)
	case *tools.MoveFileArgs:
		r, err := sess.Move(ctx, stet.MoveArgs{From: a.Source, To: a.Destination})
		if err != nil {
			return stet.Output{}, err
		}
		return refText(fmt.Sprintf("Successfully moved %s to %s", a.Source, a.Destination), changedBy(r)), nil
	case *tools.SearchFilesArgs:
		return refSearchFiles(ctx, ws, sess, a)
	case *tools.GetFileInfoArgs:
		r, err := sess.Info(ctx, stet.InfoArgs{Path: a.Path})
		if err != nil {
			return stet.Output{}, err
		}
		return refText(refInfo(r), false), nil
	case *tools.ListAllowedDirectoriesArgs:
		r, err := sess.Roots(ctx, stet.RootsArgs{})
		if err != nil {
			return stet.Output{}, err
		}
		dirs := make([]string, len(r.Roots))
		for i, root := range r.Roots {
			dirs[i] = shown(root.Path)
		}
		return refText("Allowed directories:\n"+strings.Join(dirs, "\n"), false), nil
	}
	return stet.Output{}, fmt.Errorf("mcpserver: reference tool %s decoded as %T, which nothing runs", name, args)
}

// refReadText is read_text_file (and read_file): a read of the whole file,
// or its head or tail, as the file's text.
func (s *Server) refReadText(ctx context.Context, sess *stet.Session, name string, a *tools.ReadTextFileArgs) (stet.Output, error) {
	ra := stet.ReadArgs{Path: a.Path, Limit: wholeFile}
	switch {
	case a.Head > 0:
		ra.Limit = a.Head
	case a.Tail > 0:
		ra.Limit, ra.Tail = 0, a.Tail
	}
	rr, err := s.readFitted(ctx, sess, ra)
	if err != nil {
		return stet.Output{}, err
	}
	text, err := refContent(name, rr, a.Head > 0 || a.Tail > 0)
	if err != nil {
		return stet.Output{}, err
	}
	return refText(text, false), nil
}

// refReadMedia is read_media_file: one image or audio block, or an embedded
// resource for any other file.
func refReadMedia(ctx context.Context, ws *stet.Workspace, sess *stet.Session, a *tools.ReadMediaFileArgs) (stet.Output, error) {
	rr, err := sess.ReadBytes(ctx, a.Path)
	if err != nil {
		return stet.Output{}, err
	}
	var block contentBlock
	switch {
	case strings.HasPrefix(rr.MimeType, "image/"), strings.HasPrefix(rr.MimeType, "audio/"):
		kind := "image"
		if strings.HasPrefix(rr.MimeType, "audio/") {
			kind = "audio"
		}
		block = contentBlock{Type: kind, Data: base64.StdEncoding.EncodeToString(rr.Data), MimeType: rr.MimeType}
	default:
		// Neither image nor audio: an embedded resource, named by its
		// file:// URI, as the reference server sends it.
		block = contentBlock{Type: "resource", Resource: &resourceBlob{
			URI:      fileURL(absPath(ws, a.Path, rr.Path)),
			MimeType: rr.MimeType,
			Blob:     base64.StdEncoding.EncodeToString(rr.Data),
		}}
	}
	m := &refMedia{Content: []contentBlock{block}}
	return stet.Output{Structured: m, Text: ""}, nil
}

// refReadMultiple is read_multiple_files: each file's text, or its refusal
// in its place.
func refReadMultiple(ctx context.Context, sess *stet.Session, name string, a *tools.ReadMultipleFilesArgs) (stet.Output, error) {
	res, err := sess.ReadFiles(ctx, stet.ReadArgs{Paths: a.Paths, Limit: wholeFile})
	if err != nil {
		return stet.Output{}, err
	}
	parts := make([]string, len(res.Files))
	for i, f := range res.Files {
		p := a.Paths[i]
		var text string
		switch f := f.(type) {
		case *stet.ReadResult:
			text, err = refContent(name, f, false)
			if r, ok := stet.AsRefusal(err); ok {
				parts[i] = fmt.Sprintf("%s: Error - %s", p, refWords(name, r).Message)
				continue
			} else if err != nil {
				return stet.Output{}, err
			}
			parts[i] = fmt.Sprintf("%s:\n%s\n", p, text)
		case *stet.Refusal:
			parts[i] = fmt.Sprintf("%s: Error - %s", p, refWords(name, f).Message)
		}
	}
	return refText(strings.Join(parts, "\n---\n"), false), nil
}

// refWriteFile is write_file: a write, saying where a replaced file's bytes
// went.
func refWriteFile(ctx context.Context, sess *stet.Session, a *tools.WriteFileArgs) (stet.Output, error) {
	r, err := sess.Write(ctx, stet.WriteArgs{Path: a.Path, Content: a.Content, Overwrite: a.Overwrite})
	if err != nil {
		return stet.Output{}, err
	}
	text := "Successfully wrote to " + a.Path
	if r.Receipt.Before != nil {
		// What stet adds: the user's bytes are saved, and how to get
		// them back.
		text += "\n" + strings.Replace(r.Message, "undo brings it back", "stet undo "+a.Path+" brings it back", 1)
	}
	return refText(text, changedBy(r)), nil
}

// refEditFile is edit_file: an edit of literal replacements, answered with
// its diff.
func refEditFile(ctx context.Context, sess *stet.Session, a *tools.EditFileArgs) (stet.Output, error) {
	ops := make([]stet.EditOp, len(a.Edits))
	for i, e := range a.Edits {
		ops[i] = stet.EditOp{OldString: e.OldText, NewString: e.NewText}
	}
	r, err := sess.Edit(ctx, stet.EditArgs{Path: a.Path, Edits: ops, DryRun: a.DryRun})
	if err != nil {
		return stet.Output{}, err
	}
	return refText(refDiff(a.Path, r.Diff), changedBy(r)), nil
}

// refSearchFiles is search_files: a find, answered with absolute paths.
func refSearchFiles(ctx context.Context, ws *stet.Workspace, sess *stet.Session, a *tools.SearchFilesArgs) (stet.Output, error) {
	res, err := sess.Find(ctx, stet.FindArgs{Pattern: a.Pattern, Path: a.Path, Exclude: a.ExcludePatterns, NoIgnore: true, Limit: tools.MaxResults})
	if err != nil {
		return stet.Output{}, err
	}
	if len(res.Paths) == 0 {
		return refText("No matches found", false), nil
	}
	root := ws.Roots()[0]
	lines := make([]string, len(res.Paths))
	for i, p := range res.Paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, filepath.FromSlash(p))
		}
		lines[i] = shown(p)
	}
	text := strings.Join(lines, "\n")
	if res.Truncated {
		text += fmt.Sprintf("\n(first %s matches; more exist: narrow the pattern or the path)", policy.Thousands(len(lines)))
	}
	return refText(text, false), nil
}

// treeDepth bounds directory_tree's walk; deeper trees are cut there.
const treeDepth = 1000

// directory_tree's bounds, as list's: at most treeEntries entries (list's
// default limit) and treeBytes bytes of JSON (the read window's default
// byte bound). A larger tree is cut, and the result says so and how to see
// the rest.
const (
	treeEntries = stet.DefaultListLimit
	treeBytes   = stet.DefaultMaxReadBytes
)

// refTreeOutput is directory_tree's answer for a listing: the JSON tree,
// cut to its bounds. A cut tree stays valid JSON (structuredContent's
// content parses); the text adds a note after it, and the structured
// result carries truncated and the same note.
func refTreeOutput(path string, res *stet.ListResult) (stet.Output, error) {
	entries := res.Entries
	cut := res.Truncated
	for {
		text, err := refTree(&stet.ListResult{Path: res.Path, Entries: entries})
		if err != nil {
			return stet.Output{}, err
		}
		if len(text) > treeBytes && len(entries) > 1 {
			entries = entries[:len(entries)*treeBytes/len(text)*9/10]
			cut = true
			continue
		}
		if !cut {
			return refText(text, false), nil
		}
		note := fmt.Sprintf("[stet: the tree of %s is cut at %s entries (the bound of one response, as list's); call directory_tree on a subdirectory, or pass excludePatterns, to see the rest]",
			path, policy.Thousands(len(entries)))
		return stet.Output{Structured: &refResult{Content: text, Truncated: true, Note: note}, Text: text + "\n\n" + note}, nil
	}
}

// readFitted reads through the server's response bound (see readFit).
func (s *Server) readFitted(ctx context.Context, sess *stet.Session, a stet.ReadArgs) (*stet.ReadResult, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: encoding read arguments: %w", err)
	}
	out, err := sess.CallFit(ctx, "read", raw, (&readFit{s: s}).fit, 0)
	if err != nil {
		return nil, err
	}
	if out.Refused != nil {
		return nil, notedRefusal{out.Refused}
	}
	rr, ok := out.Structured.(*stet.ReadResult)
	if !ok {
		return nil, fmt.Errorf("mcpserver: read answered %T", out.Structured)
	}
	return rr, nil
}

// refContent is the text of a read as the reference server returns it:
// the file's bytes, without line numbers. A window that stops short of what
// was asked for (the response bound) is followed by a note saying which
// lines were shown. asked is whether the call asked for a part (head or
// tail): a part ends without its last line break, as the reference's does.
func refContent(tool string, rr *stet.ReadResult, asked bool) (string, error) {
	if rr.Data != nil || rr.MimeType != "" {
		return "", &stet.Refusal{Kind: stet.KindBinary, Tool: tool, Path: rr.Path,
			Message: fmt.Sprintf("refused: %s is %s, not text; read it with read_media_file", rr.Path, rr.MimeType)}
	}
	_, text, err := frame.DecodeWindow(rr.Frame)
	if err != nil {
		return "", fmt.Errorf("mcpserver: decoding the frame of %s: %w", rr.Path, err)
	}
	s := string(text)
	if rr.To < rr.Lines {
		s = strings.TrimSuffix(s, "\n")
	}
	if !asked && (rr.From > 1 || rr.To < rr.Lines) {
		s += fmt.Sprintf("\n\n[stet: %s has %s lines; this response shows lines %d-%d (the size one response may carry); read_text_file with head or tail shows other parts]",
			rr.Path, policy.Thousands(rr.Lines), rr.From, rr.To)
	}
	for _, n := range rr.Notes {
		s += "\n[stet: " + n + "]"
	}
	return s, nil
}

// changedBy reports whether a mutation's result altered the tree.
func changedBy(r *stet.MutationResult) bool {
	rc := r.Receipt
	switch {
	case rc.DryRun:
		return false
	case rc.From != "" && rc.From != rc.Path:
		return true
	case rc.Before == nil || rc.After == nil:
		return rc.Before != rc.After
	}
	return rc.Before.Version != rc.After.Version
}

// refDiff is edit_file's text: the change as a unified diff headed the
// way the reference server heads it (Index, a rule, the file marked
// original and modified), in a diff fence with more backticks than any run
// in the diff.
func refDiff(path, diff string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n%s\n--- %s\toriginal\n+++ %s\tmodified\n", path, strings.Repeat("=", 67), path, path)
	body := diff
	// Drop stet's own "--- a/..." and "+++ b/..." header lines.
	for range 2 {
		if strings.HasPrefix(body, "--- ") || strings.HasPrefix(body, "+++ ") {
			_, body, _ = strings.Cut(body, "\n")
		}
	}
	b.WriteString(body)
	if body != "" && !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	d := b.String()
	fence := "```"
	for strings.Contains(d, fence) {
		fence += "`"
	}
	return fence + "diff\n" + d + fence + "\n\n"
}

// shown is a name as reference text shows it: escaped when it holds a
// control character, so it cannot pass for several rows.
func shown(name string) string {
	if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' }) {
		q, _ := json.Marshal(name)
		return string(q)
	}
	return name
}

// refListing is list_directory's text: "[DIR] name" or "[FILE] name", one
// entry a line.
func refListing(res *stet.ListResult) string {
	lines := make([]string, len(res.Entries))
	for i, e := range res.Entries {
		lines[i] = kindTag(e.Type) + " " + shown(e.Name)
	}
	return strings.Join(lines, "\n")
}

// kindTag is the reference server's tag of an entry type.
func kindTag(typ string) string {
	if typ == "dir" {
		return "[DIR]"
	}
	return "[FILE]"
}

// refSizes is list_directory_with_sizes' text: one padded row per entry
// (name, then a file's size), then the totals.
func refSizes(res *stet.ListResult, bySize bool) string {
	entries := slices.Clone(res.Entries)
	if bySize {
		slices.SortStableFunc(entries, func(a, b stet.Entry) int { return cmpSize(b.Size, a.Size) })
	} else {
		slices.SortStableFunc(entries, func(a, b stet.Entry) int {
			if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
				return c
			}
			return strings.Compare(a.Name, b.Name)
		})
	}
	var b strings.Builder
	files, dirs, total := 0, 0, int64(0)
	for _, e := range entries {
		name := shown(e.Name)
		if pad := 30 - len([]rune(name)); pad > 0 {
			name += strings.Repeat(" ", pad)
		}
		size := ""
		if e.Type == "dir" {
			dirs++
		} else {
			files++
			total += e.Size
			size = fmt.Sprintf("%10s", formatSize(e.Size))
		}
		fmt.Fprintf(&b, "%s %s %s\n", kindTag(e.Type), name, size)
	}
	fmt.Fprintf(&b, "\nTotal: %d files, %d directories\nCombined size: %s", files, dirs, formatSize(total))
	return b.String()
}

// cmpSize compares two sizes.
func cmpSize(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// formatSize is a size as the reference server writes it: bytes below
// 1 KB, then KB, MB, GB or TB with two decimals (powers of 1024).
func formatSize(n int64) string {
	units := []string{"B", "KB", "MB", "GB", "TB"}
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	i := min(int(math.Floor(math.Log(float64(n))/math.Log(1024))), len(units)-1)
	return fmt.Sprintf("%.2f %s", float64(n)/math.Pow(1024, float64(i)), units[i])
}

// treeEntry is one node of directory_tree's JSON.
type treeEntry struct {
	Name     string       `json:"name"`
	Type     string       `json:"type"`
	Children *[]treeEntry `json:"children,omitempty"`
}

// refTree is directory_tree's text: the entries of a deep listing as a
// JSON tree, indented by two spaces. Directories always have a children
// array; files have none.
func refTree(res *stet.ListResult) (string, error) {
	top := []treeEntry{}
	dirs := map[string]*[]treeEntry{"": &top}
	// Entries come parent first; a directory's children slice is made when
	// the directory is placed, and filled through its pointer.
	for _, e := range res.Entries {
		dir, base := "", e.Name
		if i := strings.LastIndexByte(e.Name, '/'); i >= 0 {
			dir, base = e.Name[:i], e.Name[i+1:]
		}
		parent, ok := dirs[dir]
		if !ok {
			continue
		}
		te := treeEntry{Name: base, Type: "file"}
		if e.Type == "dir" {
			te.Type = "directory"
			te.Children = &[]treeEntry{}
			dirs[e.Name] = te.Children
		}
		*parent = append(*parent, te)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(top); err != nil {
		return "", fmt.Errorf("mcpserver: encoding a tree: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// refInfo is get_file_info's text: "key: value" lines, the reference
// server's keys stet knows (it does not record creation or access times),
// then stet's own (lines, version, links).
func refInfo(r *stet.InfoResult) string {
	perm := strings.TrimLeft(r.Mode, "0")
	if len(perm) > 3 {
		perm = perm[len(perm)-3:]
	}
	lines := []string{
		fmt.Sprintf("size: %d", r.Size),
		"modified: " + r.Mtime,
		fmt.Sprintf("isDirectory: %t", r.Type == "dir"),
		fmt.Sprintf("isFile: %t", r.Type == "file"),
		"permissions: " + strings.Repeat("0", 3-len(perm)) + perm,
	}
	if r.Type == "file" {
		lines = append(lines, fmt.Sprintf("lines: %d", r.Lines), "version: "+r.Version)
	}
	lines = append(lines, fmt.Sprintf("links: %d", r.Links))
	return strings.Join(lines, "\n")
}

// encodeRefMedia is encodeResult for read_media_file: the media block as
// the only content (then a text block with the stall notice, if any), and
// the same block in the structured result.
func encodeRefMedia(m *refMedia, notice string) ([]byte, error) {
	blocks := m.Content
	if notice != "" {
		blocks = append(slices.Clone(blocks), contentBlock{Type: "text", Text: notice})
	}
	body := struct {
		Content           []contentBlock `json:"content"`
		StructuredContent *refMedia      `json:"structuredContent"`
	}{blocks, m}
	var b bytes.Buffer
	b.Write(make([]byte, headroom))
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(body); err != nil {
		return nil, fmt.Errorf("mcpserver: encoding a media result: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// absPath is the absolute path of a file a tool named as spelled and the
// facade showed as shown: shown when absolute, else joined to the root
// where a relative path resolves (a one-root workspace's root; with
// several roots the facade shows absolute paths).
func absPath(ws *stet.Workspace, spelled, shown string) string {
	for _, p := range []string{shown, spelled} {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
	}
	return filepath.Join(ws.Roots()[0], filepath.FromSlash(shown))
}

// fileURL is the file:// URL of an absolute path, percent-encoded (a space
// as %20, a non-ASCII letter as its UTF-8 bytes).
func fileURL(p string) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive path: file:///C:/...
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
