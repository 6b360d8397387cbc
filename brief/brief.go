package brief

import (
	"strconv"
	"strings"
	"unicode"
)

const (
	// InputsHeader is the first line of a rendered brief with inputs.
	InputsHeader = "INPUTS (the operator's own files — read and edit in place, never replace; write on one is refused):"
	// RequestMarker opens the ORIGINAL REQUEST block Render writes.
	RequestMarker = "ORIGINAL REQUEST:"
	// RequestEnd closes the ORIGINAL REQUEST block Render writes.
	RequestEnd = "END ORIGINAL REQUEST"
)

// Brief is what an orchestrator tells one worker.
type Brief struct {
	Inputs  []string // declared inputs: the operator's own files
	Request string   // the user's original request, quoted verbatim
	Task    string   // the worker's own task
}

// Render writes b as a brief: the INPUTS list first (when there are
// inputs), one "- <path>" a line, then the ORIGINAL REQUEST block, then the
// task, separated by blank lines. Inputs are trimmed and empty ones left
// out; a path holding a control character, or starting with a double
// quote, is written as a Go quoted string. The request and the task are
// trimmed of surrounding white space. The block is always written, empty
// when there is no request, and fenced when the request's own lines would
// otherwise be misread, so that QuotedRequest(Render(b)) returns the
// trimmed request and Parse(Render(b)) gives b back.
func Render(b Brief) string {
	var sb strings.Builder
	if inputs := cleanInputs(b.Inputs); len(inputs) > 0 {
		sb.WriteString(InputsHeader + "\n")
		for _, p := range inputs {
			if strings.ContainsFunc(p, unicode.IsControl) || strings.HasPrefix(p, `"`) {
				p = strconv.Quote(p)
			}
			sb.WriteString("- " + p + "\n")
		}
		sb.WriteString("\n")
	}
	req := strings.TrimSpace(b.Request)
	sb.WriteString(RequestMarker + "\n")
	if fence := fenceFor(req); fence != "" {
		sb.WriteString(fence + "\n" + req + "\n" + fence + "\n")
	} else {
		if req != "" {
			sb.WriteString(req + "\n")
		}
		sb.WriteString(RequestEnd + "\n")
	}
	if task := strings.TrimSpace(b.Task); task != "" {
		sb.WriteString("\n" + task + "\n")
	}
	return sb.String()
}

// cleanInputs trims inputs and drops empty ones.
func cleanInputs(in []string) []string {
	var out []string
	for _, p := range in {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// fenceFor returns the fence Render must put around req, or "" when req
// reads back unfenced: when none of its lines is an end marker, its first
// line opens no fence, and its lines are not all quoted with ">".
func fenceFor(req string) string {
	lines := strings.Split(req, "\n")
	needs := false
	if _, _, ok := fenceOpen(lines[0]); ok {
		needs = true
	}
	if quoted(lines) {
		needs = true
	}
	longest := 0
	for _, l := range lines {
		if isEnd(l) {
			needs = true
		}
		if t := strings.TrimSpace(l); t != "" && strings.Trim(t, "`") == "" {
			longest = max(longest, len(t))
		}
	}
	if !needs {
		return ""
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Parse reads a brief back: the INPUTS list before the request block (see
// Render; an item written as code, "- `data/sales.csv`", counts without its
// backticks), the request (as QuotedRequest returns it) and the task (the
// trimmed text after the request block; without a block, after the INPUTS
// list, or the whole text).
func Parse(text string) Brief {
	lines := strings.Split(text, "\n")
	blk, found := findBlock(lines)
	limit := len(lines)
	if found {
		limit = blk.first
	}
	var b Brief
	rest := 0
	for i := 0; i < limit; i++ {
		if !isInputsHeader(lines[i]) {
			continue
		}
		j := i + 1
		for ; j < limit; j++ {
			t := strings.TrimSpace(lines[j])
			item, ok := strings.CutPrefix(t, "- ")
			if !ok {
				if item, ok = strings.CutPrefix(t, "* "); !ok {
					break
				}
			}
			item = strings.TrimSpace(item)
			if len(item) > 2 && strings.HasPrefix(item, "`") && strings.HasSuffix(item, "`") {
				item = strings.TrimSpace(strings.Trim(item, "`")) // written as code: `data/sales.csv`
			}
			if strings.HasPrefix(item, `"`) {
				if u, err := strconv.Unquote(item); err == nil {
					item = u
				}
			}
			if item != "" {
				b.Inputs = append(b.Inputs, item)
			}
		}
		rest = j
		break
	}
	if found {
		b.Request = blk.content
		rest = blk.next
	}
	b.Task = strings.TrimSpace(strings.Join(lines[min(rest, len(lines)):], "\n"))
	return b
}

func isInputsHeader(line string) bool {
	t := strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(t, "INPUTS")
	return ok && strings.HasSuffix(t, ":") && (rest == ":" || strings.HasPrefix(rest, " ") || strings.HasPrefix(rest, "("))
}
