package policy

import (
	"bytes"
	"path"
	"strings"
)

// Alarm reports whether replacing before with after in the file name
// deserves the ⚠ mark of rule 9: the number of lines shrank by 80% or more,
// or name has one of the extensions .csv .tsv .json .jsonl .md .txt .yaml
// .yml .toml .ini (any letter case) and its first line changed.
//
// Lines are counted as a person counts them: a final line without "\n"
// counts, an empty file has none. The first line is compared without its
// line ending, so converting CRLF to LF alone does not alarm.
func Alarm(name string, before, after []byte) bool {
	b, a := lineCount(before), lineCount(after)
	if b > 0 && 5*a <= b {
		return true
	}
	if !headerExt(name) {
		return false
	}
	return !bytes.Equal(firstLine(before), firstLine(after))
}

// headerExt reports whether name's extension marks a file whose first line
// is a header worth an alarm when it changes.
func headerExt(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".csv", ".tsv", ".json", ".jsonl", ".md", ".txt", ".yaml", ".yml", ".toml", ".ini":
		return true
	}
	return false
}

func lineCount(p []byte) int {
	n := bytes.Count(p, []byte{'\n'})
	if len(p) > 0 && p[len(p)-1] != '\n' {
		n++
	}
	return n
}

func firstLine(p []byte) []byte {
	if i := bytes.IndexByte(p, '\n'); i >= 0 {
		p = p[:i]
	}
	return bytes.TrimSuffix(p, []byte{'\r'})
}

// ReplacedMessage is the result message of a whole-file replace of a file
// the session did not create (rule 9). path is as the call spelled it;
// counts comes from Counts; alarm from Alarm.
//
//	replaced the user's file data/sales.csv (2,402 lines → 10); previous content saved — undo brings it back
func ReplacedMessage(path, counts string, alarm bool) string {
	msg := "replaced the user's file " + path + " (" + counts + "); previous content saved — undo brings it back"
	if alarm {
		msg = "⚠ " + msg
	}
	return msg
}

// DeletedMessage is the result message of deleting a file the session did
// not create, in the style of ReplacedMessage; counts is usually Count of
// the deleted file.
//
//	deleted the user's file notes.md (12 lines); previous content saved — undo brings it back
func DeletedMessage(path, counts string) string {
	return "deleted the user's file " + path + " (" + counts + "); previous content saved — undo brings it back"
}
