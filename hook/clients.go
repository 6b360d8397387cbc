package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
)

// Client is one client's hook format: how its events read and how its
// answers are written. The clients are the rows of Clients.
type Client struct {
	Name string // as stet hook and stet setup name it
	// Events are the hook events stet's configuration of the client
	// registers, in the client's names.
	Events []string
	parse  func(in []byte) (Event, error)
	reply  func(ev Event, a Answer) Reply
}

// Clients are the clients whose hooks stet answers, one row each.
var Clients = []*Client{
	{Name: "claude-code", Events: claudeEvents, parse: parseClaude, reply: replyClaude},
	{Name: "codex", Events: codexEvents, parse: parseCodex, reply: replyClaude},
	{Name: "gemini", Events: geminiEvents, parse: parseGemini, reply: replyGemini},
	{Name: "cursor", Events: cursorEvents, parse: parseCursor, reply: replyCursor},
	{Name: "vscode", Events: vscodeEvents, parse: parseVSCode, reply: replyVSCode},
}

// Find returns the row of the client called name.
func Find(name string) (*Client, error) {
	i := slices.IndexFunc(Clients, func(c *Client) bool { return c.Name == name })
	if i < 0 {
		names := make([]string, len(Clients))
		for i, c := range Clients {
			names[i] = c.Name
		}
		return nil, fmt.Errorf("no client %q: stet hook knows %v", name, names)
	}
	return Clients[i], nil
}

// common are the fields every client's event carries, in Claude Code's
// names (Codex, Gemini CLI and VS Code use the same).
type common struct {
	Session  string          `json:"session_id"`
	Cwd      string          `json:"cwd"`
	Event    string          `json:"hook_event_name"`
	Tool     string          `json:"tool_name"`
	Input    json.RawMessage `json:"tool_input"`
	Response json.RawMessage `json:"tool_response"`
	CallID   string          `json:"tool_use_id"`
	Prompt   string          `json:"prompt"`
}

func readCommon(in []byte) (common, Event, error) {
	var c common
	if _, err := object(in); err != nil {
		return c, Event{}, err
	}
	if err := json.Unmarshal(in, &c); err != nil {
		return c, Event{}, fmt.Errorf("the event does not read: %w", err)
	}
	return c, Event{Name: c.Event, Session: c.Session, Cwd: c.Cwd, CallID: c.CallID, Tool: c.Tool}, nil
}

// Claude Code (hooks in .claude/settings.json; the payloads as Claude
// Code 2.1.332 sends them).
var claudeEvents = []string{"UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"}

// claudeEdit is the input of Claude Code's Edit, MultiEdit, Write and
// NotebookEdit tools.
type claudeEdit struct {
	FilePath     string        `json:"file_path"`
	OldString    *string       `json:"old_string"`
	NewString    string        `json:"new_string"`
	ReplaceAll   bool          `json:"replace_all"`
	Edits        []stet.EditOp `json:"edits"`
	Content      *string       `json:"content"`
	NotebookPath string        `json:"notebook_path"`
}

// claudeRead is the input of Claude Code's Read tool, and its response.
type claudeRead struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset"`
	Limit    int    `json:"limit"`
	File     struct {
		StartLine int     `json:"startLine"`
		NumLines  int     `json:"numLines"`
		Content   *string `json:"content"`
	} `json:"file"`
}

func parseClaude(in []byte) (Event, error) {
	c, ev, err := readCommon(in)
	if err != nil {
		return ev, err
	}
	switch c.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = Prompt, c.Prompt
	case "PreToolUse", "PostToolUse", "PostToolUseFailure":
		before := c.Event == "PreToolUse"
		switch c.Tool {
		case "Read":
			var r claudeRead
			if err := unmarshal(c.Input, &r); err != nil {
				return ev, err
			}
			ev.Path = r.FilePath
			if before {
				ev.Kind = BeforeRead
				break
			}
			if c.Event == "PostToolUseFailure" {
				break
			}
			ev.Kind, ev.Offset, ev.Limit = AfterRead, r.Offset, r.Limit
			var resp claudeRead
			if len(c.Response) > 0 && json.Unmarshal(c.Response, &resp) == nil && resp.File.NumLines > 0 {
				// The window as the tool reports it, not as asked.
				ev.Offset, ev.Limit, ev.Shown = resp.File.StartLine, resp.File.NumLines, resp.File.Content
			}
		case "Edit", "MultiEdit", "Write", "NotebookEdit":
			switch c.Event {
			case "PostToolUse":
				ev.Kind = AfterChange
				return ev, nil
			case "PostToolUseFailure":
				ev.Kind = ChangeFailed
				return ev, nil
			}
			var e claudeEdit
			if err := unmarshal(c.Input, &e); err != nil {
				return ev, err
			}
			ev.Kind = BeforeChange
			var ch any
			switch {
			case c.Tool == "NotebookEdit":
				ch = stet.ClientRewrite{Path: e.NotebookPath}
			case c.Tool == "Write" && e.Content != nil:
				ch = stet.WriteArgs{Path: e.FilePath, Content: *e.Content}
			case c.Tool == "MultiEdit":
				ch = stet.EditArgs{Path: e.FilePath, Edits: e.Edits}
			case e.OldString != nil:
				ch = editOrCreate(e.FilePath, *e.OldString, e.NewString, e.ReplaceAll)
			default:
				return ev, fmt.Errorf("%s's input names no change", c.Tool)
			}
			ev.Changes = []any{ch}
		}
	}
	return ev, nil
}

// editOrCreate is a replacement in path, or, for an empty old string
// (Claude Code's and Gemini CLI's way to create a file), a new file.
func editOrCreate(path, old, new string, all bool) any {
	if old == "" {
		return stet.WriteArgs{Path: path, Content: new}
	}
	return stet.EditArgs{Path: path, OldString: &old, NewString: &new, ReplaceAll: all}
}

func unmarshal(raw json.RawMessage, v any) error {
	if len(raw) == 0 {
		return fmt.Errorf("the event has no tool_input")
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("tool_input: %w", err)
	}
	return nil
}

// hookOutput is Claude Code's hookSpecificOutput (Codex and VS Code read
// the same).
type hookOutput struct {
	Event             string `json:"hookEventName"`
	Decision          string `json:"permissionDecision,omitempty"`
	Reason            string `json:"permissionDecisionReason,omitempty"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

type claudeReply struct {
	Output        *hookOutput `json:"hookSpecificOutput,omitempty"`
	SystemMessage string      `json:"systemMessage,omitempty"`
}

// replyClaude writes an answer as Claude Code reads it: exit 0 and JSON on
// stdout; nothing at all for no opinion (on UserPromptSubmit stdout would
// become context for the model).
func replyClaude(ev Event, a Answer) Reply {
	var out claudeReply
	switch {
	case a.Deny != "" && ev.Kind != AfterChange && ev.Kind != AfterRead:
		out.Output = &hookOutput{Event: ev.Name, Decision: "deny", Reason: a.Deny}
	case a.Note != "":
		out.Output = &hookOutput{Event: ev.Name, AdditionalContext: a.Note}
	}
	out.SystemMessage = a.Warn
	if out.Output == nil && out.SystemMessage == "" {
		return Reply{}
	}
	return Reply{Stdout: jsonLine(out)}
}

// jsonLine is v as one line of JSON, with <, > and & as they are (the
// reason is text a model reads).
func jsonLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil
	}
	return b.Bytes()
}

// Codex (hooks in config.toml; PreToolUse and PostToolUse carry
// apply_patch with the raw patch in tool_input.command; it reads files
// through its shell, whose output no hook can take as a read).
var codexEvents = []string{"UserPromptSubmit", "PreToolUse", "PostToolUse"}

func parseCodex(in []byte) (Event, error) {
	c, ev, err := readCommon(in)
	if err != nil {
		return ev, err
	}
	switch c.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = Prompt, c.Prompt
	case "PreToolUse", "PostToolUse":
		if c.Tool != "apply_patch" {
			break
		}
		if c.Event == "PostToolUse" {
			ev.Kind = AfterChange
			break
		}
		var p struct {
			Command string `json:"command"`
		}
		if err := unmarshal(c.Input, &p); err != nil {
			return ev, err
		}
		if p.Command == "" {
			return ev, fmt.Errorf("apply_patch's tool_input.command is empty")
		}
		ev.Kind, ev.Changes, ev.ReadsUnseen = BeforeChange, []any{stet.PatchArgs{Patch: p.Command}}, true
	}
	return ev, nil
}

// Gemini CLI (BeforeTool and AfterTool hooks in settings.json; tool_input
// is the model's own arguments, file_path possibly relative to cwd; no
// call id).
var geminiEvents = []string{"BeforeAgent", "BeforeTool", "AfterTool"}

type geminiInput struct {
	FilePath     string  `json:"file_path"`
	AbsolutePath string  `json:"absolute_path"`
	Content      *string `json:"content"`
	OldString    *string `json:"old_string"`
	NewString    string  `json:"new_string"`
	Expected     int     `json:"expected_replacements"`
	AllowMany    bool    `json:"allow_multiple"`
	StartLine    int     `json:"start_line"` // 1-based, as the code reads them
	EndLine      int     `json:"end_line"`
	Offset       *int    `json:"offset"` // 0-based, as the older docs give them
	Limit        int     `json:"limit"`
}

func parseGemini(in []byte) (Event, error) {
	c, ev, err := readCommon(in)
	if err != nil {
		return ev, err
	}
	switch c.Event {
	case "BeforeAgent":
		ev.Kind, ev.Prompt = Prompt, c.Prompt
	case "BeforeTool", "AfterTool":
		before := c.Event == "BeforeTool"
		var g geminiInput
		switch c.Tool {
		case "read_file", "write_file", "replace":
			if err := unmarshal(c.Input, &g); err != nil {
				return ev, err
			}
		default:
			return ev, nil
		}
		p := g.FilePath
		if p == "" {
			p = g.AbsolutePath
		}
		switch {
		case c.Tool == "read_file" && before:
			ev.Kind, ev.Path = BeforeRead, p
		case c.Tool == "read_file":
			ev.Kind, ev.Path = AfterRead, p
			switch {
			case g.StartLine > 0:
				ev.Offset = g.StartLine
				if g.EndLine >= g.StartLine {
					ev.Limit = g.EndLine - g.StartLine + 1
				}
			case g.Offset != nil:
				ev.Offset, ev.Limit = *g.Offset+1, g.Limit
			}
		case !before:
			ev.Kind = AfterChange
		case c.Tool == "write_file" && g.Content != nil:
			ev.Kind, ev.Changes = BeforeChange, []any{stet.WriteArgs{Path: p, Content: *g.Content}}
		case c.Tool == "replace" && g.OldString != nil:
			ev.Kind = BeforeChange
			ev.Changes = []any{editOrCreate(p, *g.OldString, g.NewString, g.Expected > 1 || g.AllowMany)}
		default:
			return ev, fmt.Errorf("%s's input names no change", c.Tool)
		}
		if ev.CallID == "" {
			// Gemini CLI names no call id: the session, the tool and the
			// file name the call between its BeforeTool and AfterTool.
			ev.CallID = c.Tool + ":" + absIn(c.Cwd, p)
		}
	}
	return ev, nil
}

// replyGemini writes an answer as Gemini CLI reads it: exit 0 and JSON on
// stdout ({"decision":"deny","reason":...} blocks a tool). After a tool
// it says nothing to the model (a decision there replaces the tool's
// result): a note goes to the user.
func replyGemini(ev Event, a Answer) Reply {
	out := map[string]any{}
	if a.Deny != "" && (ev.Kind == BeforeChange || ev.Kind == BeforeRead) {
		out["decision"], out["reason"] = "deny", a.Deny
	}
	return objectReply(out, "systemMessage", a)
}

// objectReply is out as the reply's JSON, with the answer's warning and
// note for the user under key; nothing when there is nothing to say.
func objectReply(out map[string]any, key string, a Answer) Reply {
	if msg := strings.TrimSpace(a.Warn + "\n" + a.Note); msg != "" {
		out[key] = msg
	}
	if len(out) == 0 {
		return Reply{}
	}
	return Reply{Stdout: jsonLine(out)}
}

// Cursor (.cursor/hooks.json, version 1). Its documented events give the
// prompt, a read before it runs (with the file's content), and an edit
// only after it landed (afterFileEdit); its preToolUse documents no file
// tool's input, so a change is recorded, not checked, in Cursor.
var cursorEvents = []string{"beforeSubmitPrompt", "beforeReadFile", "afterFileEdit"}

type cursorEvent struct {
	Event      string        `json:"hook_event_name"`
	Conv       string        `json:"conversation_id"`
	Generation string        `json:"generation_id"`
	Roots      []string      `json:"workspace_roots"`
	Prompt     string        `json:"prompt"`
	FilePath   string        `json:"file_path"`
	Edits      []stet.EditOp `json:"edits"`
}

func parseCursor(in []byte) (Event, error) {
	if _, err := object(in); err != nil {
		return Event{}, err
	}
	var c cursorEvent
	if err := json.Unmarshal(in, &c); err != nil {
		return Event{}, fmt.Errorf("the event does not read: %w", err)
	}
	ev := Event{Name: c.Event, Session: c.Conv, Tool: "Cursor", CallID: c.Generation}
	if len(c.Roots) > 0 {
		ev.Cwd = c.Roots[0]
	}
	switch c.Event {
	case "beforeSubmitPrompt":
		ev.Kind, ev.Prompt = Prompt, c.Prompt
	case "beforeReadFile":
		ev.Kind, ev.Path, ev.ObserveOnAllow = BeforeRead, c.FilePath, true
	case "afterFileEdit":
		if len(c.Edits) == 0 {
			return ev, fmt.Errorf("afterFileEdit names no edit")
		}
		ev.Kind, ev.Path, ev.Edits = Landed, c.FilePath, c.Edits
	}
	return ev, nil
}

// replyCursor writes an answer as Cursor reads it: JSON on stdout with
// "permission" (beforeReadFile: a hook that says nothing may block the
// read) or "continue" (beforeSubmitPrompt).
func replyCursor(ev Event, a Answer) Reply {
	out := map[string]any{}
	switch ev.Name {
	case "beforeReadFile":
		out["permission"] = "allow"
		if a.Deny != "" {
			out["permission"], out["user_message"], out["agent_message"] = "deny", a.Deny, a.Deny
		}
	case "beforeSubmitPrompt":
		out["continue"] = true
	}
	return objectReply(out, "user_message", a)
}

// VS Code (its own agent runtime: hooks in .github/hooks/*.json, every
// hook for every tool; camelCase common fields, the Copilot tools' own
// names and inputs). A payload in Claude Code's names (the Copilot CLI
// runtime, or Claude Code's hooks VS Code loads) is read as Claude Code's.
var vscodeEvents = []string{"UserPromptSubmit", "PreToolUse", "PostToolUse"}

type vscodeEvent struct {
	Event   string          `json:"hookEventName"`
	Session string          `json:"sessionId"`
	Cwd     string          `json:"cwd"`
	Tool    string          `json:"tool_name"`
	Input   json.RawMessage `json:"tool_input"`
	CallID  string          `json:"tool_use_id"`
	Prompt  string          `json:"prompt"`
}

type vscodeEdit struct {
	FilePath     string       `json:"filePath"`
	OldString    *string      `json:"oldString"`
	NewString    string       `json:"newString"`
	Content      *string      `json:"content"`
	Input        string       `json:"input"`
	StartLine    int          `json:"startLine"`
	EndLine      int          `json:"endLine"`
	Offset       int          `json:"offset"`
	Limit        int          `json:"limit"`
	Replacements []vscodeEdit `json:"replacements"`
}

func parseVSCode(in []byte) (Event, error) {
	m, err := object(in)
	if err != nil {
		return Event{}, err
	}
	if _, ok := m["hook_event_name"]; ok {
		return parseClaude(in)
	}
	var v vscodeEvent
	if err := json.Unmarshal(in, &v); err != nil {
		return Event{}, fmt.Errorf("the event does not read: %w", err)
	}
	ev := Event{Name: v.Event, Session: sessionName(v.Session), Cwd: v.Cwd, CallID: v.CallID, Tool: v.Tool}
	switch v.Event {
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = Prompt, v.Prompt
		return ev, nil
	case "PreToolUse", "PostToolUse":
	default:
		return ev, nil
	}
	before := v.Event == "PreToolUse"
	switch v.Tool {
	case "read_file", "create_file", "replace_string_in_file", "multi_replace_string_in_file", "insert_edit_into_file", "apply_patch":
	default:
		return ev, nil
	}
	var e vscodeEdit
	if err := unmarshal(v.Input, &e); err != nil {
		return ev, err
	}
	switch {
	case v.Tool == "read_file" && before:
		ev.Kind, ev.Path = BeforeRead, e.FilePath
	case v.Tool == "read_file":
		ev.Kind, ev.Path = AfterRead, e.FilePath
		switch {
		case e.StartLine > 0:
			ev.Offset = e.StartLine
			if e.EndLine >= e.StartLine {
				ev.Limit = e.EndLine - e.StartLine + 1
			}
		default:
			ev.Offset, ev.Limit = e.Offset, e.Limit
		}
	case !before:
		ev.Kind = AfterChange
	default:
		ev.Kind = BeforeChange
		switch v.Tool {
		case "create_file":
			if e.Content == nil {
				return ev, fmt.Errorf("create_file names no content")
			}
			ev.Changes = []any{stet.WriteArgs{Path: e.FilePath, Content: *e.Content}}
		case "replace_string_in_file":
			if e.OldString == nil {
				return ev, fmt.Errorf("replace_string_in_file names no oldString")
			}
			ev.Changes = []any{editOrCreate(e.FilePath, *e.OldString, e.NewString, false)}
		case "multi_replace_string_in_file":
			ev.Changes = groupEdits(e.Replacements)
		case "insert_edit_into_file":
			ev.Changes = []any{stet.ClientRewrite{Path: e.FilePath}}
		case "apply_patch":
			ev.Changes = []any{stet.PatchArgs{Patch: e.Input}}
		}
		if len(ev.Changes) == 0 {
			return ev, fmt.Errorf("%s names no change", v.Tool)
		}
	}
	return ev, nil
}

// groupEdits turns VS Code's replacements, which may name several files,
// into one edit per file, in the order the files first appear.
func groupEdits(rs []vscodeEdit) []any {
	var order []string
	by := map[string]*stet.EditArgs{}
	for _, r := range rs {
		if r.OldString == nil {
			continue
		}
		a := by[r.FilePath]
		if a == nil {
			a = &stet.EditArgs{Path: r.FilePath}
			by[r.FilePath] = a
			order = append(order, r.FilePath)
		}
		a.Edits = append(a.Edits, stet.EditOp{OldString: *r.OldString, NewString: r.NewString})
	}
	out := make([]any, len(order))
	for i, p := range order {
		out[i] = *by[p]
	}
	return out
}

// sessionName is a client's session id as a stet session name: VS Code's
// is a URI (vscode-chat-session://local/<id>), of which the last part is
// kept.
func sessionName(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 && i+1 < len(id) {
		return id[i+1:]
	}
	return id
}

// replyVSCode is Claude Code's answer, with the decision also at the top
// level, where the Copilot CLI runtime reads it.
func replyVSCode(ev Event, a Answer) Reply {
	r := replyClaude(ev, a)
	if a.Deny == "" || (ev.Kind != BeforeChange && ev.Kind != BeforeRead) {
		return r
	}
	out := claudeReply{Output: &hookOutput{Event: ev.Name, Decision: "deny", Reason: a.Deny}, SystemMessage: a.Warn}
	b, err := json.Marshal(out)
	if err != nil {
		return r
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	m["permissionDecision"], m["permissionDecisionReason"] = "deny", a.Deny
	return Reply{Stdout: jsonLine(m)}
}
