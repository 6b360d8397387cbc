package hook

import (
	"encoding/json"
	"fmt"
	"slices"

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
	{Name: "vscode", Events: claudeEvents, parse: parseClaude, reply: replyClaude},
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
		StartLine int `json:"startLine"`
		NumLines  int `json:"numLines"`
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
				ev.Offset, ev.Limit = resp.File.StartLine, resp.File.NumLines
			}
		case "Edit", "MultiEdit", "Write", "NotebookEdit":
			if !before {
				ev.Kind = AfterChange
				break
			}
			var e claudeEdit
			if err := unmarshal(c.Input, &e); err != nil {
				return ev, err
			}
			ev.Kind = BeforeChange
			switch {
			case c.Tool == "NotebookEdit":
				ev.Change = stet.ClientRewrite{Path: e.NotebookPath}
			case c.Tool == "Write" && e.Content != nil:
				ev.Change = stet.WriteArgs{Path: e.FilePath, Content: *e.Content}
			case c.Tool == "MultiEdit":
				ev.Change = stet.EditArgs{Path: e.FilePath, Edits: e.Edits}
			case e.OldString != nil && *e.OldString == "":
				// Claude Code's Edit with an empty old_string creates the file.
				ev.Change = stet.WriteArgs{Path: e.FilePath, Content: e.NewString}
			case e.OldString != nil:
				ev.Change = stet.EditArgs{Path: e.FilePath, OldString: e.OldString, NewString: &e.NewString, ReplaceAll: e.ReplaceAll}
			default:
				return ev, fmt.Errorf("%s's input names no change", c.Tool)
			}
		}
	}
	return ev, nil
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

func jsonLine(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return append(b, '\n')
}

// Codex (hooks in config.toml; PreToolUse and PostToolUse carry
// apply_patch with the raw patch in tool_input.command; it reads files
// through its shell, which no hook shows).
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
		ev.Kind, ev.Change, ev.ReadsUnseen = BeforeChange, stet.PatchArgs{Patch: p.Command}, true
	}
	return ev, nil
}

// Gemini CLI (BeforeTool and AfterTool hooks in settings.json; tool_input
// is the model's own arguments, file_path possibly relative to cwd).
var geminiEvents = []string{"BeforeAgent", "BeforeTool", "AfterTool"}

type geminiInput struct {
	FilePath     string  `json:"file_path"`
	AbsolutePath string  `json:"absolute_path"`
	Content      *string `json:"content"`
	OldString    *string `json:"old_string"`
	NewString    string  `json:"new_string"`
	Expected     int     `json:"expected_replacements"`
	AllowMany    bool    `json:"allow_multiple"`
	Offset       int     `json:"offset"`
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
			// Gemini's offset is 0-based.
			ev.Kind, ev.Path, ev.Offset, ev.Limit = AfterRead, p, g.Offset+1, g.Limit
		case !before:
			ev.Kind = AfterChange
		case c.Tool == "write_file" && g.Content != nil:
			ev.Kind, ev.Change = BeforeChange, stet.WriteArgs{Path: p, Content: *g.Content}
		case c.Tool == "replace" && g.OldString != nil && *g.OldString == "":
			ev.Kind, ev.Change = BeforeChange, stet.WriteArgs{Path: p, Content: g.NewString}
		case c.Tool == "replace" && g.OldString != nil:
			ev.Kind = BeforeChange
			ev.Change = stet.EditArgs{Path: p, OldString: g.OldString, NewString: &g.NewString, ReplaceAll: g.Expected > 1 || g.AllowMany}
		default:
			return ev, fmt.Errorf("%s's input names no change", c.Tool)
		}
		if ev.CallID == "" {
			// Gemini CLI names no call id: the session and the file name the
			// call between its BeforeTool and AfterTool.
			ev.CallID = c.Tool + ":" + absIn(c.Cwd, p)
		}
	}
	return ev, nil
}

// replyGemini writes an answer as Gemini CLI reads it: exit 0 and JSON on
// stdout ({"decision":"deny","reason":...} blocks a tool).
func replyGemini(ev Event, a Answer) Reply {
	out := map[string]any{}
	switch {
	case a.Deny != "" && (ev.Kind == BeforeChange || ev.Kind == BeforeRead):
		out["decision"], out["reason"] = "deny", a.Deny
	case a.Note != "":
		out["hookSpecificOutput"] = map[string]any{"hookEventName": ev.Name, "additionalContext": a.Note}
	}
	if a.Warn != "" {
		out["systemMessage"] = a.Warn
	}
	if len(out) == 0 {
		return Reply{}
	}
	return Reply{Stdout: jsonLine(out)}
}

// Cursor (.cursor/hooks.json, version 1).
var cursorEvents = []string{"beforeSubmitPrompt", "beforeReadFile"}

func parseCursor(in []byte) (Event, error) {
	m, err := object(in)
	if err != nil {
		return Event{}, err
	}
	var ev Event
	var roots []string
	var conv string
	if err := field(m, "hook_event_name", &ev.Name); err != nil {
		return ev, err
	}
	if err := field(m, "conversation_id", &conv); err != nil {
		return ev, err
	}
	if err := field(m, "workspace_roots", &roots); err != nil {
		return ev, err
	}
	ev.Session = conv
	if len(roots) > 0 {
		ev.Cwd = roots[0]
	}
	switch ev.Name {
	case "beforeSubmitPrompt":
		ev.Kind = Prompt
		err = field(m, "prompt", &ev.Prompt)
	case "beforeReadFile":
		ev.Kind = BeforeRead
		err = field(m, "file_path", &ev.Path)
	}
	return ev, err
}

// replyCursor writes an answer as Cursor reads it: JSON on stdout with
// "permission" (beforeReadFile) or "continue" (beforeSubmitPrompt).
func replyCursor(ev Event, a Answer) Reply {
	out := map[string]any{}
	switch ev.Kind {
	case BeforeRead:
		out["permission"] = "allow"
		if a.Deny != "" {
			out["permission"], out["user_message"], out["agent_message"] = "deny", a.Deny, a.Deny
		}
	case Prompt:
		out["continue"] = true
	}
	if a.Warn != "" {
		out["user_message"] = a.Warn
	}
	if len(out) == 0 {
		return Reply{}
	}
	return Reply{Stdout: jsonLine(out)}
}
